"""A fleet world for the simulator: N workloads over M nodes, each a copy of a REAL bundled scenario world (so its
verdict is known: the scenario's ``case.json`` says it), renamed so that every copy is its own workload.

A copy rewrites, consistently through the whole scenario world (events, pods, history, specs, metrics, messages):
the workload id (a fresh UUID), the workload name (``<name>-<i>``: the pod names follow), the cluster id, the
project (and its ``runai-<project>`` namespace), the node names of its pods (a fleet node), and optionally shifts
every timestamp back (``age``) so that the triage window has something to leave out. Node failures land on a few
"bad" nodes, everything else anywhere, so the same-node pattern is there to be found.

``fleet_world(...)["fleet"]`` records, per workload id, the scenario it came from (the simulator ignores the key).
"""
from __future__ import annotations

import json
import random
import re
import uuid
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from pathlib import Path

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
NOW = "2026-11-20T12:00:00Z"  # the pinned clock of every template below (their case.json ``now``)
CLUSTER = "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
PROJECTS = {"ml-team": "research", "vision": "research", "nlp": "product"}  # project → department

# (scenario, weight, placement): "bad" = on one of the few failing nodes, "any" = anywhere.
# Terminal failures (Failed/Stopped) of every category, two routed ones, and active candidates
# (Running/Pending: a CrashLoopBackOff, pull and mount failures, a healthy run and a scheduling wait).
TEMPLATES: tuple[tuple[str, int, str], ...] = (
    ("core/oom-metrics", 6, "any"), ("oom/exit137-and-oomkilled", 4, "any"), ("oom/history-only", 3, "any"),
    ("core/oom-recurring-no-samples", 2, "any"),
    ("image-pull/failed-after-timeout", 5, "any"),
    ("core/init-exit", 3, "any"), ("init/pod-init-exitcode", 2, "any"),
    ("mount/failed-from-history", 4, "any"), ("mount/nfs-exit-status", 2, "any"),
    ("core/crash-exit-code", 6, "any"), ("crash/exit-139-segfault", 3, "any"), ("crash/exit-127", 2, "any"),
    ("core/node-notready", 4, "bad"), ("node/evicted-memory-pressure", 3, "bad"),
    ("node/taint-manager-eviction", 2, "bad"), ("node/exit-143-notready", 2, "bad"),
    ("core/policy-idle", 3, "any"), ("policy/active-deadline", 2, "any"), ("policy/max-duration", 2, "any"),
    ("core/exit-137-unexplained", 2, "any"), ("unknown/no-evidence", 2, "any"),
    ("core/route-preempted", 2, "any"),
    ("crash/running-crashloop-exit-1", 2, "any"), ("core/image-pull-manifest", 2, "any"),
    ("image-pull/unauthorized", 2, "any"), ("core/mount-pvc", 2, "any"),
    ("core/route-running-healthy", 1, "any"), ("core/route-pending", 1, "any"),
)
_TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")


@lru_cache(maxsize=None)
def template(name: str) -> tuple[str, dict, dict]:
    """(world text, the world's one workload, the case's ``expected``) of a bundled scenario."""
    d = SCENARIOS / name
    text = (d / "world.json").read_text()
    world = json.loads(text)
    case = json.loads((d / "case.json").read_text())
    if len(world["workloads"]) != 1 or case["args"].get("now") != NOW or world.get("faults"):
        raise ValueError(f"scenario {name} cannot be a fleet template (one workload, now={NOW}, no faults)")
    return text, world["workloads"][0], case["expected"]


def node_names(count: int) -> list[str]:
    return [f"dgx-{i:02d}" for i in range(1, count + 1)]


def fleet_world(n: int, nodes: int = 40, *, seed: int = 7, bad_nodes: int = 2, old_every: int = 0,
                cluster_id: str = CLUSTER, templates: tuple[tuple[str, int, str], ...] = TEMPLATES) -> dict:
    """A world of ``n`` workloads over ``nodes`` nodes; every ``old_every``-th copy (0: none) is 3 days older."""
    rng = random.Random(seed)
    fleet_nodes = node_names(nodes)
    bad = fleet_nodes[:max(1, min(bad_nodes, nodes))]
    names = [t[0] for t in templates]
    weights = [t[1] for t in templates]
    placement = {t[0]: t[2] for t in templates}
    projects = list(PROJECTS)
    out: dict = {"workloads": [], "events": {}, "pods": {}, "history": {}, "metrics": {}, "specs": {},
                 "fleet": {"now": NOW, "cluster_id": cluster_id, "nodes": fleet_nodes, "bad_nodes": bad,
                           "templates": {}}}
    for i in range(n):
        name = names[i] if i < len(names) else rng.choices(names, weights)[0]  # every template at least once
        project = projects[rng.randrange(len(projects))]
        pool = bad if placement[name] == "bad" else fleet_nodes
        age = timedelta(days=3) if old_every and i % old_every == old_every - 1 else timedelta(0)
        world, wid = _copy(name, i, cluster_id, project, lambda: pool[rng.randrange(len(pool))], age, seed)
        for key in ("events", "pods", "history", "metrics", "specs"):
            if wid in (world.get(key) or {}):
                out[key][wid] = world[key][wid]
        out["workloads"] += world["workloads"]
        out["fleet"]["templates"][wid] = name
    return out


def _copy(name: str, i: int, cluster_id: str, project: str, pick_node, age: timedelta, seed: int
          ) -> tuple[dict, str]:
    text, w, _ = template(name)
    wid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"fleet/{seed}/{i}"))
    subs = [(w["id"], wid), (w["clusterId"], cluster_id)]
    subs.append((w["name"], f"{w['name']}-{i:04d}"))
    if w.get("projectName"):
        subs.append((w["projectName"], project))
    for node in sorted(_pod_nodes(text), key=len, reverse=True):
        subs.append((node, pick_node()))
    for old, new in subs:
        text = re.sub(r"(?<![\w.])" + re.escape(old) + r"(?![\w])", lambda _m, v=new: v, text)
    if age:
        text = _TS.sub(lambda m: _shift(m.group(0), age), text)
    world = json.loads(text)
    world["workloads"][0]["departmentName"] = PROJECTS[project]
    return world, wid


def _pod_nodes(text: str) -> set[str]:
    world = json.loads(text)
    return {p["nodeName"] for ps in (world.get("pods") or {}).values() for p in ps if p.get("nodeName")}


def _shift(ts: str, age: timedelta) -> str:
    t = datetime.fromisoformat(ts.replace("Z", "+00:00")) - age
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + (ts[19:-1] if "." in ts else "") + "Z"


def expected(world: dict) -> dict[str, dict]:
    """Per workload id: the scenario it was copied from and that scenario's expected verdict."""
    return {wid: {"scenario": name, **template(name)[2]} for wid, name in world["fleet"]["templates"].items()}


def write(path: str | Path, n: int, nodes: int = 40, **kw) -> Path:
    p = Path(path)
    p.write_text(json.dumps(fleet_world(n, nodes, **kw)))
    return p
