"""The bundled suite and the fault matrix through MCP (``workload-diagnose eval --tier1 mcp [--faults]``).

Each scenario runs live: the simulator serves its World over real HTTP, the MCP stand-in
(:mod:`evals.mcp_standin`) answers the official server's tools from it, and the product's
:class:`tools.runai.mcp.RunaiMcpSource` reads through the official SDK over in-memory streams (one stand-in
session per diagnosis; ``tests/mcp_tier1`` covers the real stdio and streamable-HTTP transports). A Tier-2
scenario's Kubernetes side replays from its cassette (localhost, i.e. the simulator, passes through vcrpy).
The checks are the replay's (verdict, validity, citations, invented values against everything the simulator
served, leaks) except the tool-call minimum, which counts REST requests: through MCP the observed calls are
reported, not compared.

The fault matrix adds, to every REST fault of :mod:`evals.faultmatrix` (injected in the simulator, under the
stand-in), the MCP faults of :data:`evals.faultmatrix.MCP_VARIANTS` on every tool a scenario calls: a tool error,
a call that outlives the client's deadline, and a dropped session — once (transient) and always (persistent).
"""
from __future__ import annotations

import json
import time
from typing import Any

from workload_diagnose.evals.runner import LiveRun, _kwargs, _ShortReadTimeout, faulted_world
from workload_diagnose.evals.scenarios import Scenario

#: skill tool -> the fault-matrix endpoint class whose rules (fatal allowed? limitation words) apply to it
TOOL_ENDPOINT = {"list_workloads": "list", "get_workload_status": "workload", "get_workload_spec": "spec",
                 "get_workload_pods": "pods", "get_workload_history": "history", "get_workload_metrics": "metrics"}
ENDPOINT_TOOL = {v: k for k, v in TOOL_ENDPOINT.items()}
MCP_TIMEOUT = 0.6  # the client's per-call deadline in an MCP timeout run (the stand-in holds the answer 2 s)


class McpRun(LiveRun):
    def __init__(self):
        super().__init__()
        self.mcp_calls: list[tuple[str, dict]] = []  # every tools/call the stand-in received
        self.mcp_requests: list[str] = []  # the invocations' request texts (what reports cite)


def live_run_mcp(sc: Scenario, *, world: dict | None = None, faults: list[dict] | None = None,
                 read_timeout: float | None = None, mcp_faults: list[dict] | None = None,
                 options: dict | None = None, kube_reader: Any = None) -> McpRun:
    """Run ``sc`` through the MCP stand-in over the simulator; REST ``faults`` go into the world, ``mcp_faults``
    into the stand-in. Never raises: errors are recorded on the run (as :func:`evals.runner.live_run`)."""
    from workload_diagnose.agent.api import run_procedure
    from workload_diagnose.evals.mcp_standin import McpFault, Options, Standin, memory_connector
    from workload_diagnose.evals.simulator import running_simulator
    from workload_diagnose.tools.runai.mcp import RunaiMcpSource

    wd, target = faulted_world(sc, world, faults, read_timeout)
    run = McpRun()
    opts = Options(**(options or {}))
    opts.faults = [McpFault(**f) for f in (mcp_faults or [])]
    deadline = MCP_TIMEOUT if any(f.kind == "timeout" for f in opts.faults) else 10.0
    t0 = time.perf_counter()
    with running_simulator(wd) as sim:
        standin = Standin(sim.url, sim.client_id, sim.client_secret, opts, sleep=run.sleeps.append,
                          transport=_ShortReadTimeout(read_timeout, target) if read_timeout else None)
        source = RunaiMcpSource(memory_connector(standin), describe="the MCP stand-in", timeout=deadline,
                                sleep=run.sleeps.append)
        try:
            run.attempt(lambda: run_procedure(sc.procedure, **_kwargs(sc), use_kube=kube_reader is not None,
                                              kube_reader=kube_reader, tier1="mcp", source=source))
        finally:
            source.close()
            standin.close()
        run.mcp_requests = [c.request for c in run.result.tool_calls] if run.result else []
        run.seconds = time.perf_counter() - t0
        with sim.lock:
            run.requests = list(sim.requests)
            run.exchanges = list(sim.exchanges)
            run.secrets = [sim.client_secret, *sorted(sim.tokens)]
        run.fired = sim.faults.fired + standin.fired
        with standin.lock:
            run.mcp_calls = list(standin.calls)
    return run


# ------------------------------------------------------------------------------------------------ scoring
def score_mcp(ref: str) -> dict:
    """One scenario through MCP, scored like :func:`evals.suite.score_replay` (without the REST call minimum)."""
    import vcr  # noqa: F401 - the evals extra

    from workload_diagnose.evals import checks, gates
    from workload_diagnose.evals.cassettes import player
    from workload_diagnose.evals.scoring import _finish, _load, _verdict_dict, _warm, result_problems

    _warm()
    sc = _load(ref)
    rec: dict[str, Any] = {"id": sc.id, "suite": sc.suite, "confirmed": sc.confirmed, "replay_only": False,
                           "known_defect": sc.known_defect,
                           "expected": _verdict_dict(*sc.expected.verdict(), sc.expected.recurrence)}
    t0 = time.perf_counter()
    kube_bodies: list[str] = []
    kube_reads: list[gates.Read] = []
    if sc.tier2:  # Kubernetes from the cassette; the simulator (localhost) is not intercepted
        from workload_diagnose.evals.kubeworld import KUBE_REPLAY_URL, recorded_pod_uids, replay_reader, with_pod_uids

        kube_reads = [r for r in gates.cassette_reads(sc.cassette.read_text()) if KUBE_REPLAY_URL in r.uri]
        kube_bodies = [r.body for r in kube_reads]
        # the Run:ai side reports the pods' UIDs as the recorded apiserver assigned them (Tier 2 checks identity)
        world = with_pod_uids(json.loads(sc.world.read_text()), recorded_pod_uids(kube_bodies))
        with player().use_cassette(str(sc.cassette), ignore_localhost=True):
            run = live_run_mcp(sc, world=world, kube_reader=replay_reader())
    else:
        run = live_run_mcp(sc)
    seconds = time.perf_counter() - t0
    res = run.result
    if res is None:
        rec.update(got=_verdict_dict("fatal", None, None, None), problems=[f"MCP run failed: {run.error}"],
                   citations=[0, 0], invented=[], leaks=[], tool_calls={"observed": 0, "minimum": None, "by_tool": {}},
                   gates=gates.no_result_gates(sc.undecidable))
        rec["_seconds"] = seconds
        return _finish(rec)
    problems = checks.verdict_problems(sc, res) + [f"invalid result: {x}" for x in checks.validity_problems(res)]
    corpus = checks.Corpus([b for *_, b in run.exchanges] + kube_bodies,
                           [p for _, p in run.requests] + run.mcp_requests, sc.args.model_dump())
    invented = checks.invented_values(res.report, corpus)
    leaks = checks.secret_leaks({"result": res.model_dump_json()}, run.secrets)
    cited, total = checks.citations(res)
    observed = checks.observed_calls(res)
    problems += result_problems(invented, leaks, cited, total)
    from workload_diagnose.tools.runai.mcp.allow import READ_TOOLS

    refused = [n for n, _ in run.mcp_calls if n not in READ_TOOLS]  # the client's own allow-list, every capability
    if refused:
        problems.append(f"tools outside the allow-list were called: {refused}")
    from workload_diagnose.evals.mcp_standin import WRITE_TOOLS

    reads = [gates.Read(m, p, b.decode("utf-8", "replace") if isinstance(b, (bytes, bytearray)) else str(b), False)
             for m, p, _, b in run.exchanges] + kube_reads
    sent = [(m, p, False) for m, p in run.requests] + [(r.method, r.uri, True) for r in kube_reads]
    rec["gates"], gate_problems = gates.record_gates(res, reads, sent, undecidable=sc.undecidable,
                                                     extra_writes=[f"MCP tool {n}" for n in refused if n in WRITE_TOOLS])
    problems += gate_problems
    count = res.recurrence.count if getattr(res, "recurrence", None) else None
    rec.update(got=_verdict_dict(*checks.verdict_of(res), count),
               problems=problems, citations=[cited, total], invented=invented, leaks=leaks,
               tool_calls={"observed": sum(observed.values()), "minimum": None, "by_tool": observed,
                           "minimum_by_tool": {}})
    rec["_seconds"] = seconds
    return _finish(rec)


# ------------------------------------------------------------------------------------------------ faults
def mcp_plan(tools: list[str]) -> list[tuple[str, str]]:
    """(variant, endpoint) MCP fault runs for a scenario whose fault-free run called ``tools``."""
    from workload_diagnose.evals import faultmatrix as fm

    eps = [TOOL_ENDPOINT[t] for t in TOOL_ENDPOINT if t in tools]
    return [(v.name, ep) for ep in eps for v in fm.MCP_VARIANTS]


def mcp_fault(variant: str, endpoint: str) -> dict:
    from workload_diagnose.evals import faultmatrix as fm

    return {"tool": ENDPOINT_TOOL[endpoint], **fm.BY_NAME[variant].spec}
