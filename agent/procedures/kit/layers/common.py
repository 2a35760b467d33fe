"""What every phase rule shares: the :class:`Snapshot` of one refresh, field accessors, the evidence and phase
constructors, and whether the run has succeeded or ended."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from workload_diagnose.agent.model import lifecycle as lc
from workload_diagnose.agent.model.lifecycle import Phase
from workload_diagnose.agent.model.result import EvidenceLine

MAX_DETAIL = 240


@dataclass
class Snapshot:
    """Everything one refresh read. ``None`` for a list means it could not be read (said in a limitation)."""

    name: str
    namespace: str
    now: datetime
    kind: str | None = None  # "Job" | "RayJob" | None
    job: dict | None = None
    rayjob: dict | None = None
    workloads: list[dict] | None = field(default_factory=list)
    kueue_version: str | None = None  # the kueue.x-k8s.io version the Workloads were read at (discovery)
    kueue_served: bool = True  # False: kueue.x-k8s.io is not served (Kueue is not installed)
    submitter: dict | None = None  # RayJob only: KubeRay's submitter Job (``ray job submit``), when it exists
    submitter_pods: list[dict] | None = field(default_factory=list)  # its pods; None: could not be read
    raycluster: dict | None = None
    raycluster_name: str | None = None
    pods: list[dict] | None = field(default_factory=list)
    claims: dict[str, dict | None] = field(default_factory=dict)  # referenced name -> object (None: not found)
    claims_error: str | None = None  # why claims could not be read
    events: dict[tuple[str, str], list[dict]] = field(default_factory=dict)  # (kind, name) -> events

    @property
    def run(self) -> dict | None:
        return self.job if self.kind == "Job" else self.rayjob if self.kind == "RayJob" else None


# ----------------------------------------------------------------------------------------- helpers


def _md(o: dict | None) -> dict:
    return (o or {}).get("metadata") or {}


def _st(o: dict | None) -> dict:
    return (o or {}).get("status") or {}


def _cond(o: dict | None, type_: str) -> dict | None:
    for c in _st(o).get("conditions") or []:
        if c.get("type") == type_:
            return c
    return None


def _true(c: dict | None) -> bool:
    return bool(c) and str(c.get("status")) == "True"


def _one_line(text: object, limit: int = MAX_DETAIL) -> str:
    s = " ".join(str(text or "").split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _reason_text(reason: object, message: object) -> str:
    r, m = _one_line(reason, 80), _one_line(message, 160)
    return f"{r}: {m}" if r and m else r or m


def _ev(source: str, text: str) -> EvidenceLine:
    return EvidenceLine(source=source, text=_one_line(text, 400))


def _ns(s: Snapshot) -> str:
    return s.namespace


def _pod_cmd(s: Snapshot, pod: str) -> str:
    return f"kubectl describe pod {pod} -n {_ns(s)}"


def _events_cmd(s: Snapshot, name: str) -> str:
    return f"kubectl get events -n {_ns(s)} --field-selector involvedObject.name={name}"


def _phase(name: str, status: str, detail: str, owner: str, *, hint: str | None = None,
           next_action: str | None = None, evidence: list[EvidenceLine] | None = None) -> Phase:
    if status in lc.COMPLETE_STATUSES:
        next_action = None
    return Phase(name=name, status=status, detail=_one_line(detail, 400), hint=hint, owner=owner,
                 next_action=next_action, evidence=evidence or [])


def _unreadable(name: str, owner: str, what: str, resource: str | None = None) -> Phase:
    """Pending because what the rule reads could not be read (a limitation says why); ``resource`` is what to grant."""
    return _phase(name, "pending", f"{what} could not be read (see limitations)", owner,
                  next_action=f"grant read access to {resource}, then run this again" if resource else None)


def _pod_name(p: dict) -> str:
    return _md(p).get("name") or "?"


def _containers(p: dict, init: bool) -> list[tuple[dict, dict | None]]:
    """(spec, status) pairs in spec order; a status without a spec entry is kept too."""
    key_spec, key_st = ("initContainers", "initContainerStatuses") if init else ("containers", "containerStatuses")
    specs = (p.get("spec") or {}).get(key_spec) or []
    statuses = {c.get("name"): c for c in _st(p).get(key_st) or []}
    out = [(c, statuses.pop(c.get("name"), None)) for c in specs]
    out += [({"name": n}, c) for n, c in sorted(statuses.items(), key=lambda kv: str(kv[0]))]
    return out


def _state(cs: dict | None) -> tuple[str | None, dict]:
    st = (cs or {}).get("state") or {}
    for k in ("waiting", "running", "terminated"):
        if st.get(k) is not None:
            return k, st.get(k) or {}
    return None, {}


def _last_term(cs: dict | None) -> dict | None:
    return ((cs or {}).get("lastState") or {}).get("terminated")


def _assigned(p: dict) -> bool:
    return bool((p.get("spec") or {}).get("nodeName"))


def _events_of(s: Snapshot, kind: str, name: str) -> list[dict]:
    return s.events.get((kind, name)) or []


def _job_condition_true(job: dict | None, type_: str) -> dict | None:
    c = _cond(job, type_)
    return c if _true(c) else None


def rayjob_failed(rj: dict | None) -> bool:
    st = _st(rj)
    return (str(st.get("jobDeploymentStatus") or "") == "Failed"
            or str(st.get("jobStatus") or "").upper() in ("FAILED", "STOPPED"))


def rayjob_succeeded(rj: dict | None) -> bool:
    st = _st(rj)
    return not rayjob_failed(rj) and (str(st.get("jobStatus") or "").upper() == "SUCCEEDED"
                                      or (str(st.get("jobDeploymentStatus") or "") == "Complete"
                                          and not st.get("jobStatus")))


def run_succeeded(s: Snapshot) -> bool:
    if s.kind == "Job":
        return _job_condition_true(s.job, "Complete") is not None
    if s.kind == "RayJob":
        return rayjob_succeeded(s.rayjob)
    return False


def run_ended(s: Snapshot) -> bool:
    if s.kind == "Job":
        return run_succeeded(s) or _job_condition_true(s.job, "Failed") is not None
    if s.kind == "RayJob":
        return run_succeeded(s) or rayjob_failed(s.rayjob)
    return False



def _torn_down(s: Snapshot) -> str | None:
    """Why pod evidence is absent for a run that ended (None when pods are there or the run did not end)."""
    if s.pods or s.pods is None or not run_ended(s):
        return None
    return "run ended; pods removed afterwards (not observed)"

