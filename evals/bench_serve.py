"""Benchmark item ``serve`` (issue 13): K concurrent clients against ``workload-diagnose serve`` + the simulator.

    workload-diagnose bench --only serve          # or: python -m workload_diagnose.evals.bench_serve [--clients 32] [--seconds 10]

Three processes on this machine, as in production minus the network: the Run:ai simulator (``workload-diagnose
simulate``, 50 ms injected per request), the service (``workload-diagnose serve``, real uvicorn, service-account
auth with an API token, ``--workers 2``: one process per core, the graph holds the GIL) and the load generator
(this process: K keep-alive HTTP/1.1 connections over asyncio streams, each sending one ``POST /v1/diagnoses``
after the other; a few lines of its own so that its CPU stays out of the service's share). Every answer must be
200 with the scenario's expected verdict, else it is an error. Reported: diagnoses/s, p50/p99 latency, errors, and what limits the figure (the CPU time of each
process per diagnosis, from ``/proc``). Goal: ≥ 200 diagnoses/s with p99 < 0.5 s at 32 clients, 0 errors.
Bounded: a warm-up of ``warmup_s`` then ``seconds`` of measurement (at most ``max_requests`` answers).

The latency rows (``probe_latency``): one client, one diagnosis at a time, against a simulator in this process that
records when each request arrived and was answered (``SimServer.timeline``), so it counts each diagnosis's
dependent round trips (``dependent_depth``: requests made at once count once; the median over the diagnoses, since
a sender starved of CPU for longer than the API latency makes reads sent at once look dependent). Goals: at most 3
round trips and a p50 within 3 × the API latency + 10 ms; with ``WD_SPECULATIVE_READS=on``, at most 2 and 2 × +
10 ms.
"""
from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from workload_diagnose.evals.bench_common import MISS, PASS, INFO, REPO, SKIP, Ctx, judge, ms, percentile, row

SCENARIO = "core/oom-metrics"  # the full Tier-1 path: token, status, spec/pods/history/metrics
DELAY_MS = 50
GOAL_RPS, GOAL_P99_S, GOAL_CLIENTS = 200.0, 0.5, 32
GOAL_TRIPS, GOAL_TRIPS_SPECULATIVE = 3, 2  # dependent round trips of one diagnosis (× DELAY_MS + 10 ms of latency)
EXE = [sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli"]
TOKEN = "wd-bench-" + hashlib.sha256(b"bench").hexdigest()[:24]


def http_scenarios(suites: list[str] | None = None) -> list:
    """The scenarios a caller can send over HTTP (a cluster id and a workload: the others are 422 by contract),
    with a simulator world, not Tier 2, whose Option B names do not collide once their worlds are merged."""
    from workload_diagnose.evals.scenarios import all_scenarios

    out, seen = [], set()
    for sc in all_scenarios(suites or ["core"]):
        a = sc.args
        if sc.tier2 or not sc.has_world or not a.complete:
            continue
        world = json.loads(sc.world.read_text())
        if set(world) - {"workloads", "events", "pods", "history", "specs", "metrics"}:
            continue  # faults or auth quirks apply to the whole server: not mergeable
        keys = {(w.get("name"), w.get("projectName"), w.get("clusterId")) for w in world.get("workloads") or []}
        if keys & seen:
            continue
        seen |= keys
        out.append(sc)
    return out


def merged_world(scenarios: list) -> dict:
    """One simulator world holding every scenario's workloads (all its data is keyed by workload id)."""
    merged: dict[str, Any] = {"workloads": []}
    for sc in scenarios:
        world = json.loads(sc.world.read_text())
        merged["workloads"] += world.get("workloads") or []
        for key in ("events", "pods", "history", "specs", "metrics"):
            merged.setdefault(key, {}).update(world.get(key) or {})
    return merged


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process and its reaped children (``/proc/PID/stat``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    tick = os.sysconf("SC_CLK_TCK")
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / tick


def _tree_cpu_s(pid: int) -> float:
    """CPU seconds of a process and its live children (``serve --workers N`` forks)."""
    total = _cpu_s(pid)
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        kids = []
    return total + sum(_tree_cpu_s(int(k)) for k in kids)


def _wait_http(url: str, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{url}: the process exited with {proc.returncode}")
        try:
            if httpx.get(url, timeout=1.0).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


@contextmanager
def _processes(workers: int, delay_ms: int, max_concurrent: int) -> Iterator[tuple[str, subprocess.Popen,
                                                                                   subprocess.Popen]]:
    from workload_diagnose.evals.scenarios import load_scenario

    sc = load_scenario(SCENARIO)
    sim_port, port = _free_port(), _free_port()
    sim = subprocess.Popen(EXE + ["simulate", str(sc.path), "--port", str(sim_port), "--delay-ms", str(delay_ms),
                                  "--keep-time"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           cwd=str(REPO))
    procs = [sim]
    try:
        from workload_diagnose.evals.playground import read_exports

        env = {k: v for k, v in os.environ.items() if not k.startswith(("RUNAI_", "WD_"))}
        env.update(read_exports(sim.stdout))  # the banner's export lines: URL, client id, secret
        if "RUNAI_BASE_URL" not in env:
            raise RuntimeError("the simulator did not start")
        doc = {"tokens": [{"name": "bench", "sha256": hashlib.sha256(TOKEN.encode()).hexdigest(),
                           "clusters": ["*"], "projects": ["*"]}]}
        env.update(WD_API_TOKENS=json.dumps(doc), WD_KUBE="off", WD_MAX_CONCURRENT=str(max_concurrent))
        srv = subprocess.Popen(EXE + ["serve", "--port", str(port), "--workers", str(workers)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=str(REPO))
        procs.append(srv)
        url = f"http://127.0.0.1:{port}"
        _wait_http(url + "/healthz", srv)
        yield url, sim, srv
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)


class _Conn:
    """One keep-alive HTTP/1.1 connection of the load generator: a few lines over asyncio streams, so the
    generator's own CPU (it shares the 2 cores with the service) stays small. Answers are parsed strictly:
    status line, headers, a Content-Length body."""

    def __init__(self, host: str, port: int, request: bytes):
        self.host, self.port, self.request = host, port, request
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self) -> tuple[int, bytes]:
        if self.writer is None or self.writer.is_closing():
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(self.request)
        head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), 30.0)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)}
        body = await asyncio.wait_for(self.reader.readexactly(int(headers.get("content-length", "0"))), 30.0)
        if headers.get("connection", "").lower() == "close":
            self.writer.close()
        return status, body

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def _load(url: str, body: dict, want: tuple, clients: int, warmup_s: float, seconds: float,
                max_requests: int, cpu: Any, warm_answers: int = 4) -> dict:
    """Warm up (at least ``warmup_s`` and ``warm_answers`` answers per client: every worker process has compiled
    its graph), then measure for ``seconds``; ``cpu()`` is sampled at both ends of the measured window."""
    from urllib.parse import urlsplit

    latencies: list[float] = []
    errors: list[str] = []
    reads: list[int] = []  # Run:ai requests of one answered diagnosis (its tool_calls)
    u = urlsplit(url)
    payload = json.dumps(body).encode()
    request = (f"POST /v1/diagnoses HTTP/1.1\r\nHost: {u.netloc}\r\nContent-Type: application/json\r\n"
               f"Authorization: Bearer {TOKEN}\r\nContent-Length: {len(payload)}\r\n\r\n").encode() + payload
    conns = [_Conn(u.hostname, u.port, request) for _ in range(clients)]

    async def one(conn: _Conn, record: bool) -> None:
        t0 = time.perf_counter()
        try:
            status, raw = await conn.post()
            got = json.loads(raw) if status == 200 else {}
            verdict = tuple(got.get(k) for k in ("outcome", "category", "route")) if got else ()
            why = "" if verdict == want else f"HTTP {status}: {raw[:120]!r}"
            if not why and not reads:
                reads.append(len(got.get("tool_calls") or []))
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.TimeoutError) as e:
            conn.close()
            conn.writer = None
            why = f"{type(e).__name__}: {e}"[:160]
        if record:
            (errors.append(why) if why else latencies.append(time.perf_counter() - t0))

    async def phase(until: float, min_per_client: int, record: bool) -> None:
        async def loop(conn: _Conn) -> None:
            n = 0
            while (time.perf_counter() < until or n < min_per_client) and len(latencies) < max_requests:
                await one(conn, record)
                n += 1
        await asyncio.gather(*(loop(c) for c in conns))

    try:
        await phase(time.perf_counter() + warmup_s, warm_answers, record=False)
        c0, t0 = cpu(), time.perf_counter()
        await phase(t0 + seconds, 0, record=True)
        wall, c1 = time.perf_counter() - t0, cpu()
    finally:
        for c in conns:
            c.close()
    n = len(latencies)
    done = max(1, n + len(errors))
    return {"clients": clients, "answered": n, "errors": len(errors), "error_samples": errors[:5],
            "wall_s": wall, "rps": n / wall if wall > 0 else 0.0,
            "p50_s": percentile(latencies, 50), "p99_s": percentile(latencies, 99),
            "max_s": max(latencies) if latencies else float("nan"),
            "runai_reads_per_diagnosis": reads[0] if reads else None,
            "cpu_ms_per_diagnosis": {k: (c1[k] - c0[k]) * 1000 / done for k in c0}}


def run_load(clients: int = GOAL_CLIENTS, *, workers: int = 1, seconds: float = 10.0, warmup_s: float = 2.0,
             delay_ms: int = DELAY_MS, max_requests: int = 20000, max_concurrent: int = 64,
             warm_answers: int = 4) -> dict:
    """One load run: the figures plus each process's CPU milliseconds per answered diagnosis (measured window)."""
    from workload_diagnose.evals.scenarios import load_scenario

    sc = load_scenario(SCENARIO)
    body = sc.args.model_dump(exclude_none=True)
    want = sc.expected.verdict()
    with _processes(workers, delay_ms, max_concurrent) as (url, sim, srv):
        def cpu() -> dict[str, float]:
            return {"serve": _tree_cpu_s(srv.pid), "simulator": _cpu_s(sim.pid), "load generator": _cpu_s(os.getpid())}

        res = asyncio.run(_load(url, body, want, clients, warmup_s, seconds, max_requests, cpu, warm_answers))
    res["workers"], res["delay_ms"] = workers, delay_ms
    return res


def _limit_note(res: dict) -> str:
    cpu = res["cpu_ms_per_diagnosis"]
    total = sum(cpu.values())
    bound = 2000.0 / total if total > 0 else float("inf")  # 2 cores' worth of ms per second
    return (f"CPU per diagnosis: serve {cpu['serve']:.1f} ms, simulator {cpu['simulator']:.1f} ms, load generator "
            f"{cpu['load generator']:.1f} ms → {total:.1f} ms on 2 cores bounds this machine at ≈{bound:.0f}/s; "
            f"{res.get('runai_reads_per_diagnosis') or '?'} Run:ai reads per diagnosis, made at once where "
            f"independent (the latency rows count the dependent round trips); a figure measured beside other "
            f"work (load average in the row) is to be measured again on a quiet machine")


def probe_latency(speculative: bool = False, n: int = 10, delay_ms: int = DELAY_MS) -> dict:
    """``n`` diagnoses one after the other (one client) against ``serve --workers 1`` and a simulator in this
    process: each one's latency and its dependent round trips as the simulator saw them (after two warm-up
    diagnoses: the service account's token is exchanged once, at the first)."""
    import httpx

    from workload_diagnose.evals.scenarios import load_scenario
    from workload_diagnose.evals.simulator import dependent_depth, running_simulator

    sc = load_scenario(SCENARIO)
    body = sc.args.model_dump(exclude_none=True)
    want = sc.expected.verdict()
    lat: list[float] = []
    trips: list[int] = []
    unused = 0
    with running_simulator(json.loads(sc.world.read_text()), delay_ms=delay_ms) as sim:
        port = _free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RUNAI_", "WD_"))}
        doc = {"tokens": [{"name": "bench", "sha256": hashlib.sha256(TOKEN.encode()).hexdigest(),
                           "clusters": ["*"], "projects": ["*"]}]}
        env.update(RUNAI_BASE_URL=sim.url, RUNAI_CLIENT_ID=sim.client_id, RUNAI_CLIENT_SECRET=sim.client_secret,
                   WD_API_TOKENS=json.dumps(doc), WD_KUBE="off", WD_ACCESS_LOG="off",
                   WD_SPECULATIVE_READS="on" if speculative else "off")
        srv = subprocess.Popen(EXE + ["serve", "--port", str(port), "--workers", "1"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=str(REPO))
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_http(url + "/healthz", srv)
            with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30) as c:
                for i in range(n + 2):
                    with sim.lock:
                        sim.timeline.clear()
                    t0 = time.perf_counter()
                    r = c.post("/v1/diagnoses", json=body)
                    took = time.perf_counter() - t0
                    got = r.json() if r.status_code == 200 else {}
                    if tuple(got.get(k) for k in ("outcome", "category", "route")) != want:
                        raise RuntimeError(f"HTTP {r.status_code}: {r.text[:200]}")
                    if i >= 2:
                        with sim.lock:
                            trips.append(dependent_depth(sim.timeline))
                        lat.append(took)
                        unused += sum(1 for t in got.get("tool_calls") or [] if "unused" in t)
        finally:
            srv.terminate()
            try:
                srv.wait(15)
            except subprocess.TimeoutExpired:
                srv.kill()
    return {"speculative": speculative, "n": n, "delay_ms": delay_ms, "p50_s": percentile(lat, 50),
            "max_s": max(lat), "round_trips": sorted(trips)[len(trips) // 2], "round_trips_max": max(trips),
            "unused_reads": unused}


def latency_row(res: dict) -> dict:
    goal = GOAL_TRIPS_SPECULATIVE if res["speculative"] else GOAL_TRIPS
    budget = (goal * res["delay_ms"] + 10) / 1000
    ok = res["round_trips"] <= goal and res["p50_s"] <= budget
    how = "with WD_SPECULATIVE_READS=on" if res["speculative"] else "(reads ahead, no speculation)"
    note = "" if ok else (
        f"the round trips are {res['round_trips']} × {res['delay_ms']} ms; the rest of the p50 is the diagnosis's "
        f"CPU (serve and simulator share this machine: load average {_loadavg()})"
        + ("; with speculation the spec is still read after the status, which names the workload's kind (its "
           "endpoint)" if res["speculative"] else ""))
    return row(f"serve latency at 1 client {how}: ≤ {goal} dependent round trips and p50 ≤ {goal} × "
               f"{res['delay_ms']} ms + 10 ms", f"{res['round_trips']} round trips (median, counted by the simulator; max "
               f"{res['round_trips_max']}), p50 {ms(res['p50_s'])}, max {ms(res['max_s'])} over {res['n']} diagnoses"
               + (f"; {res['unused_reads']} speculative read(s) unused, listed in tool_calls"
                  if res["speculative"] else ""), judge(ok), note, **res)


WORKERS = max(1, min(2, os.cpu_count() or 1))  # one worker process per core: the graph holds the GIL


def _loadavg() -> str:
    try:
        return "/".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def item_serve(ctx: Ctx) -> dict:
    seconds = 2.0 if ctx.quick else 10.0  # --quick: that the figures are produced, not the figures
    ctx.echo(f"serve: {GOAL_CLIENTS} clients for {seconds:.0f} s against serve --workers {WORKERS} + simulator "
             f"({DELAY_MS} ms/request)")
    load_before = _loadavg()
    res = run_load(GOAL_CLIENTS, workers=WORKERS, seconds=seconds, warmup_s=0.5 if ctx.quick else 2.0,
                   warm_answers=1 if ctx.quick else 4)
    res["loadavg"] = f"{load_before} → {_loadavg()}"
    ok = res["rps"] >= GOAL_RPS and res["p99_s"] < GOAL_P99_S and res["errors"] == 0
    rows = [row(f"serve: ≥ {GOAL_RPS:.0f} diagnoses/s, p99 < {ms(GOAL_P99_S)}, 0 errors at {GOAL_CLIENTS} clients "
                f"({DELAY_MS} ms per Run:ai request)",
                f"{res['rps']:.1f}/s, p50 {ms(res['p50_s'])}, p99 {ms(res['p99_s'])}, {res['errors']} errors "
                f"({res['answered']} answers in {res['wall_s']:.1f} s, serve --workers {WORKERS}, load average "
                f"{res['loadavg']})", judge(ok), _limit_note(res), **res)]
    rows.append(latency_row(probe_latency(False, n=3 if ctx.quick else 10)))
    if ctx.quick:  # one service started fewer: the speculative latency is left to the full run
        rows.append(row("serve latency at 1 client with WD_SPECULATIVE_READS=on", "not measured", SKIP,
                        "--quick: the speculative-read latency probe is left to the full run"))
    else:
        rows.append(latency_row(probe_latency(True, n=10)))
    if not ctx.quick:
        small = run_load(8, workers=WORKERS, seconds=5.0, warmup_s=1.0)
        rows.append(row("serve at 8 clients (info)", f"{small['rps']:.1f}/s, p50 {ms(small['p50_s'])}, p99 "
                        f"{ms(small['p99_s'])}, {small['errors']} errors", INFO, _limit_note(small), **small))
    return {"rows": rows, "data": {"goal": {"rps": GOAL_RPS, "p99_s": GOAL_P99_S, "clients": GOAL_CLIENTS}}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m workload_diagnose.evals.bench_serve", description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=GOAL_CLIENTS)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--workers", type=int, default=WORKERS)
    ap.add_argument("--delay-ms", type=int, default=DELAY_MS)
    ap.add_argument("--latency", action="store_true", help="only the 1-client latency rows (round trips counted)")
    args = ap.parse_args(argv)
    if args.latency:
        for spec in (False, True):
            r = latency_row(probe_latency(spec, delay_ms=args.delay_ms))
            print(json.dumps({"target": r["target"], "measured": r["measured"], "status": r["status"],
                              "note": r["note"]}, indent=2))
        return 0
    res = run_load(args.clients, workers=args.workers, seconds=args.seconds, delay_ms=args.delay_ms)
    status = PASS if res["rps"] >= GOAL_RPS and res["p99_s"] < GOAL_P99_S and res["errors"] == 0 else MISS
    print(json.dumps({**res, "status": status, "limit": _limit_note(res)}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
