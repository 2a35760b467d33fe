"""Benchmark (issue 6): a diagnosis should cost the API round trips the skill needs and almost nothing else.

    ./dev bench                 # full run (about 1.5 min on 2 cores); writes out/bench.json and prints a table
    ./dev bench --quick         # fast subset (smaller inputs, fewer repetitions, no kube-apiserver)
    workload-diagnose bench --out path.json --only replay,live_latency   # or python -m workload_diagnose.evals.bench …

Items (each target is printed with the measured value and PASS / MISS / SKIP; the exit status is 0 even on a
MISS, 1 only when the bench itself failed):

1. ``replay``        replayed diagnosis time per scenario in-process (p50, p95), the suite's wall time, cold start
                     in a fresh process; target p50 ≤ 50 ms.
1b. ``cpu``          CPU time of one warm in-process diagnosis replayed from memory (p50; every guard on), where it
                     goes (a profile of every thread), and reads one after the other (``evals.bench_cpu``);
                     target p50 ≤ 5 ms.
2. ``live_latency``  live diagnosis against the Run:ai simulator with 100 ms injected per request: wall time vs the
                     dependent round trips; target ``core/oom-metrics`` ≤ 3 round trips + 50 ms; ``max_inflight``.
3. ``requests``      requests per diagnosis vs the minimum the skill needs, derived from each scenario's world
                     (``evals.bench_requests.skill_minimum``), and duplicate requests.
4. ``redaction``     ``guardrails.redact`` / ``guardrails.sanitize_text`` throughput on a generated realistic 50 MB
                     log and on adversarial inputs, one core (``evals.bench_redaction``); ≥ 50 MB/s and linear.
5. ``cli_startup``   ``workload-diagnose --help`` / ``failed --help`` as subprocesses, median; ≤ 1 s; the heaviest
                     imports (``python -X importtime``).
5b. ``cold_cli``     a full ``failed --json`` run in a fresh interpreter against a local simulator vs ``python -c
                     "import langgraph.graph"``: child CPU (``os.wait4``), medians; our own cost ≤ 150 ms (scaled by
                     the run's slowdown); nothing of the service, MCP, chat or Kubernetes imported
                     (``evals.bench_process``).
6. ``memory``        peak RSS (child processes) of ``KubeReader.previous_log`` over a 50 MB log served by the
                     kubelet stand-in through a real kube-apiserver, and of a full diagnosis with Tier 2; < 200 MB
                     (``evals.bench_memory``). Skipped, with the reason, when the apiserver binary is not built.
7. ``hostile``       peak RSS (``os.wait4``) of the ``failed`` CLI against a server streaming a 4 GiB body (workload,
                     events; chunked and announced); < 200 MB, the client hangs up at the 16 MiB cap
                     (``evals.bench_hostile``).
8. ``triage``        fleet triage of 2,000 failed workloads over 40 nodes at 20 ms per request (``evals.bench_triage``).
9. ``serve``         K = 32 concurrent clients against ``workload-diagnose serve`` + the simulator (50 ms per request):
                     diagnoses/s, p50/p99, errors, CPU per diagnosis of each process (``evals.bench_serve``);
                     target ≥ 200 diagnoses/s with p99 < 0.5 s and 0 errors (``evals.bench_serve.GOAL_*``).

Published LLM-loop agents take 27–139 s and $0.11–0.25 per investigation; the ratios are printed against that.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from workload_diagnose.evals.bench_common import (DELAY_MS, ERROR, INFO, LLM_AGENT_DOLLARS, LLM_AGENT_SECONDS, MB, MISS, PASS,
                                 REPO, SKIP, Ctx, judge, ms, percentile, row)
from workload_diagnose.evals.bench_cpu import item_cpu
from workload_diagnose.evals.bench_hostile import item_hostile
from workload_diagnose.evals.bench_process import item_cli_startup, item_cold_cli, item_memory
from workload_diagnose.evals.bench_serve import item_serve
from workload_diagnose.evals.bench_triage import item_triage

__all__ = ["ITEMS", "main", "percentile"]


# ============================================================================================ 1. replay
def _replay_fn(sc) -> tuple[Callable[[], Any] | None, str | None]:
    """(how to replay the scenario, or None and why not)."""
    from workload_diagnose.evals.runner import replay

    if not sc.cassette.exists():
        return None, "no cassette (not recorded yet)"
    if sc.tier2:  # replayable only when its cassette holds the Kubernetes exchanges too
        from workload_diagnose.evals.kubeworld import KUBE_REPLAY_URL

        host = KUBE_REPLAY_URL.split("://", 1)[-1]
        if host not in sc.cassette.read_text():
            return None, "tier2 scenario without Kubernetes exchanges in its cassette"
    return (lambda: replay(sc)), None


def _suites(ctx: "Ctx") -> list[str] | None:
    return ["core"] if ctx.quick else None


COLD_SNIPPET = r"""
import json, sys, time
t0 = time.perf_counter()
from workload_diagnose.evals.scenarios import load_scenario
from workload_diagnose.evals.runner import replay
t1 = time.perf_counter()
sc = load_scenario(sys.argv[1])
t2 = time.perf_counter(); replay(sc); t3 = time.perf_counter(); replay(sc); t4 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_s": t3 - t2, "second_s": t4 - t3}))
"""


def item_replay(ctx: Ctx) -> dict:
    from workload_diagnose.evals.scenarios import all_scenarios

    reps = 1 if ctx.quick else 3
    # cold: a fresh interpreter (imports, graph compile, first TLS context, first cassette parse)
    cold: dict = {}
    cold_wall = None
    if not ctx.quick:
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-c", COLD_SNIPPET, "core/oom-metrics"], cwd=str(REPO),
                           capture_output=True, text=True, timeout=120)
        cold_wall = time.perf_counter() - t0
        if p.returncode != 0:
            raise RuntimeError(f"cold-start subprocess failed: {p.stderr.strip()[-500:]}")
        cold = json.loads(p.stdout.strip().splitlines()[-1])

    runnable, skipped = [], []
    for sc in all_scenarios(_suites(ctx)):
        fn, why = _replay_fn(sc)
        if fn is None:
            skipped.append({"id": sc.id, "reason": why})
        else:
            runnable.append((sc, fn))
    if not runnable:
        raise RuntimeError("no replayable scenario")
    runnable[0][1]()  # warm-up once: imports, graph compile
    per: dict[str, list[float]] = {sc.id: [] for sc, _ in runnable}
    verdict_ok: dict[str, bool] = {}
    failed: dict[str, str] = {}
    passes = []
    for _ in range(reps):
        tp = time.perf_counter()
        for sc, fn in runnable:
            if sc.id in failed:
                continue
            t = time.perf_counter()
            try:
                res = fn()
            except Exception as e:  # a scenario that cannot replay is reported, not timed
                failed[sc.id] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
                per.pop(sc.id, None)
                continue
            per[sc.id].append(time.perf_counter() - t)
            verdict_ok[sc.id] = (res.outcome, res.category, res.route) == (sc.expected.outcome, sc.expected.category,
                                                                             sc.expected.route)
        passes.append(time.perf_counter() - tp)
    allt = [x for v in per.values() for x in v]
    if not allt:
        raise RuntimeError("every replay failed: " + "; ".join(f"{k}: {v}" for k, v in list(failed.items())[:3]))
    p50, p95 = percentile(allt, 50), percentile(allt, 95)
    slowest = max(per, key=lambda k: statistics.median(per[k]))

    # what the time goes to: the httpx client (TLS context) and the cassette load, per diagnosis
    from workload_diagnose.evals.cassettes import player
    from workload_diagnose.evals.scenarios import load_scenario
    from workload_diagnose.tools.transport import make_client

    def med(fn, n=7):
        xs = []
        for _ in range(n):
            t = time.perf_counter()
            fn()
            xs.append(time.perf_counter() - t)
        return statistics.median(xs)

    client_s = med(lambda: make_client("http://runai-simulator.local", timeout=10.0).close())
    oom = load_scenario("core/oom-metrics")

    def load_cassette():
        with player().use_cassette(str(oom.cassette)):
            pass

    cassette_s = med(load_cassette)
    lo, hi = LLM_AGENT_SECONDS
    wrong = [k for k, ok in verdict_ok.items() if not ok]
    note = ""
    if p50 > 0.050:
        note = (f"p50 is {ms(p50 - 0.050)} over 50 ms; per diagnosis ~{ms(client_s)} goes to building the httpx "
                f"client (its TLS context loads the CA bundle, even for http://) and ~{ms(cassette_s)} to parsing "
                "the cassette")
    rows = [
        row("Replayed diagnosis p50 ≤ 50 ms (warm, in-process)",
            f"p50 {ms(p50)}, p95 {ms(p95)} ({len(allt)} runs: {len(per)} scenarios × {reps}"
            f"{', tier2 included' if any(sc.tier2 for sc, _ in runnable) else ''})", judge(p50 <= 0.050),
            note, p50_s=p50, p95_s=p95),
        row("Suite wall time (one pass, in-process)", f"{statistics.median(passes):.2f} s for {len(per)} "
            f"scenarios (slowest scenario {slowest}: {ms(statistics.median(per[slowest]))})", INFO,
            suite_wall_s=statistics.median(passes)),
        row("Cold start: fresh process, first diagnosis (info)",
            (f"imports {ms(cold['import_s'])} + first diagnosis {ms(cold['first_s'])} (second "
             f"{ms(cold['second_s'])}); process wall {cold_wall:.2f} s") if cold else "not measured in --quick",
            INFO, **cold, process_wall_s=cold_wall),
        row("Time per diagnosis that is not the graph (info)",
            f"httpx client construction {ms(client_s)}, cassette load {ms(cassette_s)}", INFO,
            client_construction_s=client_s, cassette_load_s=cassette_s),
        row(f"vs LLM-loop agents ({lo:.0f}–{hi:.0f} s, ${LLM_AGENT_DOLLARS[0]}–{LLM_AGENT_DOLLARS[1]} per investigation)",
            f"{lo / p50:,.0f}×–{hi / p50:,.0f}× faster at p50 (≥ 1000× needs p50 ≤ {lo:.0f} ms vs the fastest); "
            "$0 model cost", INFO, speedup_low=lo / p50, speedup_high=hi / p50),
    ]
    if wrong or failed:
        rows.append(row("Every timed scenario replays to its case.json verdict",
                        f"{len(wrong)} verdicts differ, {len(failed)} replays failed",
                        MISS, "; ".join([f"{k}: verdict differs" for k in wrong] + [f"{k}: {v}" for k, v in
                                                                                     failed.items()])[:600]))
    if skipped:
        rows.append(row("Scenarios not replayed (info)", f"{len(skipped)}: " + "; ".join(
            f"{x['id']} ({x['reason']})" for x in skipped[:4]) + (" …" if len(skipped) > 4 else ""), INFO))
    return {"rows": rows, "data": {"failed": failed, 
        "per_scenario_median_ms": {k: statistics.median(v) * 1000 for k, v in per.items()},
        "samples": len(allt), "reps": reps, "pass_wall_s": passes, "skipped": skipped, "cold": cold,
        "cold_process_wall_s": cold_wall}}


# ====================================================================================== 2. live latency
def item_live_latency(ctx: Ctx) -> dict:
    from workload_diagnose.evals.bench_requests import run_live, skill_minimum
    from workload_diagnose.evals.scenarios import all_scenarios, load_scenario

    d = DELAY_MS / 1000
    oom = load_scenario("core/oom-metrics")
    run_live(oom)  # warm-up (imports, graph compile) without delay
    runs = [run_live(oom, delay_ms=DELAY_MS) for _ in range(1 if ctx.quick else 5)]
    walls = [r.wall_s for r in runs]
    wall = statistics.median(walls)
    m = skill_minimum(oom)
    target = 3 * d + 0.050
    inflight = max(r.max_inflight for r in runs)
    nreq = len(runs[0].requests)
    note = ""
    if wall > target:
        from workload_diagnose.tools.transport import make_client

        nodelay = statistics.median(run_live(oom).wall_s for _ in range(3))
        tc = []
        for _ in range(5):
            t = time.perf_counter()
            make_client("http://127.0.0.1:9", timeout=10.0).close()
            tc.append(time.perf_counter() - t)
        note = (f"{ms(wall - target)} over {ms(target)}: the dependent round trips are {m.depth} "
                f"(token → status → fan-out), so the excess is in-process work: the same diagnosis takes "
                f"{ms(nodelay)} with no injected delay, of which {ms(statistics.median(tc))} is building the httpx "
                "client (its TLS context loads the CA bundle even for http://); the rest is the graph and the "
                "guardrails on each body. Borderline: other load on this machine moves it by ±10 ms")
    rows = [
        row(f"core/oom-metrics live wall ≤ 3 round trips + 50 ms ({ms(target)}) at {DELAY_MS} ms/request",
            f"median {ms(wall)} of {len(runs)} = {wall / d:.2f} round trips; {nreq} requests, minimum dependent "
            f"round trips {m.depth}; a sequential client would need ≥ {nreq * DELAY_MS} ms", judge(wall <= target),
            note, wall_s=wall, walls_s=walls, target_s=target, requests=nreq, min_depth=m.depth),
        row("Simulator max_inflight (requests served at once)",
            f"{inflight} (token → workload+events → spec/pods/history/metrics)", INFO, max_inflight=inflight),
        row(f"End to end vs LLM-loop agents ({LLM_AGENT_SECONDS[0]:.0f}–{LLM_AGENT_SECONDS[1]:.0f} s), "
            f"with {DELAY_MS} ms per API request (info)",
            f"{LLM_AGENT_SECONDS[0] / wall:,.0f}×–{LLM_AGENT_SECONDS[1] / wall:,.0f}× faster; the rest of the "
            "difference to the in-process ratio is API latency, which no design removes", INFO),
    ]
    per: dict = {}
    if not ctx.quick:
        for sc in all_scenarios():
            if sc.tier2 or sc.procedure != "runai_failed":  # the skill's minimum chain is the failed procedure's
                continue
            ms_ = skill_minimum(sc)
            # every core scenario, and elsewhere the ones with a longer dependent chain (pagination, probes,
            # metrics that wait for history, forced retries): the others repeat a core shape
            if sc.suite != "core" and ms_.depth <= 3 and not ms_.forced_retry_depth:
                continue
            r = run_live(sc, delay_ms=DELAY_MS)
            per[sc.id] = {"wall_ms": r.wall_s * 1000, "round_trips": r.wall_s / d, "min_depth": ms_.depth,
                          "forced_retry_depth": ms_.forced_retry_depth, "requests": len(r.requests),
                          "max_inflight": r.max_inflight}
            per[sc.id]["excess_ms"] = (r.wall_s - ms_.depth * d - ms_.forced_retry_depth * d) * 1000
        if per:
            ex = sorted(per.items(), key=lambda kv: kv[1]["excess_ms"])
            med = statistics.median(v["excess_ms"] for _, v in ex)
            worst_id, worst = ex[-1]
            rows.append(row("Other scenarios: wall time minus their minimum dependent round trips × 100 ms (info; "
                            "core + every scenario whose chain is longer than 3; one run each)",
                            f"excess median {med:.0f} ms, max {worst['excess_ms']:.0f} ms ({worst_id}: "
                            f"{worst['wall_ms']:.0f} ms for {worst['min_depth'] + worst['forced_retry_depth']} round "
                            f"trips); {len(per)} scenarios", INFO, excess_median_ms=med,
                            excess_max_ms=worst["excess_ms"]))
    return {"rows": rows, "data": {"delay_ms": DELAY_MS, "oom_metrics": {
        "walls_ms": [w * 1000 for w in walls], "requests": [f"{a} {b} → {c}" for a, b, c in runs[0].requests],
        "min": m.__dict__}, "per_scenario": per}}


# ========================================================================================== 3. requests
def item_requests(ctx: Ctx) -> dict:
    from workload_diagnose.evals.bench_requests import classify_repeats, run_live, skill_minimum
    from workload_diagnose.evals.scenarios import all_scenarios

    per: dict = {}
    bad, dups_all = [], []
    tot_obs = tot_min = tot_retry = 0
    tier2 = 0
    for sc in all_scenarios(_suites(ctx)):
        if sc.tier2:  # their Run:ai side depends on the Kubernetes evidence: not counted here
            tier2 += 1
            continue
        m = skill_minimum(sc)
        r = run_live(sc)
        retries, dups = classify_repeats(r.requests)
        obs = len(r.requests)
        extra = obs - m.total - retries
        per[sc.id] = {"observed": obs, "minimum": m.total, "retries_after_5xx": retries, "forced_retries":
                      m.forced_retries, "duplicates": dups, "extra": extra, "path": m.path, "breakdown": m.breakdown,
                      "notes": m.notes, "requests": [f"{a} {b} → {c}" for a, b, c in r.requests]}
        tot_obs, tot_min, tot_retry = tot_obs + obs, tot_min + m.total, tot_retry + retries
        if extra != 0 or retries > m.forced_retries:
            bad.append(f"{sc.id}: {obs} observed vs minimum {m.total}" + (f" + {retries} retries" if retries else ""))
        dups_all += [f"{sc.id}: {x}" for x in dups]
    n = len(per)
    return {"rows": [
        row("Requests per diagnosis = the skill's minimum (per scenario, from its world)",
            f"{n - len(bad)}/{n} at the minimum; {tot_obs} requests observed vs {tot_min} minimum + {tot_retry} "
            "retries after HTTP 5xx", judge(not bad), "; ".join(bad)[:600],
            at_minimum=n - len(bad), scenarios=n, observed=tot_obs, minimum=tot_min, retries=tot_retry),
        row("No duplicate request (same method + path + query)",
            f"{len(dups_all)} duplicates" + (f" ({tot_retry} retries of failed requests not counted)" if tot_retry
                                             else ""), judge(not dups_all), "; ".join(dups_all)[:600],
            duplicates=len(dups_all)),
    ] + ([row("Tier-2 scenarios not counted (info)", f"{tier2}: their Run:ai reads depend on the Kubernetes "
              "evidence (e.g. metrics after a kubectl OOMKilled)", INFO)] if tier2 else []),
        "data": {"per_scenario": per}}


# ========================================================================================= 4. redaction
MB_PER_S_GOAL = 50  # sanitising, every input (the realistic log and each adversarial one), one core


def item_redaction(ctx: Ctx) -> dict:
    from workload_diagnose.evals.bench_redaction import RATIO_MAX

    goal = MB_PER_S_GOAL

    size = (2 if ctx.quick else 50) * 1024 * 1024
    adv_n = (16 if ctx.quick else 128) * 1024
    p = subprocess.run([sys.executable, "-m", "workload_diagnose.evals.bench_redaction", str(size), str(adv_n)]
                       + (["--quick", "--no-cold"] if ctx.quick else []), cwd=str(REPO),
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"bench_redaction failed (exit {p.returncode}): {p.stderr.strip()[-800:]}")
    d = json.loads(p.stdout.strip().splitlines()[-1])
    real = d["realistic"]
    mbs = real["bytes"] / MB
    rows = []
    for fn in ("redact", "sanitize_text"):
        r = real[fn]
        fast = r["mb_per_s"] >= goal
        rows.append(row(f"{fn}: realistic {mbs:.0f} MB training log ≥ {goal} MB/s (one core)",
                        f"{r['mb_per_s']:.0f} MB/s ({r['t_full_s']:.2f} s)", judge(fast),
                        "" if fast else (f"{goal - r['mb_per_s']:.1f} MB/s under the goal in one run of "
                                         f"{mbs:.0f} MB on this machine (a busy machine slows it: rerun on a "
                                         "quiet one before trusting a single run)"),
                        mb_per_s=r["mb_per_s"]))
        linear = r["ratio_4x"] is not None and r["ratio_4x"] <= RATIO_MAX
        if ctx.quick:  # same rule as the adversarial rows: a 0.5 MB N gives no verdict on a shared machine
            status, note = INFO, "--quick: N is too small for a verdict (millisecond timings on a shared machine)"
        else:
            status = judge(linear)
            note = "" if linear else (f"time grew {r['ratio_4x']} x for 4x the input: more than linear "
                                      "(rerun on a quiet machine before trusting a single run)")
        rows.append(row(f"{fn}: realistic log linear (t(4N)/t(N) ≈ 4, ≤ {RATIO_MAX:g})",
                        f"{r['ratio_4x']:.2f} (N = {real['quarter_bytes'] / MB:.1f} MB)", status, note,
                        ratio=r["ratio_4x"]))
    left = max(real[fn]["secrets_left"] for fn in ("redact", "sanitize_text"))
    rows.append(row("Realistic log: every planted secret redacted (sanity: the redactor did its work)",
                    f"{real['secrets_planted']} planted, {real['redact']['markers']} markers, {left} left",
                    judge(left == 0), "" if left == 0 else "planted secrets survived redaction",
                    secrets_left=left))
    adv = d["adversarial"]
    for fn in ("redact", "sanitize_text"):
        res = {case: r[fn] for case, r in adv.items()}
        slow = sorted(((c, r) for c, r in res.items() if r["mb_per_s"] < goal), key=lambda cr: cr[1]["mb_per_s"])
        worst_c, worst = min(res.items(), key=lambda cr: cr[1]["mb_per_s"])
        note = ""
        if slow:
            listed = "; ".join(f"{c} {r['mb_per_s']:.1f}" for c, r in slow[:8])
            note = (f"{len(slow)} input(s) under {goal} MB/s, worst {worst_c} at {worst['mb_per_s']:.1f} MB/s "
                    f"({goal / worst['mb_per_s']:.1f}× short) [MB/s: {listed}]. "
                    + _limit_from_profile(d.get("worst_profile", {}).get(fn)))
        rows.append(row(f"{fn}: {len(res)} adversarial inputs ≥ {goal} MB/s (N = {adv_n // 1024} KiB, 4N)",
                        f"{len(res) - len(slow)}/{len(res)} ≥ {goal} MB/s; worst {worst_c}: {worst['mb_per_s']:.1f} MB/s",
                        judge(not slow), note, worst_mb_per_s=worst["mb_per_s"], below=len(slow)))
        ratios = {c: r["ratio_4x"] for c, r in res.items()}
        nonlin = {c: v for c, v in ratios.items() if v is None or v > RATIO_MAX}
        known = [v for v in ratios.values() if v is not None]
        worst_r = max(ratios, key=lambda c: ratios[c] if ratios[c] is not None else float("inf"))
        status = judge(not nonlin) if not ctx.quick else INFO
        note = "; ".join(f"{c}: {v if v is None else round(v, 2)} ({res[c]['mb_per_s']:.1f} MB/s at 4N, "
                         f"{res[c].get('mb_per_s_at_n') or 0:.0f} MB/s at N)" for c, v in nonlin.items())
        for c in nonlin:
            note += " " + _nonlinear_cause(c, (d.get("nonlinear_profile") or {}).get(fn, {}).get(c))
        if ctx.quick:
            note = "--quick: N is too small for a verdict (millisecond timings on a shared machine); " + note
        rows.append(row(f"{fn}: adversarial inputs linear (t(4N)/t(N) ≤ {RATIO_MAX:g}; 16 would be quadratic)",
                        f"max {max(known):.2f} ({worst_r}), median {statistics.median(known):.2f}" if known else "n/a",
                        status, note, max_ratio=max(known) if known else None))
    colds = [(c, fn, r[fn]) for c, r in adv.items() for fn in r if r[fn].get("t_cold_first_pass_s")]
    if colds:
        c, fn, r = max(colds, key=lambda x: x[2]["t_cold_first_pass_s"])
        rows.append(row("First pass over a new input shape in a process (info: re2 builds its DFA lazily)",
                        f"worst {fn} on {c}: {r['t_cold_first_pass_s'] * 1000:.0f} ms for {r['bytes_n'] // 1024} KiB "
                        f"(steady state {r['t_n_s'] * 1000:.1f} ms)", INFO,
                        worst_cold_s=r["t_cold_first_pass_s"]))
    return {"rows": rows, "data": d}


def _limit_from_profile(prof: dict | None) -> str:
    """'What limits it', read off the profile of the slowest input: where the self time goes, and whether the
    Python work runs per character, per match or once."""
    if not prof or not prof.get("top"):
        return ""
    top = prof["top"]
    parts = ", ".join(f"{t['function']} {t['self_share'] * 100:.0f}% ({t['calls']:,} calls)" for t in top[:3])
    nbytes, units = prof["bytes"], prof.get("units")
    first = top[0]
    per_char = [t for t in top[:3] if t["calls"] >= 0.5 * nbytes and t["self_share"] >= 0.2]
    per_match = [t for t in top[:3] if units and t["calls"] >= 0.5 * units]
    if "re2._re2.Match" in first["function"] and first["calls"] <= 10:
        why = ("the time is inside re2's C++ scan, not Python: one long unbroken token likely exhausts re2's DFA "
               "memory budget (re2.Options.max_mem) so that re2 falls back to its slower NFA")
    elif per_char:
        why = (f"Python code runs per character ({per_char[0]['calls']:,} calls for {nbytes:,} bytes) over one "
               "long candidate value")
    elif per_match:
        why = (f"a Python callback and re2-wrapper objects per match ({per_match[0]['calls']:,} calls for "
               f"{units:,} repeated units); the re2 scan itself is linear")
    else:
        why = "per-call overhead in the functions below"
    return f"Limit (profile of {prof['case']} at N): {why}. Top self time: {parts}."


def _nonlinear_cause(case: str, top: list[dict] | None) -> str:
    if not top:
        return ""
    t0 = top[0]
    if "re2._re2.Match" in t0["function"] and t0["calls"] <= 10:
        return (f"Limit for {case}: {t0['self_share'] * 100:.0f}% of the time is inside re2's C++ scan "
                f"({t0['calls']} call(s)), not Python: a long unbroken token keeps so many DFA states alive that "
                "re2 likely exhausts its DFA memory budget (re2.Options.max_mem in guardrails/redaction.py) and "
                "falls back to its much slower NFA: linear again past the cliff, but slower per byte.")
    return f"Limit for {case}: top self time " + ", ".join(
        f"{t['function']} {t['self_share'] * 100:.0f}% ({t['calls']:,} calls)" for t in top[:3]) + "."


# ============================================================================================== driver
ITEMS: list[tuple[str, str, Callable[[Ctx], dict]]] = [
    ("replay", "1. Replayed diagnosis time", item_replay),
    ("cpu", "1b. CPU per diagnosis", item_cpu),
    ("live_latency", "2. Live latency vs round trips", item_live_latency),
    ("requests", "3. Requests vs the skill's minimum", item_requests),
    ("redaction", "4. Redaction throughput", item_redaction),
    ("cli_startup", "5. CLI start-up", item_cli_startup),
    ("cold_cli", "5b. Cold CLI: a full failed run", item_cold_cli),
    ("memory", "6. Memory (peak RSS)", item_memory),
    ("hostile", "7. Hostile server: a 4 GiB body", item_hostile),
    ("triage", "8. Fleet triage (2,000 workloads)", item_triage),
    ("serve", "9. HTTP service under load", item_serve),
]


def print_table(results: dict, console) -> None:
    from rich.table import Table

    style = {PASS: "bold green", MISS: "bold red", SKIP: "yellow", INFO: "dim", ERROR: "bold magenta"}
    table = Table(title=f"workload-diagnose bench{' (--quick)' if results['quick'] else ''}", expand=True)
    table.add_column("target", ratio=5)
    table.add_column("measured", ratio=6)
    table.add_column("result", no_wrap=True)
    for item in results["items"].values():
        table.add_row(f"[bold]{item['title']}[/]", "", "")
        for r in item["rows"]:
            table.add_row("  " + r["target"], r["measured"], f"[{style.get(r['status'], '')}]{r['status']}[/]")
        table.add_section()
    console.print(table)
    flagged = [(item["title"], r) for item in results["items"].values() for r in item["rows"]
               if r["status"] in (MISS, SKIP, ERROR)]
    for title, r in flagged:
        color = style.get(r["status"], "")
        console.print(f"[{color}]{r['status']}[/] {title} — {r['target']}\n    measured: {r['measured']}"
                      + (f"\n    {r['note']}" if r["note"] else ""), highlight=False)
    s = results["summary"]
    m = results["machine"]
    console.print(f"\n{s['PASS']} PASS, {s['MISS']} MISS, {s['SKIP']} SKIP, {s['ERROR']} ERROR in "
                  f"{results['duration_s']:.0f} s on {m['cpus']} CPUs (load average {m['loadavg_start']} at the "
                  f"start, {m['loadavg_end']} at the end) → {results['out']}", highlight=False)


def _loadavg() -> str:
    try:
        return "/".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m workload_diagnose.evals.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="out/bench.json", help="JSON results (default: out/bench.json)")
    ap.add_argument("--quick", action="store_true", help="fast subset: smaller inputs, fewer runs, no apiserver")
    ap.add_argument("--only", default="", help="comma-separated items: " + ",".join(k for k, _, _ in ITEMS))
    args = ap.parse_args(argv)
    from rich.console import Console

    console = Console(stderr=False, width=None if sys.stdout.isatty() else 160)
    err = Console(stderr=True)
    only = {x.strip() for x in args.only.split(",") if x.strip()}
    unknown = only - {k for k, _, _ in ITEMS}
    if unknown:
        ap.error(f"unknown item(s): {', '.join(sorted(unknown))}")
    ctx = Ctx(args.quick, lambda m: err.print(f"[dim]  {m}[/]", highlight=False))
    t0 = time.perf_counter()
    results: dict = {
        "version": 1, "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "quick": args.quick,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                    "loadavg_start": _loadavg()},
        "reference": {"llm_loop_agent_seconds": LLM_AGENT_SECONDS, "llm_loop_agent_dollars": LLM_AGENT_DOLLARS},
        "items": {},
    }
    for key, title, fn in ITEMS:
        if only and key not in only:
            continue
        err.print(f"[bold]{title}[/] …", highlight=False)
        ti = time.perf_counter()
        try:
            res = fn(ctx)
        except Exception as e:  # the bench reports its own failure instead of dying half-way
            res = {"rows": [row(title, "bench error", ERROR, f"{type(e).__name__}: {e}"[:600])],
                   "data": {"traceback": traceback.format_exc()}}
        res["title"] = title
        res["duration_s"] = time.perf_counter() - ti
        results["items"][key] = res
    results["duration_s"] = time.perf_counter() - t0
    results["machine"]["loadavg_end"] = _loadavg()
    summary = {s: 0 for s in (PASS, MISS, SKIP, INFO, ERROR)}
    missed = []
    for item in results["items"].values():
        for r in item["rows"]:
            summary[r["status"]] += 1
            if r["status"] == MISS:
                missed.append({"item": item["title"], "target": r["target"], "measured": r["measured"],
                               "note": r["note"]})
    results["summary"] = {**summary, "missed": missed}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    results["out"] = str(out)
    out.write_text(json.dumps(results, indent=2, default=str) + "\n")
    print_table(results, console)
    return 1 if summary[ERROR] else 0


if __name__ == "__main__":
    sys.exit(main())
