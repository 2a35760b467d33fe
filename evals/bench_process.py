"""Bench items measured in separate processes: CLI start-up (5) and peak memory (6); see ``evals.bench``."""
from __future__ import annotations

import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from workload_diagnose.evals.bench_common import ERROR, INFO, REPO, SKIP, Ctx, judge, row


# ======================================================================================= 5. CLI start-up
def _cli_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("workload-diagnose")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("workload-diagnose")
    if found:
        return [found]
    return [sys.executable, "-c", "from workload_diagnose.agent.entrypoints.cli import main; main()"]


def heavy_imports(args: list[str], top: int = 8) -> list[dict]:
    code = f"import sys; sys.argv = {['workload-diagnose', *args]!r}; from workload_diagnose.agent.entrypoints.cli import main; main()"
    p = subprocess.run([sys.executable, "-X", "importtime", "-c", code], cwd=str(REPO), capture_output=True,
                       text=True, timeout=60)
    out = []
    for line in p.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m and len(m.group(3)) == 1:  # top level: one space after the bar (nested imports are indented)
            out.append({"module": m.group(4), "cumulative_ms": int(m.group(2)) / 1000, "self_ms": int(m.group(1)) / 1000})
    return sorted(out, key=lambda x: -x["cumulative_ms"])[:top]


def item_cli_startup(ctx: Ctx) -> dict:
    runs = 2 if ctx.quick else 7
    base = _cli_cmd()
    rows, data = [], {"command": base}
    for args in (["--help"], ["failed", "--help"]):
        if not ctx.quick:
            subprocess.run(base + args, capture_output=True, timeout=60, cwd=str(REPO))  # warm the page cache / pyc
        ts = []
        rc = 0
        for _ in range(runs):
            t = time.perf_counter()
            p = subprocess.run(base + args, capture_output=True, timeout=60, cwd=str(REPO))
            ts.append(time.perf_counter() - t)
            rc = rc or p.returncode
        med = statistics.median(ts)
        name = "workload-diagnose " + " ".join(args)
        data[name] = {"runs_s": ts, "median_s": med, "exit_status": rc}
        note = "" if rc == 0 else f"exit status {rc}"
        if med > 1.0:
            hv = heavy_imports(args)
            data[name]["heavy_imports"] = hv
            note = (note + "; " if note else "") + "heaviest imports: " + ", ".join(
                f"{h['module']} {h['cumulative_ms']:.0f} ms" for h in hv[:5]) + " (agent/entrypoints/cli.py should import them "\
                "inside the commands)"
        rows.append(row(f"`{name}` median ≤ 1 s", f"{med * 1000:.0f} ms (median of {runs})",
                        judge(med <= 1.0 and rc == 0), note, median_s=med))
    if not ctx.quick:
        hv = heavy_imports(["failed", "--help"])
        data["imports_failed_help"] = hv
        rows.append(row("Heaviest top-level imports at `failed --help` (info, python -X importtime)",
                        ", ".join(f"{h['module']} {h['cumulative_ms']:.0f} ms" for h in hv[:4]), INFO))
    return {"rows": rows, "data": data}


# ============================================================================================ 6. memory
def _size(n: float) -> str:
    for unit, k in (("MiB", 2**20), ("KiB", 2**10)):
        if n >= k:
            return f"{n / k:.0f} {unit}"
    return f"{n:.0f} B"


def item_memory(ctx: Ctx) -> dict:
    from workload_diagnose.evals.bench_memory import FIFTY_MB, find_kube_tools, measure_tier2, run_child

    limit_mb = 200
    rows = []
    base = run_child({"mode": "replay", "scenario": "core/oom-metrics"})
    peak = base["after"]["vmhwm_mb"] or base["after"]["ru_maxrss_mb"]
    rows.append(row("Peak RSS of one replayed diagnosis, no Tier 2 (info: the baseline)",
                    f"{peak:.0f} MB (after imports {base['before']['vmhwm_mb']:.0f} MB)", INFO, peak_mb=peak))
    data: dict = {"baseline_replay": base}
    titles = {
        "previous_log_backend_ignores_limits":
            f"Peak RSS < {limit_mb} MB: KubeReader.previous_log, 50 MB log, backend ignores tailLines/limitBytes",
        "previous_log_limits_honoured_no_tail":
            f"Peak RSS < {limit_mb} MB: KubeReader.previous_log, 50 MB log, limitBytes honoured, no tail",
        "diagnosis_tier2": f"Peak RSS < {limit_mb} MB: full diagnosis with Tier 2 over a 50 MB previous log",
    }
    tools = find_kube_tools()
    why = None
    if ctx.quick:
        why = "--quick: the kube-apiserver start and the 50 MB streams are left to the full run"
    elif tools.reason:
        why = f"kube-apiserver not available: {tools.reason}"
    if why:
        for t in titles.values():
            rows.append(row(t, "not measured", SKIP, why))
        data["skipped"] = why
        return {"rows": rows, "data": data}
    t2 = measure_tier2(tools, log_bytes=FIFTY_MB, echo=ctx.echo)
    data["tier2"] = t2
    for key, title in titles.items():
        r = t2["runs"].get(key)
        if r is None:
            rows.append(row(title, "not measured", ERROR, "no result"))
            continue
        peak = r["after"]["vmhwm_mb"] or r["after"]["ru_maxrss_mb"]
        before = r["before"]["vmhwm_mb"] or 0
        sent = r.get("kubelet_bytes_sent")
        extra = f"; the kubelet sent {_size(sent)} of the {_size(t2['log_bytes'])} log" if sent is not None else ""
        if key == "diagnosis_tier2":
            found = "failing log line found" if r.get("log_evidence") else "no log line quoted"
            detail = f"{r['category']}, {found}{extra}; {r['elapsed_s'] * 1000:.0f} ms"
        else:
            detail = f"read {_size(r['bytes_read'])}, {r['lines']} lines{extra}; {r['elapsed_s'] * 1000:.0f} ms"
        note = "" if peak < limit_mb else (f"{peak - limit_mb:.0f} MB over; the call itself added "
                                           f"{peak - before:.0f} MB over the {before:.0f} MB after imports")
        rows.append(row(title, f"{peak:.0f} MB peak (+{peak - before:.0f} MB over imports; {detail})",
                        judge(peak < limit_mb), note, peak_mb=peak, before_mb=before))
    return {"rows": rows, "data": data}
