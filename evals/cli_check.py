"""End-to-end check of the public CLI contract: for every scenario, start the simulator with the project's own
command (``workload-diagnose simulate``), run its procedure's command (``workload-diagnose failed … --json``, or the
one its case names: ``preempted``, ``pending``) twice as a subprocess, and compare outcome/verdict/route with the
scenario's expectation and the two outputs byte for byte.

    python -m workload_diagnose.evals.cli_check [SUITE...]
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

from workload_diagnose.evals.scenarios import Scenario, all_scenarios

EXE = [sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check(sc: Scenario) -> tuple[bool, str]:
    port = _free_port()
    sim = subprocess.Popen(EXE + ["simulate", str(sc.path), "--port", str(port)], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RUNAI_")}
        for _ in range(4):  # the simulator prints URL, client id and secret, one per line
            line = sim.stdout.readline().strip()
            if "=" in line:
                k, v = line.split("=", 1)
                env[k] = v
        if "RUNAI_BASE_URL" not in env:
            return False, "simulator did not start"
        outs = [subprocess.run(EXE + [sc.command, *sc.cli_args(), "--no-kube", "--json"], env=env,
                               capture_output=True, text=True, timeout=120) for _ in range(2)]
    finally:
        sim.terminate()
        sim.wait(10)
    a, b = outs
    if a.returncode != 0:
        return False, f"exit {a.returncode}: {a.stderr.strip()[:200]}"
    got = json.loads(a.stdout)
    verdict = (got["outcome"], got.get("category") or got.get("reason"), got["route"])
    want = sc.expected.verdict()
    if verdict != want:
        return False, f"got {verdict}, expected {want}"
    if a.stdout != b.stdout:
        return False, "second run differs"
    return True, "ok"


def main(argv: list[str] | None = None) -> int:
    suites = (argv if argv is not None else sys.argv[1:]) or None
    scs = [s for s in all_scenarios(suites) if not s.tier2 and (s.path / "world.json").exists()]
    t = time.perf_counter()
    bad = 0
    for sc in scs:
        ok, why = check(sc)
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {sc.id:50s} {why}", flush=True)
    print(f"{len(scs) - bad} passed, {bad} failed ({time.perf_counter() - t:.0f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
