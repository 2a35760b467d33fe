"""Bench item ``cpu``: CPU time of one warm, in-process, replayed diagnosis (issue 25: ≤ 5 ms at p50).

Each scenario's recorded exchanges are read from its cassette once, before any timing, and served from memory by an
httpx transport handed to ``agent.api.run_procedure`` (``transport=``): every product layer runs exactly as in a
live diagnosis (the read-only transport, the REST wire with its caps and deadline, every body redacted and scanned
for injections, the compiled graph, the report and its last redaction pass); only the network and the cassette's
YAML parsing, which the ``replay`` item times with vcrpy, are left out. Nothing is kept from one diagnosis to the
next: each gets a fresh source, token and transport. CPU is ``time.process_time`` (every thread of the process:
the graph's parallel reads run in a thread pool), so other load on a shared machine changes it less than wall
time. The note says where the CPU goes: a profile of the same diagnoses with every thread's own CPU time
(``cProfile`` with ``time.thread_time``), grouped by package.

    python -m workload_diagnose.evals.bench --only cpu [--quick]
"""
from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from typing import Any, Callable
from urllib.parse import urlsplit

import httpx

from workload_diagnose.evals.bench_common import INFO, MISS, Ctx, judge, percentile, row

GOAL_S = 0.005
# the goals were set on this machine type idle, where `python -c "import langgraph.graph"` costs ~0.5 s of CPU (issue
# 25); on a loaded shared machine every CPU figure grows with that import's, so the goal is scaled by this run's
# measurement of it (the cold-CLI row does the same: evals.bench_process)
LANGGRAPH_IMPORT_REF_S = 0.5


class ReplayTransport(httpx.BaseTransport):
    """Serves one diagnosis's recorded exchanges from memory: matched on method, host, path and query (as the
    vcrpy player matches), each played once; an unrecorded request fails the diagnosis."""

    def __init__(self, exchanges: list[tuple[tuple[str, str, str, str], int, list, bytes]]):
        self._left = list(exchanges)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        u = request.url
        key = (request.method, u.netloc.decode("ascii"), u.path, u.query.decode("ascii"))
        for i, (k, status, headers, body) in enumerate(self._left):
            if k == key:
                del self._left[i]
                return httpx.Response(status, headers=headers, content=body)
        raise httpx.ConnectError(f"no recorded exchange for {key[0]} {key[2]}?{key[3]}")


def exchanges(cassette_text: str) -> list[tuple[tuple[str, str, str, str], int, list, bytes]]:
    from workload_diagnose.evals.cassettes import parse

    data = parse(cassette_text)
    out = []
    for it in data.get("interactions") or []:
        req, resp = it["request"], it["response"]
        u = urlsplit(req["uri"])
        body = resp["body"]["string"]
        out.append(((req["method"], u.netloc, u.path, u.query), resp["status"]["code"],
                    [(k, v) for k, vs in (resp.get("headers") or {}).items() for v in vs],
                    body.encode() if isinstance(body, str) else body))
    return out


def diagnoses(suites: list[str] | None, limits: Any = None) -> list[tuple[Any, Callable[[], Any]]]:
    """(scenario, a function running its diagnosis from memory) for every recorded scenario without Tier 2."""
    from workload_diagnose.agent.api import run_procedure
    from workload_diagnose.evals.runner import _kwargs
    from workload_diagnose.evals.scenarios import REPLAY_URL, all_scenarios

    out = []
    for sc in all_scenarios(suites):
        if sc.tier2 or not sc.cassette.exists():
            continue
        recorded = exchanges(sc.cassette.read_text())

        def fn(sc=sc, recorded=recorded):
            return run_procedure(sc.procedure, **_kwargs(sc), runai_url=REPLAY_URL, client_id="replay",
                                 client_secret="replay", use_kube=False, transport=ReplayTransport(recorded),
                                 retry_sleep=lambda s: None, limits=limits)

        out.append((sc, fn))
    return out


def cpu_samples(runs: list[tuple[Any, Callable[[], Any]]], reps: int) -> tuple[list[float], dict[str, str]]:
    """CPU seconds of each diagnosis (``reps`` passes over every scenario), and the scenarios whose verdict
    differs from their case.json (or that failed), with why."""
    wrong: dict[str, str] = {}
    xs: list[float] = []
    for _ in range(reps):
        for sc, fn in runs:
            t = time.process_time()
            try:
                res = fn()
            except Exception as e:  # noqa: BLE001 - reported in the row, not raised
                wrong[sc.id] = f"{type(e).__name__}: {str(e)[:160]}"
                continue
            xs.append(time.process_time() - t)
            got = (res.outcome, getattr(res, "category", None) or getattr(res, "reason", None), res.route)
            if got != sc.expected.verdict():
                wrong[sc.id] = f"verdict {got} != {sc.expected.verdict()}"
    return xs, wrong


def _package(filename: str, func: str) -> str:
    f = filename.replace("\\", "/")
    if f == "~":
        if func.startswith(("<method 'acquire'", "<method 'release'", "<built-in method _thread")):
            return "threads"
        return "builtins"
    if "site-packages/" in f:
        top = f.split("site-packages/")[1].split("/")[0]
        return {"langchain_core": "langgraph", "uuid_utils": "langgraph", "xxhash": "langgraph",
                "pydantic_core": "pydantic", "httpcore": "httpx", "h11": "httpx"}.get(top, top)
    for mark in ("/guardrails/", "/agent/", "/tools/"):
        if mark in f:
            rest = f.split(mark, 1)[1].split("/")
            return mark.strip("/") + ("/" + rest[0] if len(rest) > 1 else "")
    if "/threading.py" in f or "/concurrent/futures/" in f or "/queue.py" in f:
        return "threads"
    return "stdlib"


def profile_shares(runs: list[tuple[Any, Callable[[], Any]]]) -> list[tuple[str, float]]:
    """Share of the profiled CPU per package over one pass of ``runs``, every thread measured with its own CPU
    time (``cProfile`` with ``time.thread_time``; a profiler inflates code made of many small calls)."""
    import cProfile
    import pstats
    import threading

    profiles: list[cProfile.Profile] = []

    def start(*_a: Any) -> None:  # the first event of a new thread: profile it with its own clock
        sys.setprofile(None)
        p = cProfile.Profile(time.thread_time)
        profiles.append(p)
        p.enable()

    main = cProfile.Profile(time.thread_time)
    threading.setprofile(start)
    main.enable()
    try:
        for _sc, fn in runs:
            fn()
    finally:
        main.disable()
        threading.setprofile(None)  # (pool threads ended with their executor; their profiles hold their calls)
    stats = pstats.Stats(main)
    for p in profiles:
        p.disable()
        try:
            stats.add(p)
        except TypeError:  # a thread that made no call
            pass
    by: Counter[str] = Counter()
    for (filename, _line, func), (_cc, _nc, tt, _ct, callers) in stats.stats.items():  # type: ignore[attr-defined]
        pkg = _package(filename, func)
        if pkg in ("builtins", "stdlib") and callers:  # a C function or the standard library: its callers' cost
            for (cfile, _cl, cfunc), edge in callers.items():
                by[_package(cfile, cfunc) if _package(cfile, cfunc) not in ("builtins", "stdlib") else pkg] += edge[2]
        else:
            by[pkg] += tt
    total = sum(by.values()) or 1.0
    return [(k, v / total) for k, v in by.most_common()]


def langgraph_import_cpu() -> float | None:
    """CPU seconds of ``python -c "import langgraph.graph"`` in a child (this machine's speed right now)."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    try:
        p = subprocess.Popen([sys.executable, "-c", "import langgraph.graph"], env=env)
        _pid, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    except (OSError, AttributeError):
        return None
    return ru.ru_utime + ru.ru_stime if p.returncode == 0 else None


def item_cpu(ctx: Ctx) -> dict:
    from workload_diagnose.agent.model.limits import Limits

    suites = ["core"] if ctx.quick else None
    reps = 2 if ctx.quick else 5
    runs = diagnoses(suites)
    if not runs:
        raise RuntimeError("no recorded scenario to replay")
    for _sc, fn in runs:  # warm: imports, graph compile, the redactor's matchers, the first of each code path
        fn()
    xs, wrong = cpu_samples(runs, reps)
    seq_xs, seq_wrong = cpu_samples(diagnoses(suites, Limits(concurrent_reads=False)), 1 if ctx.quick else 2)
    wrong.update(seq_wrong)
    if not xs:
        raise RuntimeError("every diagnosis failed: " + "; ".join(f"{k}: {v}" for k, v in list(wrong.items())[:3]))
    p50, p95 = percentile(xs, 50), percentile(xs, 95)
    seq_p50 = percentile(seq_xs, 50) if seq_xs else float("nan")
    profiled = runs[: 10 if ctx.quick else 40]
    shares = profile_shares(profiled)
    lg = langgraph_import_cpu()
    load = max(1.0, lg / LANGGRAPH_IMPORT_REF_S) if lg else 1.0
    allowed = GOAL_S * load
    share = dict(shares)
    where = ", ".join(f"{k} {v * 100:.0f}%" for k, v in shares[:7])
    note = (f"Where the CPU goes (profile of {len(profiled)} diagnoses, each thread's own CPU time): {where}. "
            f"LangGraph's runtime ({share.get('langgraph', 0) * 100:.0f}%, and the thread pool it starts per invoke "
            f"for the parallel reads: threads {share.get('threads', 0) * 100:.0f}%) is paid on each of the "
            "procedure's supersteps whatever its nodes do; httpx is the REST wire building and reading each request "
            "(tools/runai/rest). ")
    if lg:
        note += (f"This machine right now: `import langgraph.graph` took {lg:.2f} s of CPU, {load:.1f}× its idle "
                 f"{LANGGRAPH_IMPORT_REF_S} s: the goal scales to {allowed * 1000:.1f} ms; the p50 at idle speed ≈ "
                 f"{p50 / load * 1000:.1f} ms.")
    if p50 > allowed:
        note = f"p50 {p50 * 1000:.1f} ms is {(p50 - allowed) * 1000:.1f} ms over the scaled goal. " + note
    rows = [
        row(f"CPU per diagnosis p50 ≤ {GOAL_S * 1000:.0f} ms (warm, in-process, replayed from memory, every guard on; "
            f"scaled by this run's slowdown against its idle {LANGGRAPH_IMPORT_REF_S} s `import langgraph.graph`)",
            f"p50 {p50 * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms ({len(xs)} diagnoses: {len(runs)} scenarios × {reps}; "
            f"process CPU, all threads; ≈ {p50 / load * 1000:.1f} ms at idle speed)", judge(p50 <= allowed), note,
            p50_s=p50, p95_s=p95, allowed_s=allowed, langgraph_import_cpu_s=lg, shares=share),
        row("CPU per diagnosis p50, reads one after the other (Limits(concurrent_reads=False): the service's and "
            "triage's shape) (info)", f"p50 {seq_p50 * 1000:.2f} ms ({len(seq_xs)} diagnoses)", INFO,
            p50_s=seq_p50),
    ]
    if wrong:
        rows.append(row("Every diagnosis replayed from memory reaches its case.json verdict",
                        f"{len(wrong)} differ or failed", MISS,
                        "; ".join(f"{k}: {v}" for k, v in list(wrong.items())[:6])[:600]))
    return {"rows": rows, "data": {"samples": len(xs), "scenarios": len(runs), "reps": reps,
                                   "p50_s": p50, "p95_s": p95, "sequential_p50_s": seq_p50,
                                   "median_s": statistics.median(xs), "shares": dict(shares),
                                   "langgraph_import_cpu_s": lg, "wrong": wrong}}
