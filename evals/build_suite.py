"""Builders for the bundled scenario suites (everything except ``core/``, which is hand-written).

The JSON files under ``evals/scenarios/<suite>/<name>/`` are the source of truth; this module is only a
convenient, reviewable way to write many of them consistently. Regenerate and re-record with::

    python -m evals.build_suite [suite/name ...]        # rewrites world.json + case.json (never cassettes)
    workload-diagnose eval --record <suite>[/<name>]    # records cassette.yaml from the simulator

Rules kept by every builder (see ``shared/seeds/runai-diagnose-failed-workload.md``):

* names stay neutral, except in ``names/`` where they deliberately contain trigger words: the verdict must
  come from the evidence (reasons and system messages), never from a name;
* reasons and messages are the ones Kubernetes / Run:ai components really write (kubelet, scheduler,
  taint manager, containerd), see ``shared/reference/runai-api.md``;
* ``expected`` is the verdict the skill's rules give for that evidence, written before running the diagnosis.
"""
from __future__ import annotations

import json
import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent / "scenarios"
CL = "3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11"
OTHER_CL = "9b1d4e22-51f0-4a8e-8c3d-7e6f5a4b3c21"
NOW = "2026-11-20T12:00:00Z"
IMG = "nvcr.io/nvidia/pytorch:24.05-py3"


def _uuid(*parts: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "workload-diagnose/evals/" + "/".join(parts)))


def ts(base: str, **delta) -> str:
    """``ts(NOW, hours=-2)`` → ISO timestamp relative to ``base``."""
    dt = datetime.fromisoformat(base.replace("Z", "+00:00")) + timedelta(**delta)
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def mem(request: str | None, limit: str | None) -> dict:
    out: dict[str, Any] = {"gpu": {"request": 1}, "cpu": {"request": 8}}
    cm = {k: v for k, v in (("request", request), ("limit", limit)) if v is not None}
    if cm:
        out["cpuMemory"] = cm
    return out


class S:
    """One scenario under construction."""

    def __init__(self, sid: str, description: str, *, tags: tuple[str, ...] = ()):
        self.sid = sid
        self.description = description
        self.tags = list(tags)
        self.workloads: list[dict] = []
        self.events: dict[str, list | None] = {}
        self.pods: dict[str, list] = {}
        self.history: dict[str, list] = {}
        self.metrics: dict[str, dict] = {}
        self.specs: dict[str, dict] = {}
        self.args: dict[str, Any] = {"now": NOW, "cluster_id": CL}
        self.expected: dict[str, Any] = {}
        self.extra: dict[str, Any] = {}
        self.known_defect: str | None = None  # the skill's verdict; the code disagrees (reported to the lead)
        self._n = 0

    # ------------------------------------------------------------------ world
    def workload(self, name: str, *, phase: str = "Failed", type_: str = "Training", project: str = "ml-team",
                 at: str = "2026-11-20T10:15:00Z", created: str | None = None, message: str | None = None,
                 reason: str | None = None, k8s: str = "", conditions: list | None = None,
                 resources: dict | None = None, cluster: str = CL, running: int = 0, select: bool = True,
                 key: str | None = None, **extra) -> str:
        self._n += 1
        wid = _uuid(self.sid, key or str(self._n))
        created = created or ts(at, hours=-1, minutes=-15)
        w: dict[str, Any] = {"id": wid, "name": name, "type": type_, "clusterId": cluster, "projectName": project,
                             "namespace": f"runai-{project}", "phase": phase, "phaseUpdatedAt": at,
                             "createdAt": created, "k8sPhase": k8s, "runningPods": running,
                             "requestedPods": {"number": 1}, "submittedBy": "researcher@example.com"}
        if message is not None:
            w["phaseMessage"] = message
        if reason is not None:
            w["phaseReason"] = reason
        if conditions:
            w["conditions"] = conditions
        if resources is not None:
            w["podsRequestedResources"] = resources
        if phase in ("Failed", "Completed", "Succeeded", "Stopped", "Crashed"):
            w["completedAt"] = at
        w.update(extra)
        self.workloads.append(w)
        self.events.setdefault(wid, [])
        self.pods.setdefault(wid, [])
        self.history.setdefault(wid, [])
        if select:
            self.args["workload_id"] = wid
        return wid

    def ev(self, wid: str, reason: str, message: str, at: str, obj: str | None = None, *, typ: str = "Warning",
           source: str = "kubelet", kind: str = "Pod") -> None:
        self.events[wid].append(event(reason, message, at, obj, typ=typ, source=source, kind=kind))

    def events_null(self, wid: str) -> None:
        self.events[wid] = None

    def pod(self, wid: str, name: str, k8s: str, *, node: str | None = "gpu-node-7", resources: dict | None = None,
            created: str | None = None, completed: str | None = None, containers: list | None = None,
            image: str = IMG, container: str = "trainer") -> None:
        w = next(x for x in self.workloads if x["id"] == wid)
        p: dict[str, Any] = {"name": name, "k8sPhase": k8s, "createdAt": created or ts(w["createdAt"], minutes=1),
                             "containers": containers if containers is not None else [
                                 {"name": container, "image": image, "startedAt": ts(w["createdAt"], minutes=2)}]}
        if node:
            p["nodeName"] = node
        if resources is not None:
            p["requestedResources"] = resources
        if completed:
            p["completedAt"] = completed
        self.pods[wid].append(p)

    def pu(self, wid: str, at: str, phase: str, message: str = "") -> None:
        self.history[wid].append({"meta": {"creationTimestamp": at, "type": "PhaseUpdate"},
                                  "spec": {"phaseUpdate": {"phase": phase, "phaseMessage": message}}})

    def hev(self, wid: str, at: str, reason: str, message: str, obj: str | None = None, *, typ: str = "Warning",
            source: str = "kubelet", kind: str = "Pod") -> None:
        self.history[wid].append({"meta": {"creationTimestamp": at, "type": "Event"},
                                  "spec": {"event": event(reason, message, at, obj, typ=typ, source=source,
                                                          kind=kind)}})

    def metric(self, wid: str, mtype: str, values: list[tuple[str, str]]) -> None:
        self.metrics.setdefault(wid, {})[mtype] = [{"value": v, "timestamp": t} for t, v in values]

    def spec(self, wid: str, *, image: str = IMG, command: str | None = "python train.py",
             mem_req: str | None = "32Gi", mem_lim: str | None = "32Gi", restart: str | None = "Never",
             **more) -> None:
        sp: dict[str, Any] = {"image": image}
        if command is not None:
            sp["command"] = command
        comp: dict[str, Any] = {"cpuCoreRequest": 8, "gpuDevicesRequest": 1}
        if mem_req is not None:
            comp["cpuMemoryRequest"] = mem_req
        if mem_lim is not None:
            comp["cpuMemoryLimit"] = mem_lim
        sp["compute"] = comp
        if restart:
            sp["restartPolicy"] = restart
        sp.update(more)
        self.specs[wid] = {"spec": sp}

    # ------------------------------------------------------------------ case
    def option_b(self, name: str, project: str = "ml-team", intent: str = "terminal") -> None:
        self.args.pop("workload_id", None)
        self.args.update(workload_name=name, project=project, intent=intent)

    def expect(self, outcome: str, category: str | None = None, route: str | None = None, *,
               recurrence: int | None = None, report_contains: tuple[str, ...] = (),
               report_excludes: tuple[str, ...] = ()) -> "S":
        self.expected = {"outcome": outcome, "category": category, "route": route}
        if recurrence is not None:
            self.expected["recurrence"] = recurrence
        if report_contains:
            self.expected["report_contains"] = list(report_contains)
        if report_excludes:
            self.expected["report_excludes"] = list(report_excludes)
        return self

    def world(self) -> dict:
        d: dict[str, Any] = {"workloads": self.workloads, "events": self.events, "pods": self.pods,
                             "history": self.history}
        if self.metrics:
            d["metrics"] = self.metrics
        if self.specs:
            d["specs"] = self.specs
        d.update(self.extra)
        return d

    def case(self) -> dict:
        order = ["now", "cluster_id", "workload_id", "workload_name", "project", "intent", "lookback"]
        args = {k: self.args[k] for k in order if self.args.get(k) is not None}
        case = {"description": self.description, "args": args, "expected": self.expected, "tier2": False,
                "tags": self.tags}
        if self.known_defect:
            case["known_defect"] = self.known_defect
        return case

    def write(self, root: Path = ROOT) -> Path:
        d = root / self.sid
        d.mkdir(parents=True, exist_ok=True)
        (d / "world.json").write_text(json.dumps(self.world(), indent=2) + "\n")
        (d / "case.json").write_text(json.dumps(self.case(), indent=2) + "\n")
        return d


def event(reason: str, message: str, at: str, obj: str | None = None, *, typ: str = "Warning",
          source: str = "kubelet", kind: str = "Pod") -> dict:
    e: dict[str, Any] = {"createdAt": at, "type": typ, "reason": reason, "message": message, "source": source}
    if obj:
        e["involvedObject"] = {"kind": kind, "name": obj}
    return e


def cond(typ: str, status: str, reason: str, message: str, at: str) -> dict:
    return {"type": typ, "status": status, "reason": reason, "message": message, "lastTransitionTime": at}


REGISTRY: list[Callable[[], S]] = []


def scenario(fn: Callable[[], S]) -> Callable[[], S]:
    REGISTRY.append(fn)
    return fn


def build_all() -> list[S]:
    import evals.build_suite as mod  # the registry of the imported module (also when run as __main__)
    from evals import suite_defs  # noqa: F401  (registers every builder)

    out = [fn() for fn in mod.REGISTRY]
    ids = [s.sid for s in out]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise SystemExit(f"duplicate scenario ids: {sorted(dupes)}")
    return out


def main(argv: list[str]) -> int:
    only = set(argv)
    n = 0
    for s in build_all():
        if only and not any(s.sid == o or s.sid.startswith(o.rstrip("/") + "/") for o in only):
            continue
        s.write()
        n += 1
        print(f"wrote {s.sid}")
    print(f"{n} scenario(s) written; record their cassettes with: workload-diagnose eval --record <suite>")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
