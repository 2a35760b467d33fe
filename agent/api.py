"""The embeddable Python API: one call, one DiagnosisResult. Used by the CLI, the eval runner and bots."""
from __future__ import annotations

from typing import Any, Callable

import httpx

from agent.config import Configuration, parse_now
from agent.entrypoints.settings import Settings, make_kube
from agent.state import DiagnosisResult
from tools.runai import ApiAuthError, ApiUnavailable, InvalidInput, RunaiClient, check_id, check_name

__all__ = ["diagnose", "run_graph", "ApiAuthError", "ApiUnavailable", "InvalidInput", "Configuration",
           "DiagnosisResult"]


def validate_inputs(cfg: Configuration) -> None:
    """Bad input gets a clear error before any request is made."""
    if cfg.cluster_id:
        check_id(cfg.cluster_id, "cluster id")
    if cfg.workload_id:
        check_id(cfg.workload_id, "workload id")
    if cfg.workload_name:
        check_name(cfg.workload_name, "workload name")
    if cfg.project:
        check_name(cfg.project, "project")


def run_graph(cfg: Configuration, runai: RunaiClient, kube: Any = None, kube_unavailable: str | None = None,
              progress: Callable[[str], None] | None = None) -> DiagnosisResult:
    from agent.graph import build_graph
    from agent.nodes import Deps

    deps = Deps(runai=runai, kube=kube, kube_unavailable=kube_unavailable, progress=progress)
    out = build_graph().invoke({}, config={"configurable": {"cfg": cfg, "deps": deps}})
    return out["result"]


def diagnose(*, cluster_id: str | None = None, workload_id: str | None = None, workload_name: str | None = None,
             project: str | None = None, intent: str = "terminal", lookback: str = "7d", now: str | None = None,
             runai_url: str | None = None, client_id: str | None = None, client_secret: str | None = None,
             kubeconfig: str | None = None, use_kube: bool = True, kube_reader: Any = None,
             transport: httpx.BaseTransport | None = None, retry_sleep: Callable[[float], None] | None = None,
             progress: Callable[[str], None] | None = None, llm: Any = None) -> DiagnosisResult:
    """Diagnose one workload. Raises InvalidInput, ApiUnavailable or ApiAuthError; anything else is a result.

    ``llm`` (optional, any langchain-core chat model) only adds a validated ``explanation``; it never changes
    the outcome, category, evidence or recommendations.
    """
    try:
        cfg = Configuration(cluster_id=cluster_id or None, workload_id=workload_id or None,
                            workload_name=workload_name or None, project=project or None, intent=intent,
                            lookback=lookback, now=parse_now(now))
    except ValueError as e:
        raise InvalidInput(str(e).splitlines()[-1] if "validation error" in str(e) else str(e)) from None
    validate_inputs(cfg)
    settings = Settings.from_env()
    url, cid, secret = settings.runai(runai_url, client_id, client_secret)
    complete = cfg.cluster_id and (cfg.workload_id or (cfg.workload_name and cfg.project))
    if complete and not url:
        raise InvalidInput("no Run:ai URL: pass --runai-url or set RUNAI_BASE_URL")
    kw: dict[str, Any] = {"transport": transport}
    if retry_sleep is not None:
        kw["sleep"] = retry_sleep
    runai = RunaiClient(url or "http://runai-url-not-configured.invalid", cid, secret, **kw)
    if kube_reader is not None:
        kube, why = kube_reader, None
    else:
        kube, why = make_kube(kubeconfig, use_kube, settings)
    try:
        result = run_graph(cfg, runai, kube, why, progress)
    finally:
        runai.close()
    if llm is not None:
        from agent.llm import explain

        result.explanation = explain(result, llm)
    return result
