"""Run scenario suites and score them: ``workload-diagnose eval [SUITE...] [--faults] [--jobs N] [--out DIR]
[--baseline FILE]`` (and ``--record`` to re-record cassettes from the simulator).

Replay (the default) plays every cassette with ``record_mode="none"`` and checks, per scenario: the verdict
(outcome, category, route, and where the case says so the recurrence count and report wording), a structurally
valid result, that every evidence line cites its source, that the report invents no value (every number and id
occurs in the recorded responses), that no secret leaks (into the result or the cassette), and the tool calls
against the minimum the skill's rules need on that path. ``--faults`` adds the fault matrix
(``evals/faultmatrix.py``) on every scenario that has a simulator world.

Outputs (``--out DIR``): ``scoreboard.json`` (deterministic: the same suite gives the same bytes; no timings),
``timings.json``, ``junit.xml`` and a self-contained ``report.html`` with the confusion matrix as inline SVG. A
regression against the stored baseline (``evals/baseline.json`` unless ``--baseline`` names another file, ``''``
for none) fails the run.
"""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any, Callable

from workload_diagnose.evals.scenarios import Scenario, all_scenarios, load_scenario  # noqa: F401
from workload_diagnose.evals.scoring import (_finish, _load, _verdict_dict, _warm, quantile,  # noqa: F401
                                           result_problems)

SCHEMA = "workload-diagnose/eval-scoreboard@1"
DEFAULT_BASELINE = Path(__file__).resolve().parent / "baseline.json"


# ------------------------------------------------------------------------------------------------ one scenario
def score_replay(ref: str) -> dict:
    """Replay one scenario and run every check; returns a JSON-able record (plus ``_seconds``)."""
    from workload_diagnose.evals import checks, gates
    from workload_diagnose.evals.cassettes import parse
    from workload_diagnose.evals.runner import replay

    _warm()
    sc = _load(ref)
    t0 = time.perf_counter()
    rec: dict[str, Any] = {"id": sc.id, "suite": sc.suite, "confirmed": sc.confirmed, "replay_only": not sc.has_world,
                           "known_defect": sc.known_defect,
                           "expected": _verdict_dict(*sc.expected.verdict(), sc.expected.recurrence)}
    try:
        res = replay(sc)
    except Exception as e:  # noqa: BLE001 - a replay that raises is a failed scenario, not a failed run
        rec.update(got=_verdict_dict("fatal", None, None, None), problems=[f"replay raised {type(e).__name__}: {e}"],
                   citations=[0, 0], invented=[], leaks=[], tool_calls={"observed": 0, "minimum": None, "by_tool": {}},
                   gates=gates.no_result_gates(sc.undecidable))
        rec["_seconds"] = time.perf_counter() - t0
        return _finish(rec)
    seconds = time.perf_counter() - t0
    problems = checks.verdict_problems(sc, res) + [f"invalid result: {x}" for x in checks.validity_problems(res)]
    cassette = sc.cassette.read_text() if sc.cassette.exists() else ""
    data = parse(cassette)
    inter = data.get("interactions") or []
    bodies = [(i.get("response") or {}).get("body", {}).get("string") or "" for i in inter]
    uris = [(i.get("request") or {}).get("uri") or "" for i in inter]
    corpus = checks.Corpus(bodies, uris, sc.args.model_dump())
    invented = checks.invented_values(res.report, corpus)
    leaks = checks.secret_leaks({"result": res.model_dump_json(), "cassette": cassette})
    cited, total = checks.citations(res)
    observed = checks.observed_calls(res)
    minimum = None
    if sc.has_world and not sc.tier2:  # Tier-2 reads depend on what Kubernetes returns: no static minimum
        minimum = checks.minimum_calls(sc, json.loads(sc.world.read_text()))
    n_obs = sum(observed.values())
    n_min = sum(minimum.values()) if minimum is not None else None
    problems += result_problems(invented, leaks, cited, total)
    reads = gates.cassette_reads(cassette)
    rec["gates"], gate_problems = gates.record_gates(res, reads, [(r.method, r.uri, r.kube) for r in reads],
                                                     undecidable=sc.undecidable)
    problems += gate_problems
    if n_min is not None and n_obs < n_min:
        problems.append(f"{n_obs} tool calls < the {n_min} the skill needs on this path (a step was skipped)")
    rec.update(got=_verdict_dict(*checks.verdict_of(res),
                                 res.recurrence.count if getattr(res, "recurrence", None) else None),
               problems=problems, citations=[cited, total], invented=invented, leaks=leaks,
               tool_calls={"observed": n_obs, "minimum": n_min, "by_tool": observed,
                           "minimum_by_tool": dict(sorted((minimum or {}).items()))})
    rec["_seconds"] = seconds
    return _finish(rec)


# ------------------------------------------------------------------------------------------------ faults
def fault_baseline(ref: str, tier1: str = "rest") -> dict:
    from workload_diagnose.evals import checks
    from workload_diagnose.evals import faultmatrix as fm
    from workload_diagnose.evals.runner import live_run

    _warm()
    sc = _load(ref)
    if tier1 == "mcp":
        from workload_diagnose.evals.mcp_eval import live_run_mcp

        run = live_run_mcp(sc)
    else:
        run = live_run(sc)
    r = run.result
    return {"id": sc.id, "requests": run.requests, "error": run.error,
            "verdict": list(checks.verdict_of(r)) if r else None,
            "endpoints": fm.endpoints_hit(run.requests), "seconds": run.seconds,
            "tools": sorted({n for n, _ in getattr(run, "mcp_calls", [])})}


def fault_run(ref: str, variant: str, endpoint: str, base: dict, tier1: str = "rest") -> dict:
    from workload_diagnose.evals import checks
    from workload_diagnose.evals import faultmatrix as fm
    from workload_diagnose.evals.runner import live_run

    sc = _load(ref)
    if variant.startswith("mcp-"):
        from workload_diagnose.evals.mcp_eval import live_run_mcp, mcp_fault

        run = live_run_mcp(sc, mcp_faults=[mcp_fault(variant, endpoint)])
    else:
        spec = fm.fault_spec(variant, endpoint, [tuple(x) for x in base["requests"]])
        timeout = fm.READ_TIMEOUT if "timeout" in variant else None
        if timeout is not None and endpoint == "list" and sc.has_world and \
                len(json.loads(sc.world.read_text()).get("workloads") or []) > fm.BIG_LISTING:
            # a page of hundreds of workloads takes longer than READ_TIMEOUT to serve on a loaded machine: the
            # timeout (and the hold that must outlast it) scale up, or every page would time out, not the faulted one
            spec["seconds"], timeout = fm.HOLD_BIG, fm.READ_TIMEOUT_BIG
        if tier1 == "mcp":
            from workload_diagnose.evals.mcp_eval import live_run_mcp

            run = live_run_mcp(sc, faults=[spec], read_timeout=timeout)
        else:
            run = live_run(sc, faults=[spec], read_timeout=timeout)
    problems = fm.evaluate(sc, tuple(base["verdict"] or ()), len(base["requests"]), variant, endpoint, run)
    problems = [re.sub(r"127\.0\.0\.1:\d+", "simulator", p) for p in problems]  # ports vary run to run
    r = run.result
    xfail = None
    if problems and r is not None:
        xfail = fm.known_defect(endpoint, fm.variant_of(variant)[0].transient, tuple(base["verdict"] or ()),
                                checks.verdict_of(r))
        if xfail and not all(p.startswith("persistent fault changed the verdict") for p in problems):
            xfail = None  # only the known verdict change is excused; anything else still fails
    if xfail:
        problems = []
    return {"id": sc.id, "variant": variant, "endpoint": endpoint, "problems": problems, "xfail": xfail,
            "transient": fm.variant_of(variant)[0].transient, "fired": run.fired > 0,
            "got": "fatal:" + run.error_kind if run.error_kind else
            ":".join(str(x) for x in (r.outcome, checks.verdict_of(r)[1] or r.route)),
            "requests": len(run.requests), "seconds": run.seconds}


# ------------------------------------------------------------------------------------------------ orchestration
def _pmap(fn: Callable, argsets: list[tuple], jobs: int) -> list:
    if jobs <= 1 or len(argsets) <= 1:
        return [fn(*a) for a in argsets]
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else None
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        futs = [pool.submit(fn, *a) for a in argsets]
        return [f.result() for f in futs]


def select(suites: list[str] | None, root: Path | None = None) -> tuple[list[Scenario], list[dict]]:
    """Scenarios to score, and the ones skipped. A Tier-2 cassette holds the Kubernetes exchanges too, so it
    replays with no server; one not recorded yet needs the live kube-apiserver run of tests/k8s first."""
    scs = all_scenarios(suites or None, include_replay_only=True, include_known_defects=True, root=root)
    keep, skipped = [], []
    for sc in scs:
        if sc.tier2 and not sc.cassette.exists():
            skipped.append({"id": sc.id, "reason": "tier2: record it live against the kube-apiserver "
                                                   "(WD_RECORD_TIER2=1 pytest tests/k8s/test_tier2_graph.py)"})
        else:
            keep.append(sc)
    return keep, skipped


def _able(scs: list[Scenario], tier1: str) -> tuple[list[Scenario], list[dict]]:
    """The scenarios whose procedure the ``tier1`` source can answer (``ProcedureSpec.needs`` against the source's
    capabilities); the others are skipped with the capability named (the command refuses them in one line)."""
    from workload_diagnose.agent.procedures import spec
    from workload_diagnose.tools.runai.registry import spec as source_spec

    caps = source_spec(tier1).capabilities
    keep, skipped = [], []
    for sc in scs:
        lack = [c for c in spec(sc.procedure).needs if c not in caps]
        if lack:
            skipped.append({"id": sc.id, "reason": f"capability: --tier1 {tier1} does not read "
                                                   f"{', '.join(repr(c) for c in lack)}"})
        else:
            keep.append(sc)
    return keep, skipped


def evaluate(suites: list[str] | None = None, *, faults: bool = False, jobs: int = 1, root: Path | None = None,
             fault_filter: Callable[[str, str, str], bool] | None = None,
             progress: Callable[[str], None] | None = None, tier1: str = "rest", passk: int = 0) -> tuple[dict, dict]:
    """Score the selected scenarios; returns (scoreboard, timings). Pure data, deterministic scoreboard.
    ``passk`` > 0 adds the LLM path's Pass^k over the chat phrasings (``evals/passk.py``) as ``llm_passk``;
    ``gates`` holds the release-gate figures per suite and overall (``evals/gates.py``)."""
    from workload_diagnose.evals import checks, gates

    scs, skipped = select(suites, root)
    scs, unable = _able(scs, tier1)
    skipped += unable
    refs = [f"{sc.path}::{sc.id}" if root is not None else sc.id for sc in scs]
    t0 = time.perf_counter()
    if tier1 == "mcp":
        from workload_diagnose.evals.mcp_eval import score_mcp

        recs = _pmap(score_mcp, [(r,) for r in refs], jobs)
    else:
        recs = _pmap(score_replay, [(r,) for r in refs], jobs)
    replay_wall = time.perf_counter() - t0
    timings: dict[str, Any] = {"replay": {r["id"]: round(r.pop("_seconds") * 1000, 3) for r in recs}}
    recs.sort(key=lambda r: r["id"])
    board: dict[str, Any] = {"schema": SCHEMA, "selection": sorted(suites or []) or ["(all)"]}
    if tier1 != "rest":
        board["tier1"] = tier1
    labels = checks.all_labels()
    matrix = [[0] * (len(labels) + 1) for _ in labels]  # last column: anything else (fatal, ...)
    for r in recs:
        e, g = r["expected"], r["got"]
        el, gl = checks.label(e["outcome"], e["category"], e["route"]), checks.label(g["outcome"], g["category"],
                                                                                     g["route"])
        if el in labels:
            matrix[labels.index(el)][labels.index(gl) if gl in labels else len(labels)] += 1
    scored = [r for r in recs if not r["xfail"]]
    n = len(scored)

    def acc(key):
        ok = sum(1 for r in scored if r["expected"][key] == r["got"][key])
        return {"correct": ok, "total": n, "ratio": round(ok / n, 4) if n else None}

    rec_cases = [r for r in scored if r["expected"]["recurrence"] is not None]
    cited = sum(r["citations"][0] for r in recs)
    total = sum(r["citations"][1] for r in recs)
    with_min = [r for r in recs if r["tool_calls"]["minimum"] is not None and not r["xfail"]]
    obs = sum(r["tool_calls"]["observed"] for r in with_min)
    mins = sum(r["tool_calls"]["minimum"] for r in with_min)
    suites_count: dict[str, int] = {}
    for r in recs:
        suites_count[r["suite"]] = suites_count.get(r["suite"], 0) + 1
    board.update({
        "scenarios": len(recs),
        "suites": dict(sorted(suites_count.items())),
        "skipped": skipped,
        "passed": sum(1 for r in recs if r["pass"]),
        "failed": sum(1 for r in recs if not r["pass"] and not r["xfail"]),
        "xfail": sorted(r["id"] for r in recs if r["xfail"]),
        "xpass": sorted(r["id"] for r in recs if r["xpass"]),
        "unconfirmed": sorted(r["id"] for r in recs if not r["confirmed"]),
        "accuracy": {"outcome": acc("outcome"), "category": acc("category"), "route": acc("route"),
                     "verdict": {"correct": sum(1 for r in scored if all(
                         r["expected"][k] == r["got"][k] for k in ("outcome", "category", "route"))), "total": n},
                     "recurrence": {"correct": sum(1 for r in rec_cases if r["expected"]["recurrence"] ==
                                                   r["got"]["recurrence"]), "total": len(rec_cases)},
                     "all_checks": {"correct": sum(1 for r in scored if r["pass"]), "total": n}},
        "confusion": {"labels": labels, "columns": labels + ["other"], "matrix": matrix},
        "citation_coverage": {"cited": cited, "total": total, "ratio": round(cited / total, 4) if total else None},
        "invented_values": {"count": sum(len(r["invented"]) for r in recs),
                            "items": sorted(f"{r['id']}: {x}" for r in recs for x in r["invented"])},
        "secrets_leaked": {"count": sum(len(r["leaks"]) for r in recs),
                           "items": sorted(f"{r['id']}: {x}" for r in recs for x in r["leaks"])},
        "tool_calls": {"observed": obs, "minimum": mins, "ratio": round(obs / mins, 4) if mins else None,
                       "over_minimum": sorted(f"{r['id']}: {r['tool_calls']['observed']} > {r['tool_calls']['minimum']}"
                                              for r in with_min if r["tool_calls"]["observed"] > r["tool_calls"]["minimum"]),
                       "under_minimum": sorted(f"{r['id']}: {r['tool_calls']['observed']} < "
                                               f"{r['tool_calls']['minimum']}" for r in with_min
                                               if r["tool_calls"]["observed"] < r["tool_calls"]["minimum"])},
        "gates": gates.figures(recs),
        "results": recs,
        "faults": None,
        "regressions": [],  # filled in by run() against the baseline
    })
    timings["replay_wall_seconds"] = round(replay_wall, 3)
    if faults:
        board["faults"], timings["faults"] = _fault_matrix(scs, refs, jobs, fault_filter, progress, tier1)
        for r in recs:
            fr = board["faults"]["per_scenario"].get(r["id"])
            r["faults"] = fr
    if passk:
        from workload_diagnose.evals import passk as pk

        t1 = time.perf_counter()
        board["llm_passk"] = pk.run(passk)
        timings["llm_passk_wall_seconds"] = round(time.perf_counter() - t1, 3)
    board["ok"] = board["failed"] == 0 and (board["faults"] is None or board["faults"]["failed"] == 0) \
        and (board.get("llm_passk") or {}).get("ok", True) and board["gates"]["ok"]
    return board, timings


def _fault_matrix(scs: list[Scenario], refs: list[str], jobs: int, fault_filter, progress,
                  tier1: str = "rest") -> tuple[dict, dict]:
    from workload_diagnose.evals import faultmatrix as fm

    # live runs need every server a scenario talks to: Tier-2 ones need the kube-apiserver (tests/k8s covers them)
    live = [(sc, ref) for sc, ref in zip(scs, refs) if sc.has_world and not sc.tier2]
    t0 = time.perf_counter()
    bases = _pmap(fault_baseline, [(ref, tier1) for _, ref in live], jobs)
    tasks = []
    base_problems = []
    for (sc, ref), b in zip(live, bases):
        exp = list(sc.expected.verdict())
        if b["verdict"] != exp and not sc.known_defect:
            base_problems.append({"id": sc.id, "variant": "none", "endpoint": "-",
                                  "problems": [f"fault-free live run gave {b['verdict']} ({b['error']}), expected {exp}"]})
        if b["verdict"] is None:
            continue
        plan = fm.plan(b["endpoints"])
        if tier1 == "mcp":
            from workload_diagnose.evals.mcp_eval import mcp_plan

            plan += mcp_plan(b["tools"])
        for variant, ep in plan:
            if fault_filter is None or fault_filter(sc.id, variant, ep):
                tasks.append((ref, variant, ep, b, tier1))
    if progress:
        progress(f"fault matrix: {len(tasks)} runs over {len(live)} scenarios")
    runs = _pmap(fault_run, tasks, jobs)
    wall = time.perf_counter() - t0
    runs.sort(key=lambda r: (r["id"], list(fm.ENDPOINTS).index(r["endpoint"]),
                             list(fm.BY_NAME).index(fm.variant_of(r["variant"])[0].name), r["variant"]))
    failures = base_problems + [{"id": r["id"], "variant": r["variant"], "endpoint": r["endpoint"],
                                 "problems": r["problems"]} for r in runs if r["problems"]]
    per: dict[str, dict] = {}
    names = sorted({r["variant"] for r in runs}, key=lambda n: (list(fm.BY_NAME).index(fm.variant_of(n)[0].name), n))
    by_variant: dict[str, dict] = {n: {"runs": 0, "passed": 0} for n in names}
    by_endpoint: dict[str, dict] = {e: {"runs": 0, "passed": 0} for e in fm.ENDPOINTS}
    grid: dict[str, dict[str, list[int]]] = {n: {e: [0, 0] for e in fm.ENDPOINTS} for n in names}
    fatal = 0
    xfails = sorted({r["xfail"] for r in runs if r.get("xfail")})
    for r in runs:
        ok = not r["problems"] and not r.get("xfail")
        p = per.setdefault(r["id"], {"runs": 0, "passed": 0, "fatal_expected": 0, "xfail": 0})
        p["xfail"] += bool(r.get("xfail"))
        p["runs"] += 1
        p["passed"] += ok
        for d in (by_variant[r["variant"]], by_endpoint[r["endpoint"]]):
            d["runs"] += 1
            d["passed"] += ok
        grid[r["variant"]][r["endpoint"]][0] += 1
        grid[r["variant"]][r["endpoint"]][1] += ok
        if r["got"].startswith("fatal:") and ok:
            fatal += 1
            p["fatal_expected"] += 1
    for b in base_problems:
        per.setdefault(b["id"], {"runs": 0, "passed": 0, "fatal_expected": 0, "xfail": 0})["baseline_failed"] = True
    out = {"runs": len(runs), "passed": sum(1 for r in runs if not r["problems"] and not r.get("xfail")),
           "failed": len(failures), "fatal_as_designed": fatal,
           "xfail": {"runs": sum(1 for r in runs if r.get("xfail")), "defects": xfails,
                     "items": sorted(f"{r['id']} {r['endpoint']}/{r['variant']}" for r in runs if r.get("xfail"))},
           "by_variant": by_variant, "by_endpoint": by_endpoint,
           "grid": {v: {e: c for e, c in row.items() if c[0]} for v, row in grid.items()},
           "per_scenario": dict(sorted(per.items())), "failures": failures,
           "variants": [{"name": n, "transient": fm.variant_of(n)[0].transient,
                         "fault": {**fm.variant_of(n)[0].spec, **({"status": fm.variant_of(n)[1]}
                                                                 if fm.variant_of(n)[1] else {})},
                         "endpoints": list(fm.variant_of(n)[0].endpoints or ()) or "all"} for n in names]}
    timing = {"wall_seconds": round(wall, 3), "max_requests": max((r["requests"] for r in runs), default=0),
              "runs": {f"{r['id']}|{r['endpoint']}|{r['variant']}":
                                                       round(r["seconds"] * 1000, 3) for r in runs},
              "baselines": {b["id"]: round(b["seconds"] * 1000, 3) for b in bases}}
    return out, timing


# ------------------------------------------------------------------------------------------------ baseline
def regressions(board: dict, baseline: dict) -> list[str]:
    """What got worse than the stored baseline (only scenarios present in both are compared)."""
    out: list[str] = []
    base = {r["id"]: r for r in baseline.get("results", [])}
    for r in board["results"]:
        b = base.get(r["id"])
        if b is None:
            continue
        if b.get("pass") and not r["pass"]:
            out.append(f"{r['id']}: passed in the baseline, now fails ({'; '.join(r['problems'])})")
        if r["tool_calls"]["observed"] > b.get("tool_calls", {}).get("observed", 10**9):
            out.append(f"{r['id']}: {r['tool_calls']['observed']} tool calls, baseline "
                       f"{b['tool_calls']['observed']}")
        if len(r["invented"]) > len(b.get("invented", [])):
            out.append(f"{r['id']}: invented values {r['invented']}")
        if len(r["leaks"]) > len(b.get("leaks", [])):
            out.append(f"{r['id']}: secrets leaked {r['leaks']}")
        if r["citations"][0] * (b["citations"][1] or 1) < b["citations"][0] * (r["citations"][1] or 1) and \
                r["citations"][0] < r["citations"][1]:
            out.append(f"{r['id']}: citation coverage fell to {r['citations'][0]}/{r['citations'][1]}")
        bf, rf = b.get("faults"), r.get("faults")
        if bf and rf and rf["runs"] == bf["runs"] and rf["passed"] < bf["passed"]:
            out.append(f"{r['id']}: fault matrix {rf['passed']}/{rf['runs']} passed, baseline {bf['passed']}/{bf['runs']}")
    return out


# ------------------------------------------------------------------------------------------------ printing
def _pct(x: dict) -> str:
    return f"{x['correct']}/{x['total']}" + (f" ({100 * x['correct'] / x['total']:.1f}%)" if x["total"] else "")


def scoreboard_text(board: dict, timings: dict) -> list[str]:
    a = board["accuracy"]
    lines = ["", f"Scoreboard — {board['scenarios']} scenarios in {len(board['suites'])} suites "
                 f"({', '.join(f'{k} {v}' for k, v in board['suites'].items())})"]
    if board["skipped"]:
        t2 = sum(1 for x in board["skipped"] if x["reason"].startswith("tier2"))
        lines.append(f"  skipped: {t2} Tier-2 scenarios (replayed by tests/k8s), {len(board['skipped']) - t2} "
                     "whose procedure needs a capability this source does not read")
    lines += [f"  verdict accuracy      {_pct(a['verdict'])}",
              f"    outcome {_pct(a['outcome'])} · category {_pct(a['category'])} · route {_pct(a['route'])}",
              f"  recurrence counts     {_pct(a['recurrence'])}",
              f"  all checks passed     {_pct(a['all_checks'])}"]
    if board["xfail"]:
        lines.append(f"  known defects (xfail) {len(board['xfail'])}: {', '.join(board['xfail'])}")
    if board["xpass"]:
        lines.append(f"  NOW PASSING (remove known_defect): {', '.join(board['xpass'])}")
    if board["unconfirmed"]:
        lines.append(f"  unconfirmed captures  {len(board['unconfirmed'])}: {', '.join(board['unconfirmed'])}")
    c = board["citation_coverage"]
    t = board["tool_calls"]
    calls = (f"  tool calls            {sum(r['tool_calls']['observed'] for r in board['results'])} tools/call "
             "through MCP (the minimum counts REST requests: not compared)" if board.get("tier1") == "mcp" else
             f"  tool calls            {t['observed']} observed vs {t['minimum']} minimum (x{t['ratio']}); "
             f"{len(t['over_minimum'])} scenario(s) above the minimum, {len(t['under_minimum'])} below")
    lines += [f"  citation coverage     {c['cited']}/{c['total']} evidence lines cite their source",
              f"  invented values       {board['invented_values']['count']}",
              f"  secrets leaked        {board['secrets_leaked']['count']}", calls]
    rt = list(timings.get("replay", {}).values())
    lines.append(f"  time per replay       p50 {quantile(rt, .5):.1f} ms · p95 {quantile(rt, .95):.1f} ms")
    f = board.get("faults")
    if f:
        ft = list(timings.get("faults", {}).get("runs", {}).values())
        if f["xfail"]["runs"]:
            lines.append(f"  fault matrix xfail    {f['xfail']['runs']} runs show known defect(s): "
                         + " | ".join(f["xfail"]["defects"]))
        lines += [f"  fault matrix          {f['passed']}/{f['runs']} runs passed "
                  f"({f['fatal_as_designed']} fatal 'API unavailable' by design), max "
                  f"{timings['faults']['max_requests']} requests/run",
                  f"    per fault run       p50 {quantile(ft, .5):.1f} ms · p95 {quantile(ft, .95):.1f} ms · "
                  f"wall {timings['faults']['wall_seconds']:.1f} s"]
    if board.get("llm_passk"):
        from workload_diagnose.evals.passk import text

        lines.append(text(board["llm_passk"]))
        lines += [f"    differs: phrasing {x['phrasing']} with the {x['model']} model: {', '.join(x['differs'])}"
                  for x in board["llm_passk"]["failures"][:20]]
    if board.get("gates"):
        from workload_diagnose.evals.gates import text as gate_text

        lines += gate_text(board["gates"])
    lines += _confusion_text(board)
    return lines


def _confusion_text(board: dict) -> list[str]:
    conf = board["confusion"]
    labels, m = conf["labels"], conf["matrix"]
    used = [i for i, row in enumerate(m) if any(row)] or []
    cols = sorted({j for i in used for j, v in enumerate(m[i]) if v} | set(used))
    names = conf["columns"]
    short = {n: (n.split(":")[-1] if ":" in n else n)[:10] for n in names}
    out = ["", "  confusion (rows expected, columns got)", "  " + " " * 26 + " ".join(f"{short[names[j]]:>10}"
                                                                                   for j in cols)]
    for i in used:
        out.append(f"  {labels[i][:26]:26}" + " ".join(f"{(m[i][j] or '.')!s:>10}" for j in cols))
    return out


# ------------------------------------------------------------------------------------------------ entry point
def run(suites: list[str] | None = None, *, do_record: bool = False, echo=print, faults: bool = False,
        jobs: int | None = None, out: str | Path | None = None, baseline: str | Path | None = None,
        fault_filter=None, root: Path | None = None, tier1: str = "rest", passk: int = 0) -> int:
    """The ``workload-diagnose eval`` command. Returns the exit status (0 all good, 1 failures or regression)."""
    if do_record:
        return _record(suites, echo)
    jobs = jobs if jobs is not None else max(1, min(8, os.cpu_count() or 1))
    scs, _ = select(suites, root)
    if not scs:
        echo("no scenarios matched")
        return 2
    board, timings = evaluate(suites, faults=faults, jobs=jobs, root=root, fault_filter=fault_filter, progress=echo,
                              tier1=tier1, passk=passk)
    for r in board["results"]:
        mark = "ok  " if r["pass"] else ("xfail" if r["xfail"] else "FAIL")
        g = r["got"]
        echo(f"{mark} {r['id']:48s} {g['outcome']:12s} {g['category'] or g['route']}"
             + ("" if r["pass"] else f"   <- {'; '.join(r['problems'])}"))
    f = board.get("faults")
    if f and f["failures"]:
        echo("")
        for x in f["failures"][:200]:
            echo(f"FAULT {x['id']} {x['endpoint']}/{x['variant']}: {'; '.join(x['problems'])}")
    for line in scoreboard_text(board, timings):
        echo(line)
    regress: list[str] = []
    bpath = DEFAULT_BASELINE if baseline is None else (Path(baseline) if str(baseline) else None)
    if bpath is not None and bpath.exists():
        regress = regressions(board, json.loads(bpath.read_text()))
        echo(f"  baseline              {bpath.name}: " + ("no regression" if not regress else
                                                         f"{len(regress)} REGRESSION(S)"))
        for x in regress:
            echo(f"REGRESSION {x}")
    elif baseline:
        echo(f"workload-diagnose: error: baseline {baseline} not found")
        return 2
    board["regressions"] = regress
    if out:
        from workload_diagnose.evals.reports import write_outputs

        paths = write_outputs(Path(out), board, timings)
        echo("  wrote " + ", ".join(str(p) for p in paths))
    return 0 if board["ok"] and not regress else 1


def _record(suites: list[str] | None, echo) -> int:
    from workload_diagnose.evals.checks import verdict_of
    from workload_diagnose.evals.runner import record

    scs = [s for s in all_scenarios(suites or None, include_known_defects=True) if not s.tier2]
    if not scs:
        echo("no scenarios matched")
        return 2
    bad = 0
    for sc in scs:
        res = record(sc)
        got = verdict_of(res)
        ok = got == sc.expected.verdict()
        bad += not ok and not sc.known_defect
        echo(f"{'ok  ' if ok else 'FAIL'} {sc.id:45s} {res.outcome:12s} {got[1] or res.route}"
             + ("" if ok else f"   expected {sc.expected.verdict()}"))
    echo(f"{len(scs)} recorded, {bad} with an unexpected verdict")
    return 1 if bad else 0
