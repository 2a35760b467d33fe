"""``workload-diagnose simulate`` as a playground: a world moved to the real clock, and the banner that says how to
use it.

A recorded world is pinned to its date: read today, a week-old failure is outside every lookback and a triage
window finds nothing. ``shifted`` moves every timestamp of a world by one offset (so every relative time stays
exactly as recorded) such that the world's own "now" is the real one: a scenario's ``case.json`` ``now``, a
fleet's ``now``, else the newest time the world holds. ``--keep-time`` keeps the recorded times; the banner then
prints the ``--now`` to pass instead.

The banner prints the ``export`` lines of the simulator's URL and credentials, the cluster it serves (name and
id) and ready-to-paste commands naming a real workload of the world (``failed`` by name and project on the
cluster's name, ``triage``, ``ask``).
"""
from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

# every timestamp a world holds (the API's ISO 8601 form, with or without a zone)
_TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?")
PREFERRED = ("failed", "stopped")  # a workload the banner's commands name: a terminal failure first


@dataclass
class Served:
    """What ``simulate`` serves: the world, the case it came with (``case.json`` args, when any), words for it."""

    world: dict
    label: str
    args: dict | None = None
    reference: str | None = None  # the world's own "now" (ISO 8601), None when it holds no time at all
    reference_from: str = ""  # where that came from
    shifted_by: timedelta | None = None


def _parse(ts: str) -> datetime:
    t = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def _format(t: datetime, like: str) -> str:
    """``t`` written as ``like`` was: the same fraction digits and zone style (Z, an offset, or none)."""
    frac = re.search(r"\.\d+", like)
    zone = "Z" if like.endswith("Z") else (like[-6:] if re.search(r"[+-]\d\d:\d\d$", like) else "")
    if zone and zone != "Z":
        t = t.astimezone(timezone(timedelta(hours=int(zone[:3]), minutes=int(zone[0] + zone[4:]))))
    else:
        t = t.astimezone(timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + (frac.group(0) if frac else "") + zone


def newest_time(world: dict) -> str | None:
    found = [(_parse(m), m) for m in _TS.findall(json.dumps(world))]
    return max(found)[1] if found else None


def locate(served: Served) -> None:
    """Fill ``reference``: the case's ``now``, a fleet's ``now``, else the newest time in the world."""
    fleet_now = (served.world.get("fleet") or {}).get("now") if isinstance(served.world.get("fleet"), dict) else None
    for value, origin in (((served.args or {}).get("now"), "the case's now"), (fleet_now, "the fleet's now"),
                          (newest_time(served.world), "the newest time in the world")):
        if value:
            served.reference, served.reference_from = value, origin
            return


def shifted(world: dict, by: timedelta) -> dict:
    """``world`` with every timestamp moved by ``by`` (relative times unchanged), in every field and message."""
    text = json.dumps(world)
    return json.loads(_TS.sub(lambda m: _format(_parse(m.group(0)) + by, m.group(0)), text))


def to_real_clock(served: Served, now: datetime | None = None) -> None:
    """Move the world so that its reference time is ``now`` (default: the real clock, to the second)."""
    if served.reference is None:
        return
    real = (now or datetime.now(timezone.utc)).replace(microsecond=0)
    by = real - _parse(served.reference)
    served.world = shifted(served.world, by)
    served.shifted_by = by
    if served.args and served.args.get("now"):
        served.args = {**served.args, "now": _format(real, served.args["now"])}


def _duration(d: timedelta) -> str:
    s = abs(int(d.total_seconds()))
    days, rest = divmod(s, 86400)
    return f"{'-' if d.total_seconds() < 0 else '+'}{days}d {rest // 3600}h {rest % 3600 // 60}m"


def _pick(world: dict, args: dict | None) -> dict | None:
    """The workload the commands name: the case's, else the first terminal failure, else the first one."""
    wls = [w for w in world.get("workloads") or [] if isinstance(w, dict)]
    if args and (args.get("workload_id") or args.get("workload_name")):
        for w in wls:
            if w.get("id") == args.get("workload_id") or (w.get("name") == args.get("workload_name")
                                                          and w.get("projectName") == args.get("project")):
                return w
    return next((w for w in wls if str(w.get("phase", "")).lower() in PREFERRED), wls[0] if wls else None)


def commands(served: Served, clusters: list[dict], keep_time: bool) -> list[str]:
    """Two or three commands to paste, naming a real workload of the world and its cluster by name."""
    args = served.args or {}
    w = _pick(served.world, args)
    if w is None:
        return []
    cid = args.get("cluster_id") or w.get("clusterId")
    name = next((c.get("name") for c in clusters if c.get("uuid") == cid), None)
    cluster = name or cid
    tail = ["--no-kube"] + (["--now", served.reference] if keep_time and served.reference else [])
    extra = [*(["--intent", args["intent"]] if args.get("intent") == "active" else []),
             *(["--lookback", args["lookback"]] if args.get("lookback", "7d") != "7d" else [])]
    project = w.get("projectName") or "default"
    if args.get("workload_id") or not (w.get("name") and w.get("projectName")):
        which = ["--workload-id", w["id"]]
    else:
        which = ["-p", project, "--workload-name", w["name"]]
    out = [shlex.join(["workload-diagnose", "failed", "--cluster-id", cluster, *which, *extra, *tail])]
    if cluster:
        out.append(shlex.join(["workload-diagnose", "triage", "--cluster-id", cluster, *tail]))
        if w.get("name"):
            question = f"why did {w['name']} in project {project} fail on cluster {cluster}?"
            out.append(shlex.join(["workload-diagnose", "ask", question, *tail]))
    return out


def banner(served: Served, url: str, client_id: str, client_secret: str, clusters: list[dict],
           keep_time: bool) -> str:
    """The lines ``simulate`` prints once it listens (stdout)."""
    wls = served.world.get("workloads") or []
    projects = sorted({w.get("projectName") or "default" for w in wls if isinstance(w, dict)})
    lines = [f"# Run:ai simulator serving {served.label} on {url} (Ctrl-C stops it)"]
    if served.shifted_by is not None:
        lines.append(f"# times moved by {_duration(served.shifted_by)} so that {served.reference_from} is now: every "
                     "relative time is as recorded (--keep-time keeps the recorded times)")
    elif served.reference:
        lines.append(f"# recorded times kept: pass --now {served.reference} ({served.reference_from}) to every "
                     "command")
    lines += [f"export RUNAI_BASE_URL={url}", f"export RUNAI_CLIENT_ID={client_id}",
              f"export RUNAI_CLIENT_SECRET={client_secret}"]
    for c in clusters:
        lines.append(f"# cluster {c.get('name')} ({c.get('uuid')}): {len(wls)} workload(s) in project(s) "
                     f"{', '.join(projects)}" if len(clusters) == 1 else f"# cluster {c.get('name')} ({c.get('uuid')})")
    try_these = commands(served, clusters, keep_time)
    if try_these:
        lines.append("# try, in a shell with the export lines above (docs/try-it.md walks through every command):")
        lines += try_these
    return "\n".join(lines)


def describe_args(args: Any) -> dict | None:
    """A scenario's ``CaseArgs`` as a plain dict (None stays None)."""
    return None if args is None else (args.model_dump() if hasattr(args, "model_dump") else dict(args))


EXPORTED = ("RUNAI_BASE_URL", "RUNAI_CLIENT_ID", "RUNAI_CLIENT_SECRET")


def read_exports(stream: Any, max_lines: int = 40) -> dict[str, str]:
    """The ``export K=V`` lines of a running ``simulate``'s banner (read from its stdout until all three are there)."""
    found: dict[str, str] = {}
    for _ in range(max_lines):
        line = stream.readline()
        if not line:
            break
        key, sep, value = line.strip().removeprefix("export ").partition("=")
        if sep and key in EXPORTED:
            found[key] = value
        if len(found) == len(EXPORTED):
            break
    return found
