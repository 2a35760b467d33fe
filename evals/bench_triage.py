"""Bench item 7 (issue 15): fleet triage at scale — ``workload-diagnose bench --only triage``.

2,000 failed workloads over 40 nodes (``evals.fleet``, copies of real scenario worlds), the Run:ai simulator in
its own process with 20 ms per request, and ``workload-diagnose triage --json`` in a fresh child process that
reports its own peak RSS (``VmHWM``) and CPU time when it exits. Measured: wall time, requests per workload (counted
by the simulator), peak memory; checked: every verdict equals its source scenario's expected verdict.
Goals: under 15 s and under 200 MB (every process of the triage).

    python -m workload_diagnose.evals.bench_triage [--workloads 2000] [--nodes 40] [--delay-ms 20] [--concurrency 16]
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from workload_diagnose.evals.bench_common import ERROR, INFO, REPO, Ctx, judge, row

GOAL_S, GOAL_MB = 15.0, 200.0


# ------------------------------------------------------------------------------------------ child processes
def serve(world: str, delay_ms: int) -> None:
    """The simulator process: prints its URL and credentials, then on SIGTERM one JSON line of request counts."""
    from workload_diagnose.evals.simulator import SimServer, World

    srv = SimServer(("127.0.0.1", 0), World.load(world), delay_ms=delay_ms)
    print(json.dumps({"url": srv.url, "client_id": srv.client_id, "client_secret": srv.client_secret}), flush=True)

    def stop(*_):
        import threading

        threading.Thread(target=srv.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    srv.serve_forever(poll_interval=0.05)
    kinds: dict[str, int] = {}
    for method, path in srv.requests:
        p = path.split("?", 1)[0].strip("/").split("/")  # api v1 workloads [id | kind id] [sub]
        if method == "POST":
            kind = "token"
        elif len(p) <= 3:
            kind = "list"
        elif len(p) == 4:
            kind = "workload"
        else:
            kind = "spec" if p[3] in ("trainings", "workspaces", "inferences", "distributed") else p[4]
        kinds[kind] = kinds.get(kind, 0) + 1
    print(json.dumps({"requests": len(srv.requests), "by_kind": kinds, "max_inflight": srv.max_inflight}),
          flush=True)


def child(argv: list[str]) -> None:
    """Run the real CLI (``workload-diagnose triage …``) and report peak RSS and CPU on stderr when it exits."""
    import atexit
    import resource

    def report() -> None:
        hwm = None
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    hwm = int(line.split()[1]) / 1024
        ru = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # worker processes (--processes), reaped by now
        sys.stderr.write("BENCH " + json.dumps({"vmhwm_mb": hwm, "cpu_s": ru.ru_utime + ru.ru_stime,
                                                "workers_cpu_s": kids.ru_utime + kids.ru_stime}) + "\n")

    atexit.register(report)
    from workload_diagnose.agent.entrypoints.cli import main

    sys.argv = ["workload-diagnose", "triage", *argv]
    main()


# ------------------------------------------------------------------------------------------ the measurement
def measure(workloads: int = 2000, nodes: int = 40, delay_ms: int = 20, concurrency: int = 16,
            processes: int = 1, echo=lambda m: None) -> dict:
    from workload_diagnose.evals.fleet import expected, fleet_world

    tmp = Path(tempfile.mkdtemp(prefix="wd-triage-bench-"))
    world = fleet_world(workloads, nodes)
    (tmp / "world.json").write_text(json.dumps(world))
    exp = expected(world)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    sim = subprocess.Popen([sys.executable, "-m", "workload_diagnose.evals.bench_triage", "serve", str(tmp / "world.json"),
                            str(delay_ms)], stdout=subprocess.PIPE, text=True, cwd=str(REPO), env=env)
    try:
        info = json.loads(sim.stdout.readline())
        echo(f"simulator on {info['url']} ({workloads} workloads, {nodes} nodes, {delay_ms} ms per request)")
        cenv = {**env, "RUNAI_CLIENT_ID": info["client_id"], "RUNAI_CLIENT_SECRET": info["client_secret"]}
        args = ["--cluster-id", world["fleet"]["cluster_id"], "--now", world["fleet"]["now"], "--since", "24h",
                "--runai-url", info["url"], "--no-kube", "--concurrency", str(concurrency),
                "--processes", str(processes), "--json"]
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "workload_diagnose.evals.bench_triage", "child", *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=str(REPO), env=cenv)
        tree = _TreePeak(proc.pid)
        stdout, stderr = proc.communicate(timeout=900)
        wall = time.perf_counter() - t0
        tree.stop()
        p = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    finally:
        sim.send_signal(signal.SIGTERM)
        try:
            out, _ = sim.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            sim.kill()
            out = ""
    counts = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
    stats = next((json.loads(x[6:]) for x in p.stderr.splitlines() if x.startswith("BENCH ")), {})
    if p.returncode != 0:
        raise RuntimeError(f"triage exited {p.returncode}: {p.stderr.strip()[-400:]}")
    result = json.loads(p.stdout)
    got = {v["workload"]["id"]: (v["outcome"], v["category"], v["route"]) for v in result["workloads"]}
    active = {wid for wid, e in exp.items() if e["outcome"] != "diagnosed"
              and world_phase(world, wid) in ("Running", "Pending")}
    want = {wid: (e["outcome"], e.get("category"), e.get("route")) for wid, e in exp.items() if wid not in active}
    wrong = sorted(wid for wid in want if got.get(wid) != want[wid]) + sorted(set(got) - set(want))
    n = len(result["workloads"])
    return {"workloads": workloads, "nodes": nodes, "delay_ms": delay_ms, "concurrency": concurrency,
            "processes": processes,
            "wall_s": wall, "cpu_s": (stats.get("cpu_s") or 0) + (stats.get("workers_cpu_s") or 0),
            "peak_mb": max(stats.get("vmhwm_mb") or 0, tree.peak_mb), "main_peak_mb": stats.get("vmhwm_mb"),
            "process_peaks_mb": tree.peaks,
            "requests": counts.get("requests"), "by_kind": counts.get("by_kind"),
            "max_inflight": counts.get("max_inflight"), "listed": workloads, "in_triage": n,
            "requests_per_workload": (counts.get("requests") or 0) / workloads,
            "verdict_mismatches": len(wrong), "mismatch_ids": wrong[:10], "counts": result["counts"],
            "routed": result["routed"], "clusters": len(result["clusters"]), "tool_calls": len(result["tool_calls"])}


class _TreePeak:
    """Polls the triage process and its worker processes (every 50 ms): the sum of their peak RSS (``VmHWM``, each
    process's own high-water mark, so a short peak between two polls is still counted)."""

    def __init__(self, pid: int):
        import threading

        self._pid, self.peaks, self._stop = pid, {}, threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    @property
    def peak_mb(self) -> float:
        return sum(self.peaks.values())

    def _pids(self) -> list[int]:
        out, todo = [], [self._pid]
        while todo:
            pid = todo.pop()
            out.append(pid)
            try:
                for tid in os.listdir(f"/proc/{pid}/task"):
                    with open(f"/proc/{pid}/task/{tid}/children") as f:
                        todo += [int(x) for x in f.read().split()]
            except OSError:
                pass
        return out

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            for pid in self._pids():
                try:
                    with open(f"/proc/{pid}/status") as f:
                        hwm = next((int(x.split()[1]) / 1024 for x in f if x.startswith("VmHWM:")), None)
                except OSError:
                    continue
                if hwm:
                    self.peaks[pid] = max(self.peaks.get(pid, 0.0), hwm)

    def stop(self) -> None:
        self._stop.set()
        self._t.join()


def world_phase(world: dict, wid: str) -> str | None:
    return next((w.get("phase") for w in world["workloads"] if w["id"] == wid), None)


def item_triage(ctx: Ctx) -> dict:
    """One process, and two (``--processes 2``: this one and a spawned worker, the default for a fleet this large)
    on a 2-core machine."""
    n = 100 if ctx.quick else 2000
    configs = [1] if ctx.quick or (os.cpu_count() or 1) < 2 else [1, 2]
    rows, data = [], {}
    for procs in configs:
        m = measure(workloads=n, nodes=40, delay_ms=20, processes=procs, echo=ctx.echo)
        data[f"processes_{procs}"] = m
        rows += _rows(m, n, procs)
    return {"rows": rows, "data": data}


def _rows(m: dict, n: int, procs: int) -> list[dict]:
    scale = "" if n == 2000 else f" (--quick: {n} workloads; the goal is for 2,000)"
    per = (m["cpu_s"] or 0) / n * 1000
    ok = m["wall_s"] < GOAL_S
    how = "--processes 1" if procs == 1 else f"--processes {procs} (the default from 500 workloads on 2+ cores)"
    note = "" if ok or n != 2000 else (
        f"CPU-bound, not I/O-bound: the triage used {m['cpu_s']:.0f} s of CPU ({per:.0f} ms per diagnosis); "
        + ("in one Python process the GIL runs Python on one core at a time, so the wall time cannot drop below "
           "that CPU time whatever the concurrency. " if procs == 1 else
           f"{procs} processes (this one and {procs - 1} spawned) share the machine's cores with the simulator. ")
        + "Profile (py-spy --gil, 1,000 workloads, one process): LangGraph's Pregel loop (task preparation, "
        "checkpoints, a thread pool per invoke) and the procedure's nodes take about two thirds, the Run:ai reads "
        "about a third (their HTTP exchange with httpcore a quarter of the whole; its pool is per thread). "
        f"Load average when measured: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.")
    mem_ok = m["peak_mb"] < GOAL_MB
    return [
        row(f"{how}: triage of {n:,} failed workloads over 40 nodes, 20 ms per request: wall < {GOAL_S:.0f} s"
            f"{scale}",
            f"{m['wall_s']:.1f} s ({m['cpu_s']:.1f} s CPU = {per:.0f} ms per workload, concurrency "
            f"{m['concurrency']}, {m['max_inflight']} requests in flight at most)",
            judge(ok) if n == 2000 else INFO, note, wall_s=m["wall_s"], cpu_s=m["cpu_s"]),
        row(f"{how}: peak memory of the triage (every process) < {GOAL_MB:.0f} MB",
            f"{m['peak_mb']:.0f} MB (sum of each process's VmHWM: "
            + " + ".join(f"{v:.0f}" for v in m["process_peaks_mb"].values()) + ")",
            judge(mem_ok), "" if mem_ok else "each worker process loads the graph's libraries again (about 100 MB "
                                             "each): the sum of peaks is above the goal", peak_mb=m["peak_mb"]),
        row(f"{how}: requests per workload (counted by the simulator, token and list pages included)",
            f"{m['requests_per_workload']:.2f} ({m['requests']:,} requests: "
            + ", ".join(f"{k} {v}" for k, v in sorted(m["by_kind"].items())) + ")", INFO,
            requests=m["requests"]),
        row(f"{how}: every verdict equals its source scenario's expected verdict",
            f"{m['verdict_mismatches']} mismatch(es) over {m['in_triage']} triaged workloads",
            judge(m["verdict_mismatches"] == 0) if m["in_triage"] else ERROR,
            "" if m["verdict_mismatches"] == 0 else f"first mismatches: {m['mismatch_ids']}"),
    ]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        serve(argv[1], int(argv[2]))
        return 0
    if argv[:1] == ["child"]:
        child(argv[1:])
        return 0
    import argparse

    ap = argparse.ArgumentParser(prog="python -m workload_diagnose.evals.bench_triage", description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", type=int, default=2000)
    ap.add_argument("--nodes", type=int, default=40)
    ap.add_argument("--delay-ms", type=int, default=20)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--processes", type=int, default=1)
    a = ap.parse_args(argv)
    m = measure(a.workloads, a.nodes, a.delay_ms, a.concurrency, a.processes,
                echo=lambda s: print(s, file=sys.stderr))
    print(json.dumps(m, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
