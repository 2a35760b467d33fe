"""Which workloads a triage diagnoses: the cluster's terminal failures in the window, and its active candidates.

Listed per phase with server-side filters (the source's ``list_phase``, its ``fleet`` capability): ``Failed``
and ``Stopped`` whose phase changed inside the window (``phaseUpdatedAt>=since``, ``<=now``); ``Running`` and
``Pending`` whatever their age (a CrashLoopBackOff or a pull that still fails is a current failure). Active
candidates are diagnosed like any other workload; only those the procedure finds failing stay in the triage.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from workload_diagnose.agent.model.findings import Call
from workload_diagnose.agent.model.request import build_request
from workload_diagnose.agent.model import phases
from workload_diagnose.agent.model.time import iso, parse_lookback
from workload_diagnose.agent.procedures.kit.reads import fatal_if_unreachable
from workload_diagnose.tools.runai import InvalidInput, Workload, check_name



@dataclass(frozen=True)
class TriageRequest:
    cluster_id: str  # a cluster NAME until ``triage`` resolves it (``cluster_name`` then says which it was)
    project: str | None
    department: str | None
    since_text: str
    since: timedelta
    lookback: str
    now: datetime
    cluster_name: str | None = None

    @property
    def window_start(self) -> datetime:
        return self.now - self.since


def build_triage_request(*, cluster_id: str | None, project: str | None = None, department: str | None = None,
                         since: str = "24h", lookback: str = "7d", now: str | None = None,
                         cluster_name: str | None = None) -> TriageRequest:
    """Every bad input is one ``InvalidInput`` line, before any read (the cluster id, project, lookback and clock
    through ``build_request``, the choke point every diagnosis's input passes). ``cluster_name`` instead of
    ``cluster_id``: checked here, resolved to the id by ``triage`` once the source is open."""
    if cluster_id:
        cluster_name = None
    elif cluster_name:
        check_name(cluster_name, "cluster name")
    else:
        raise InvalidInput("--cluster-id is required: the Run:ai cluster's UUID or its exact name")
    if project and department:
        raise InvalidInput("give --project or --department, not both")
    base = build_request(cluster_id=cluster_id, project=project, lookback=lookback, now=now)
    if department:
        check_name(department, "department")
    try:
        window = parse_lookback(since)
    except (ValueError, TypeError):
        raise InvalidInput(f"--since {since!r} is not a duration: use a number and m/h/d/w, e.g. 24h, 7d or "
                           "90m") from None
    return TriageRequest(cluster_id=base.cluster_id or cluster_name or "", project=project or None,
                         department=department or None, since_text=since.strip(), since=window, lookback=base.lookback,
                         now=base.now, cluster_name=cluster_name)


@dataclass
class Listing:
    terminal: list[Workload] = field(default_factory=list)
    active: list[Workload] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def list_candidates(client, req: TriageRequest) -> Listing:
    """One list call per page per phase; raises ApiUnavailable / ApiAuthError when a phase cannot be listed."""
    out = Listing()
    seen: set[str] = set()
    for phase in phases.LISTED_FAILED + phases.LISTED_ACTIVE:
        windowed = phase in phases.LISTED_FAILED
        r = client.list_phase(cluster_id=req.cluster_id, phase=phase, project=req.project,
                       department=req.department, since=req.window_start if windowed else None,
                       until=req.now if windowed else None)
        out.calls += [Call(step=0, tool=i.tool, request=i.request, status=i.status_code) for i in r.invocations]
        fatal_if_unreachable(r, f"the {phase} workloads of cluster {req.cluster_id}")
        if not r.ok:
            raise _unlisted(phase, r)
        out.notes += [f"list_workloads: {n}" for n in r.notes]
        for w in r.data or []:
            if w.id not in seen:  # a workload that changed phase between two listings is diagnosed once
                seen.add(w.id)
                (out.terminal if windowed else out.active).append(w)
    return out


def _unlisted(phase: str, r) -> Exception:
    from workload_diagnose.tools.runai import ApiUnavailable

    return ApiUnavailable(f"the {phase} workloads could not be listed: "
                          f"{r.error.message if r.error else 'unknown error'}")


def window_of(req: TriageRequest) -> dict:
    return {"since": iso(req.window_start), "until": iso(req.now), "duration": req.since_text}
