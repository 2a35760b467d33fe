"""Fleet triage: every failed workload of a cluster (or one project / department) in one concurrent pass, each
diagnosed by the same ``runai_failed`` procedure, then the patterns they share.

``triage(...)`` is the embeddable API (the ``workload-diagnose triage`` command calls it): list (``list.py``),
diagnose concurrently with shared reads (``run.py``), find cross-workload patterns (``patterns.py``), build the
result (``report.py``; ``html.py`` renders the self-contained page).
"""
from __future__ import annotations

import os
from typing import Any, Callable

import httpx

from workload_diagnose.agent.triage.report import TriageResult

__all__ = ["triage", "TriageResult"]


AUTO_PROCESSES_FROM = 500  # --processes auto: from this many listed workloads, a second process on 2+ cores


def triage(*, cluster_id: str | None, project: str | None = None, department: str | None = None,
           since: str = "24h", lookback: str = "7d", now: str | None = None, runai_url: str | None = None,
           client_id: str | None = None, client_secret: str | None = None, kubeconfig: str | None = None,
           use_kube: bool = True, kube_reader: Any = None, transport: httpx.BaseTransport | None = None,
           concurrency: int = 16, processes: int | None = 1, retry_sleep: Callable[[float], None] | None = None,
           on_total: Callable[[int], None] | None = None, on_done: Callable[[Any], None] | None = None,
           stats: dict | None = None, tier1: str = "rest", cluster_name: str | None = None,
           on_invocation: Callable[[Any, float], None] | None = None) -> TriageResult:
    """Raises InvalidInput, ApiUnavailable or ApiAuthError (as ``failed`` does); anything else is in the result.

    ``on_total(n)`` once the workloads are listed and ``on_done(item)`` after each diagnosis drive a progress bar;
    ``stats`` (optional) receives the request counts (``sent``, ``rate_limited``, ``kube_reads``, ``kube_saved``).
    ``processes`` > 1 spreads the diagnoses over worker processes (``procs.py``; not with a ``kube_reader`` object
    or a custom ``transport``, which cannot cross a process boundary); ``None`` = automatic: two processes (this
    one and a spawned worker) on a machine with 2+ cores for a fleet of ``AUTO_PROCESSES_FROM`` workloads or more,
    where the CPU of the diagnoses, not the API, is the limit; one otherwise (a worker costs ~120 MB and a second to
    start). ``tier1``: the Run:ai source, one that reads the ``fleet`` capability (an InvalidInput line
    otherwise). ``cluster_name`` (instead of ``cluster_id``): the cluster by its exact name, resolved first as
    ``failed`` resolves one (``agent.api.cluster_id_for``). ``on_invocation(invocation, ms)``: after each Run:ai
    read of this process (``-v``; a spawned worker's reads are not reported)."""
    from workload_diagnose.agent.model.settings import Settings, make_kube
    from workload_diagnose.agent.sources import check_tier1, open_runai, source_settings
    from workload_diagnose.agent.triage.listing import build_triage_request, list_candidates
    from workload_diagnose.agent.triage.report import assemble
    from workload_diagnose.agent.triage.run import Item, SharedKube, diagnose_all
    from workload_diagnose.tools.runai import InvalidInput
    from workload_diagnose.tools.runai.registry import require
    from workload_diagnose.tools.runai.source import FLEET

    req = build_triage_request(cluster_id=cluster_id, project=project, department=department, since=since,
                               lookback=lookback, now=now, cluster_name=cluster_name)
    if concurrency < 1 or concurrency > 256:
        raise InvalidInput(f"concurrency must be between 1 and 256, not {concurrency}")
    if processes is not None and (processes < 1 or processes > 64):
        raise InvalidInput(f"processes must be between 1 and 64, not {processes}")
    require(check_tier1(tier1), FLEET, "triage a fleet")
    settings = Settings.from_env()
    url, cid, secret = settings.runai(runai_url, client_id, client_secret)
    wanted = source_settings(settings, url=url, client_id=cid, client_secret=secret, transport=transport,
                             sleep=retry_sleep, concurrent_reads=False, paced=True, on_invocation=on_invocation)
    client = open_runai(tier1, wanted)
    kube = None
    try:
        handoff = client.handoff()  # the credential exchanged once, for every read of the triage
        if req.cluster_name:
            from dataclasses import replace

            from workload_diagnose.agent.api import cluster_id_for

            req = replace(req, cluster_id=cluster_id_for(client, req.cluster_name))
        listing = list_candidates(client, req)
        if kube_reader is not None:
            kube, why = kube_reader, None
        else:
            kube, why = make_kube(kubeconfig, use_kube, settings)
        shared = SharedKube(kube) if kube is not None else None
        items = [Item(w, False) for w in listing.terminal] + [Item(w, True) for w in listing.active]
        if on_total:
            on_total(len(items))
        if processes is None:
            processes = min(2, os.cpu_count() or 1) if len(items) >= AUTO_PROCESSES_FROM else 1
        workers: dict[int, dict] = {}
        if processes > 1 and kube_reader is None and transport is None and len(items) > 1:
            from workload_diagnose.agent.triage.procs import diagnose_in_processes

            def here(chunk: list, per_process: int) -> None:  # this process is one of the N: N - 1 are spawned
                diagnose_all(client, req, chunk, kube=shared, kube_unavailable=why, concurrency=per_process,
                             progress=on_done)

            workers = diagnose_in_processes(items, req, processes=processes, tier1=tier1,
                                            settings=wanted.portable(), handoff=handoff, kubeconfig=kubeconfig,
                                            use_kube=use_kube, concurrency=concurrency, progress=on_done, here=here)
        else:
            diagnose_all(client, req, items, kube=shared, kube_unavailable=why, concurrency=concurrency,
                         progress=on_done)
        counters = [{**client.traffic(), "kube_reads": shared.reads if shared else 0,
                     "kube_saved": shared.saved if shared else 0},
                    *workers.values()]
    finally:
        client.close()
        if kube_reader is None and kube is not None:
            kube.close()  # the reader this call made (a caller's own reader stays the caller's)
    if stats is not None:
        stats.update({k: sum(c[k] for c in counters) for k in counters[0]},
                     stood_in=sum(1 for it in items if it.reads is not None and it.reads.stood_in))
    return assemble(req, listing, items, kube_unavailable=why if kube is None else None)
