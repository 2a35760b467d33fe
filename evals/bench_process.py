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
from workload_diagnose.evals.bench_cpu import LANGGRAPH_IMPORT_REF_S


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


# ========================================================================================== 5b. cold CLI
COLD_GOAL_S = 0.150
# a `failed` run imports nothing of these (the service, MCP, chat, triage, the model stack, Kubernetes, evals)
UNUSED_BY_FAILED = ("workload_diagnose.agent.service", "workload_diagnose.agent.chat", "workload_diagnose.agent.triage",
                    "workload_diagnose.agent.llm", "workload_diagnose.agent.llm_bounds", "workload_diagnose.tools.kube", "workload_diagnose.evals",
                    "workload_diagnose.tools.runai.mcp.session", "workload_diagnose.tools.runai.mcp.source",
                    "workload_diagnose.tools.runai.mcp.connect", "mcp", "kubernetes", "fastapi", "starlette",
                    "uvicorn", "langchain_openai", "openai", "anthropic", "slack_sdk", "yaml")


def _child_cpu(cmd: list[str], env: dict) -> tuple[float, int, bytes]:
    """(user + system CPU seconds of the child alone, its exit status, its stdout)."""
    import os

    p = subprocess.Popen(cmd, env=env, cwd=str(REPO), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read() if p.stdout else b""
    _pid, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return ru.ru_utime + ru.ru_stime, p.returncode, out


def unused_imports(names: list[str]) -> list[str]:
    return sorted(m for m in names if any(m == u or m.startswith(u + ".") for u in UNUSED_BY_FAILED))


def _own_import_profile(cmd: list[str], env: dict) -> tuple[list[tuple[str, float]], list[str]]:
    """Self import time of our own modules by package (python -X importtime), and every module imported."""
    p = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], env=env, cwd=str(REPO), capture_output=True,
                       text=True, timeout=120)
    by: dict[str, float] = {}
    mods = []
    for line in p.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if not m:
            continue
        mods.append(m.group(4))
        if m.group(4).startswith("workload_diagnose."):
            key = ".".join(m.group(4).split(".")[1:3])
            by[key] = by.get(key, 0.0) + int(m.group(1)) / 1e6
    return sorted(by.items(), key=lambda kv: -kv[1]), mods


COLD_SNIPPET = r"""
import json, sys, time
t0 = time.process_time()
import langgraph.graph
t1 = time.process_time()
sys.argv = ["workload-diagnose", *sys.argv[1:]]
code = 0
try:
    from workload_diagnose.agent.entrypoints.cli import main
    main()
except SystemExit as e:
    code = e.code or 0
finally:
    t2 = time.process_time()
    sys.stderr.write("\n@@cpu " + json.dumps({"langgraph_s": t1 - t0, "ours_s": t2 - t1, "exit": code,
                                               "modules": sorted(sys.modules)}) + "\n")
"""


def item_cold_cli(ctx: Ctx) -> dict:
    """A full ``failed --json`` run in a fresh interpreter against a local simulator. Each child first imports
    ``langgraph.graph`` (what the CLI would import anyway), then runs the CLI: the CPU after that import is our own
    cost, and both are measured in the same process (two separate processes of ~2 s each would add their noise to
    the difference). ``import langgraph.graph`` alone in a fresh interpreter is measured too (the baseline as the
    goal names it)."""
    import json
    import os

    from workload_diagnose.evals.scenarios import load_scenario
    from workload_diagnose.evals.simulator import running_simulator

    sc = load_scenario("core/oom-metrics")
    runs = 1 if ctx.quick else 9
    a = sc.args
    args = ["failed", "--cluster-id", a.cluster_id or "", "--workload-id", a.workload_id or "", "--now", a.now,
            "--json"]
    with running_simulator(sc.world) as sim:
        # an installed product has its bytecode compiled (pip does it): so do the children
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "KUBECONFIG")}
        env.update(RUNAI_BASE_URL=sim.url, RUNAI_CLIENT_ID=sim.client_id, RUNAI_CLIENT_SECRET=sim.client_secret)
        cli_cmd = [sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", *args]
        ours_t, lg_t, whole_t, lg_alone_t = [], [], [], []
        verdict, status = None, 0
        mods: list[str] = []
        first = 1 if ctx.quick else 0  # (a full run's first round only warms the page cache and writes bytecode)
        for i in range(first, runs + 1):
            p = subprocess.run([sys.executable, "-c", COLD_SNIPPET, *args], env=env, cwd=str(REPO),
                               capture_output=True, text=True, timeout=120)
            mark = [ln for ln in p.stderr.splitlines() if ln.startswith("@@cpu ")]
            m = json.loads(mark[-1][6:]) if mark else {"exit": p.returncode or 1}
            status = status or m["exit"]
            mods = m.get("modules") or mods
            try:
                verdict = json.loads(p.stdout).get("category")
            except ValueError:
                verdict = None
            t_whole, rc, _ = _child_cpu(cli_cmd, env) if not ctx.quick else (float("nan"), 0, b"")
            t_lg, rc_lg, _ = _child_cpu([sys.executable, "-c", "import langgraph.graph"], env)
            status = status or rc or rc_lg
            if i and mark:
                ours_t.append(m["ours_s"])
                lg_t.append(m["langgraph_s"])
                whole_t.append(t_whole)
                lg_alone_t.append(t_lg)
        profile = [] if ctx.quick else _own_import_profile(cli_cmd, env)[0]
    if not ours_t:
        raise RuntimeError(f"the CLI run failed (exit status {status})")
    after, lg = statistics.median(ours_t), statistics.median(lg_alone_t)
    whole = statistics.median(whole_t) if not ctx.quick else None
    # the goal as stated: the whole CLI process's CPU above `python -c "import langgraph.graph"` (--quick runs no
    # whole-process CLI: it is judged on the stricter in-process figure)
    ours = whole - lg if whole is not None else after
    load = max(1.0, lg / LANGGRAPH_IMPORT_REF_S)
    allowed = COLD_GOAL_S * load
    unused = unused_imports(mods)
    ok = ours <= allowed and status == 0 and verdict == sc.expected.category
    top = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in profile[:5]) or "not measured in --quick"
    note = (f"Own import time by package (python -X importtime, self, wall): {top}. The rest of our cost is the first "
            "diagnosis of a process: the graph's compile (LangGraph reads each node's type hints and disassembles "
            "it), the taxonomy's rule regexes and the redactor's re2 matchers (built on first use). The whole "
            "process costs less than langgraph's import plus our code after it because the CLI freezes its "
            "import-time objects for the garbage collector (cli.settle), which also spares the collections "
            "langgraph's own import would run.")
    if load > 1.2:
        note += (f" This machine is {load:.1f}× slower than idle right now (`import langgraph.graph` {lg:.2f} s of "
                 f"CPU vs {LANGGRAPH_IMPORT_REF_S} s): the goal scales to {allowed * 1000:.0f} ms; our cost at "
                 f"idle speed ≈ {ours / load * 1000:.0f} ms.")
    if not ok:
        why = (f"exit status {status}" if status else f"verdict {verdict!r}, not {sc.expected.category!r}"
               if verdict != sc.expected.category else f"{(ours - allowed) * 1000:.0f} ms over")
        note = f"{why}. " + note
    measured = (f"{ours * 1000:.0f} ms: the CLI process {whole * 1000:.0f} ms − `import langgraph.graph` "
                f"{lg * 1000:.0f} ms ({ours / lg * 100:.0f}%); our code after that import in one process "
                f"{after * 1000:.0f} ms (CPU, medians of {runs} alternated runs)" if whole is not None else
                f"{after * 1000:.0f} ms of our code after `import langgraph.graph` in one process ({after / lg * 100:.0f}%"
                f" of that import's {lg * 1000:.0f} ms alone; CPU, one run: --quick)")
    rows = [
        row(f"Cold `failed --json` run: our own CPU ≤ {COLD_GOAL_S * 1000:.0f} ms above `import langgraph.graph` "
            f"(scaled by this run's slowdown against its idle {LANGGRAPH_IMPORT_REF_S} s)", measured,
            judge(ok), note, ours_s=ours, after_langgraph_s=after, langgraph_s=lg,
            langgraph_in_process_s=statistics.median(lg_t), cli_process_s=whole, allowed_s=allowed,
            ratio=ours / lg),
        row("A `failed` run imports nothing of the service, MCP, chat, triage, LLM stack, Kubernetes client or evals",
            "none" if not unused else f"{len(unused)}: " + ", ".join(unused[:8]), judge(not unused),
            "" if not unused else "import them inside the commands that use them", modules=unused),
    ]
    return {"rows": rows, "data": {"ours_cpu_s": ours_t, "langgraph_cpu_s": lg_alone_t,
                                   "langgraph_in_process_cpu_s": lg_t, "cli_process_cpu_s": whole_t,
                                   "own_import_profile": profile, "unused_imports": unused, "verdict": verdict}}
