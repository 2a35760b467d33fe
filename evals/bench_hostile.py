"""Bench item 7 (``hostile``): peak memory and time of the real CLI against a server that streams a 4 GiB body.

The CLI runs as a subprocess against :mod:`evals.hostile` in front of the simulator; its peak RSS is the child's
own ``ru_maxrss`` from ``os.wait4``. Cases: the workload body 4 GiB chunked (exit 3: the status is unusable), the
events body 4 GiB chunked (exit 0: the events limitation only), a 4 GiB ``Content-Length`` (refused unread).
Target: peak RSS < 200 MB in each, and the server sent little more than the 16 MiB cap (the client hung up).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from workload_diagnose.evals.bench_common import REPO, Ctx, judge, row

FOUR_GIB = 4 << 30
LIMIT_MB = 200


def _run_cli(url: str, sim, args: list[str]) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("RUNAI_BASE_URL", "KUBECONFIG")}
    env.update(RUNAI_CLIENT_ID=sim.client_id, RUNAI_CLIENT_SECRET=sim.client_secret)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        p = subprocess.Popen([sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", "failed", *args, "--runai-url", url,
                              "--no-kube", "--json", "--timeout", "60"], cwd=str(REPO), env=env, stdout=out,
                             stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    res = {"exit": p.returncode, "peak_rss_mb": usage.ru_maxrss / 1024, "elapsed_s": elapsed,
           "stderr": stderr.strip()[-300:]}
    if p.returncode == 0:
        body = json.loads(stdout)
        res["category"] = body.get("category")
        res["limitations"] = [x for x in body.get("limitations", []) if "cap" in x]
    return res


def item_hostile(ctx: Ctx) -> dict:
    from workload_diagnose.evals.hostile import endless, hostile
    from workload_diagnose.evals.scenarios import load_scenario

    sc = load_scenario("core/oom-metrics")
    wid = sc.args.workload_id
    args = ["--cluster-id", sc.args.cluster_id, "--workload-id", wid, "--now", sc.args.now]
    cases = {
        "workload_chunked": (f"/api/v1/workloads/{wid}$", endless(b'{"id": "', b"x" * 64, limit=FOUR_GIB), 3),
        "events_chunked": (r"/events$", endless(limit=FOUR_GIB), 0),
        "events_declared": (r"/events$", endless(declared=FOUR_GIB, limit=FOUR_GIB), 0),
    }
    if ctx.quick:
        cases = {k: v for k, v in cases.items() if k == "workload_chunked"}
    rows, data = [], {}
    for name, (path, action, want) in cases.items():
        ctx.echo(f"{name}: 4 GiB body on {path}")
        with hostile(json.loads(sc.world.read_text()), [("GET", path, action)]) as (srv, sim):
            r = _run_cli(srv.url, sim, args)
            with srv.lock:
                r["server_sent_mb"] = sum(srv.sent.values()) / 2**20
        data[name] = r
        ok = r["peak_rss_mb"] < LIMIT_MB and r["exit"] == want
        detail = (f"exit {r['exit']}, {r['elapsed_s']:.1f} s, the server sent {r['server_sent_mb']:.0f} MiB of 4096 "
                  "before the client hung up")
        note = "" if ok else (f"expected exit {want}; {r['stderr']}" if r["exit"] != want else
                              f"{r['peak_rss_mb'] - LIMIT_MB:.0f} MB over")
        rows.append(row(f"Peak RSS < {LIMIT_MB} MB: `failed` against a 4 GiB body ({name.replace('_', ', ')})",
                        f"{r['peak_rss_mb']:.0f} MB peak ({detail})", judge(ok), note, peak_mb=r["peak_rss_mb"]))
    return {"rows": rows, "data": data}
