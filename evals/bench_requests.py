"""Benchmark helpers for the API side (issue 6, items 2 and 3).

* :func:`run_live` runs one scenario against a fresh simulator (optionally with a per-request delay) and records
  every request with the status it was answered with, plus the simulator's ``max_inflight`` counter.
* :func:`skill_minimum` derives, from the scenario's *world* and its case (arguments + expected verdict), the
  requests the skill needs and the dependent round trips they take, without looking at what the client did:

  ====================================  ==============================================================
  missing identifiers                   0 (the skill asks before calling any tool)
  any request at all                    + the token exchange (1; 2 when the world has no v1 token flow)
  Option B                              + list pages (exact name/cluster/project matches, limit 50)
  Option B, intent=active               + get_workload_status (workload + events) per Running/Pending
                                          candidate probed newest-first until one confirms the symptom
  get_workload_status                   + workload + events (1 page), unless the probe already fetched it
  stop at phase / route                 nothing more
  full Tier-1 path                      + spec (when the workload kind has a spec endpoint) + pod pages
                                          + history pages until ``next`` is null or a record is older than
                                          the lookback cutoff (+ metrics when status/pods/history in the
                                          window show OOMKilled or exit 137)
  ====================================  ==============================================================

  Retries the world forces (``events: null`` makes the events endpoint answer 500 on every attempt) are counted
  apart from the minimum: they are the client's retry policy, not extra reads.
"""
from __future__ import annotations

import inspect
import json
import math
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from workload_diagnose.agent.model import phases
from workload_diagnose.evals.scenarios import Scenario

TERMINAL = phases.ENDED
STOP_AT_PHASE = {"cluster_mismatch", "completed", "suspended", "phase_not_terminal", "pending_scheduling",
                 "running_without_failure"}
PAGE = 50  # the skill's limit=50 (history) and the client's page size (lists, pods, events)

_OOM = re.compile(r"\boom|oomkill|out of memory|\b137\b", re.I)
_PREEMPT = re.compile(r"preempt", re.I)
_RUNNING_CONFIRMS = re.compile(r"CrashLoopBackOff|restarting failed container|repeated(?:ly)? (?:container )?crash",
                               re.I)
_PENDING_CONFIRMS = re.compile(r"ImagePullBackOff|ErrImagePull|Failed to pull image|FailedMount|Init:|"
                               r"init container|CreateContainer(?:Config)?Error|FailedAttachVolume", re.I)


class Evidence:
    """The text the skill may read signals from: structured reasons as they are, free-text messages with every
    object name of the world masked (a workload named ``oomkilled-repro`` or an image ``…:oomkilled`` is not
    evidence), never names, images or ids themselves."""

    def __init__(self, world: dict):
        names: set[str] = set()
        for w in world.get("workloads") or []:
            names |= {w.get("name") or "", w.get("projectName") or "", w.get("namespace") or "",
                      f"runai-{w.get('projectName')}" if w.get("projectName") else ""}
        for pods in (world.get("pods") or {}).values():
            for p in pods or []:
                names |= {p.get("name") or "", p.get("nodeName") or ""}
                for c in p.get("containers") or []:
                    names |= {c.get("name") or "", c.get("image") or ""}
        evs = [e for lst in (world.get("events") or {}).values() for e in lst or []]
        evs += [(r.get("spec") or {}).get("event") for recs in (world.get("history") or {}).values()
                for r in recs or [] if isinstance(r, dict)]
        for e in evs:
            if isinstance(e, dict):
                names.add(((e.get("involvedObject") or {}).get("name")) or "")
        names = {n for n in names if len(n) >= 2}
        alts = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
        self._mask = re.compile(rf"(?<![A-Za-z0-9])(?:{alts})(?![A-Za-z0-9])") if alts else None

    def msg(self, text: Any) -> str:
        t = text if isinstance(text, str) else ""
        return self._mask.sub("<name>", t) if self._mask and t else t

    def workload(self, w: dict) -> str:
        parts = [w.get("phaseReason") or "", w.get("k8sPhase") or "", self.msg(w.get("phaseMessage"))]
        for c in w.get("conditions") or []:
            parts += [c.get("reason") or "", self.msg(c.get("message"))]
        return " | ".join(parts)

    def events(self, evs: list[dict] | None) -> str:
        return " | ".join(f"{e.get('reason') or ''} {self.msg(e.get('message'))}" for e in evs or [])

    def pods(self, pods: list[dict]) -> str:
        parts = []
        for p in pods or []:
            parts.append(p.get("k8sPhase") or "")
            for c in p.get("containers") or []:  # status fields only (never the name or the image)
                parts.append(json.dumps({k: v for k, v in c.items() if k not in ("name", "image")}, sort_keys=True))
        return " | ".join(parts)

    def history(self, recs: list[dict]) -> str:
        parts = []
        for r in recs or []:
            spec = r.get("spec") or {}
            ev, pu = spec.get("event") or {}, spec.get("phaseUpdate") or {}
            parts += [ev.get("reason") or "", self.msg(ev.get("message")), pu.get("phase") or "",
                      self.msg(pu.get("phaseMessage"))]
        return " | ".join(parts)

# ------------------------------------------------------------------------------------------ live runs
@dataclass
class LiveRun:
    result: Any
    wall_s: float
    requests: list[tuple[str, str, int | None]]  # (method, path?query, status answered; None = no answer)
    max_inflight: int


def run_live(sc: Scenario, delay_ms: int = 0, world: Any = None) -> LiveRun:
    from workload_diagnose.agent.api import diagnose
    from workload_diagnose.evals.runner import _kwargs

    from workload_diagnose.evals.simulator import running_simulator

    with running_simulator(world if world is not None else sc.world, delay_ms=delay_ms) as sim:
        t0 = time.perf_counter()
        res = diagnose(**_kwargs(sc), runai_url=sim.url, client_id=sim.client_id, client_secret=sim.client_secret,
                       use_kube=False, retry_sleep=lambda s: None)
        wall = time.perf_counter() - t0
        with sim.lock:
            arrived = list(sim.requests)
            answered = list(sim.answered)
        max_inflight = sim.max_inflight
    # pair each arrival with its answer (same method+path, in order)
    pending: dict[tuple[str, str], list[int]] = {}
    for m, p, code in answered:
        pending.setdefault((m, p), []).append(code)
    reqs = []
    for m, p in arrived:
        codes = pending.get((m, p)) or []
        reqs.append((m, p, codes.pop(0) if codes else None))
    return LiveRun(res, wall, reqs, max_inflight)


def classify_repeats(reqs: list[tuple[str, str, int | None]]) -> tuple[int, list[str]]:
    """(retries, duplicates): a repeat of a request whose earlier answer was 5xx/429/none is a retry; any other
    repeat of the same method+path+query is a duplicate."""
    seen: dict[tuple[str, str], list[int | None]] = {}
    retries, dups = 0, []
    for m, p, code in reqs:
        prev = seen.setdefault((m, p), [])
        if prev:
            if all(c is None or c == 429 or c >= 500 for c in prev):
                retries += 1
            else:
                dups.append(f"{m} {p}")
        prev.append(code)
    return retries, dups


# --------------------------------------------------------------------------------------- the oracle
@dataclass
class Minimum:
    total: int
    depth: int  # dependent round trips on the critical path
    path: str
    breakdown: dict[str, int] = field(default_factory=dict)
    forced_retries: int = 0  # retries the world forces (not part of the minimum)
    forced_retry_depth: int = 0
    notes: list[str] = field(default_factory=list)


def _ts(v: str | None) -> float:
    from workload_diagnose.evals.simulator import _ts as sim_ts

    return sim_ts(v)


def _max_attempts() -> int:
    from workload_diagnose.tools.runai import RunaiClient

    return int(inspect.signature(RunaiClient.__init__).parameters["max_attempts"].default)


def _pages(n: int) -> int:
    return max(1, math.ceil(n / PAGE))


def history_pages(records: list[dict], cutoff: float) -> tuple[int, int]:
    """(pages the skill must read, records inside the lookback): newest first, limit 50, stop at ``next`` null
    or at the first page that holds a record older than the cutoff."""
    ts = sorted((_ts((r.get("meta") or {}).get("creationTimestamp")
                     or ((r.get("spec") or {}).get("event") or {}).get("createdAt")) for r in records), reverse=True)
    inside = sum(1 for t in ts if not t or t >= cutoff)
    older_exists = inside < len(ts)
    pages = _pages(len(ts))
    if older_exists:
        pages = min(pages, inside // PAGE + 1)
    return pages, inside


def skill_minimum(sc: Scenario) -> Minimum:
    from workload_diagnose.agent.model.time import parse_lookback, parse_now
    from workload_diagnose.evals.simulator import World, complete_event
    from workload_diagnose.tools.runai import spec_kind_path

    a, exp = sc.args, sc.expected
    if not a.complete:
        return Minimum(0, 0, "missing parameters: ask before any tool call")
    w = World.load(sc.world)
    data = w.data
    evid = Evidence(data)
    bd: Counter = Counter()
    depth = 0
    token = 2 if (data.get("auth") or {}).get("v1", True) is False else 1
    bd["token"] = token
    depth += token
    attempts = _max_attempts()
    forced, forced_depth = 0, 0

    def events_of(wl: dict) -> list[dict] | None:
        evs = (data.get("events") or {}).get(wl["id"], [])
        if evs is None:
            return None
        evs = sorted((complete_event(e, wl) for e in evs), key=lambda e: _ts(e["createdAt"]), reverse=True)
        return evs[:PAGE]

    def status_requests(wl: dict | None) -> None:
        nonlocal depth, forced, forced_depth
        bd["get_workload_status (workload)"] += 1
        bd["get_workload_status (events)"] += 1
        depth += 1
        if wl is not None and events_of(wl) is None:  # events: null → HTTP 500 on every attempt
            forced += attempts - 1
            forced_depth += attempts - 1

    selected: dict | None = None
    status_done = False
    if a.workload_id:
        selected = w.workload(a.workload_id)
    else:
        cands = [x for x in w.workloads() if x.get("name") == a.workload_name and x.get("clusterId") == a.cluster_id
                 and x.get("projectName") == a.project]
        cands.sort(key=lambda x: _ts(x.get("phaseUpdatedAt")), reverse=True)
        lp = _pages(len(cands))
        bd["list_workloads pages"] = lp
        depth += lp
        if a.intent == "terminal":
            selected = next((x for x in cands if (x.get("phase") or "").lower() in TERMINAL), None)
        else:
            for x in cands:
                phase = (x.get("phase") or "").lower()
                if phase not in ("running", "pending"):
                    continue
                status_requests(x)
                txt = evid.workload(x) + " | " + evid.events(events_of(x))
                ok = bool(_RUNNING_CONFIRMS.search(txt)) if phase == "running" else \
                    bool(_PENDING_CONFIRMS.search(txt)) and not _PREEMPT.search(txt)
                if ok:
                    selected, status_done = x, True
                    break
        if selected is None:
            return Minimum(sum(bd.values()), depth, "Option B: no matching candidate, ask for the workload ID",
                           dict(bd), forced, forced_depth)
    if not status_done:
        status_requests(selected)
    if selected is None:
        return Minimum(sum(bd.values()), depth, "workload not found (404): ask for the workload ID", dict(bd),
                       forced, forced_depth)

    status_txt = evid.workload(selected) + " | " + evid.events(events_of(selected))
    route = exp.route
    if route in STOP_AT_PHASE or (route == "preempted" and _PREEMPT.search(status_txt)) or \
            route == "no_matching_workload":
        return Minimum(sum(bd.values()), depth, f"stop at phase check ({route})", dict(bd), forced, forced_depth)

    # full Tier-1 path: spec, pods, history concurrently (+ metrics when OOM / exit 137 evidence)
    wid = selected["id"]
    now = parse_now(a.now)
    cutoff = (now - parse_lookback(a.lookback)).timestamp()
    spec = 1 if spec_kind_path(selected.get("type")) else 0
    pods = (data.get("pods") or {}).get(wid, []) or []
    pod_pages = _pages(len(pods))
    hist = (data.get("history") or {}).get(wid, []) or []
    hp, inside = history_pages(hist, cutoff)
    bd["get_workload_spec"] = spec
    bd["get_workload_pods pages"] = pod_pages
    bd["get_workload_history pages"] = hp
    notes = [f"history: {len(hist)} records, {inside} inside the {a.lookback} lookback → {hp} page(s)"]
    fan_depth = max(spec, pod_pages, hp)
    metrics = 0
    if exp.outcome == "diagnosed":
        from workload_diagnose.evals.checks import minimum_calls

        # whether metrics are needed is the skill's rule, decided once (evals.checks: OOMKilled or an exit 137
        # that stays unexplained); the text only says whether the status already shows it (latency depth)
        if minimum_calls(sc, data).get("get_workload_metrics"):
            metrics = 1
            if not _OOM.search(status_txt):
                fan_depth += 1  # metrics can only be asked for once pods/history showed the OOM/137 evidence
    bd["get_workload_metrics"] = metrics
    depth += fan_depth
    path = "full Tier-1 path" + (" + metrics (OOM / exit 137)" if metrics else "")
    if route == "preempted":
        path = "Tier-1 reads, then routed: preemption in pod/history evidence"
    return Minimum(sum(bd.values()), depth, path, dict(bd), forced, forced_depth, notes)
