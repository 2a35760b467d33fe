"""The procedure's steps: one small function per step (``graph.py`` wires them).

Each node takes the State and the run's ``Runtime[Context]`` and returns only what it adds. Reads that fail are
limitations and their part of the snapshot is omitted; only refused credentials end the run (``ApiAuthError``).
"""
from __future__ import annotations

import re

from langgraph.runtime import Runtime
from langgraph.types import Command

from workload_diagnose.agent.model.findings import calls_of, limitations
from workload_diagnose.agent.model.health import Verdict
from workload_diagnose.agent.model.outcomes import Route, Stop
from workload_diagnose.agent.procedures.health.select import plan
from workload_diagnose.agent.procedures.health.state import Diagnosed, State, Step
from workload_diagnose.agent.procedures.kit.context import Context
from workload_diagnose.agent.procedures.kit.lookup import end
from workload_diagnose.tools.base import ErrorKind, ToolResult, ToolStatus
from workload_diagnose.tools.runai import ApiAuthError, ApiUnavailable, InvalidInput
from workload_diagnose.tools.runai.source import FleetSource, ProjectSource
from workload_diagnose.tools.timeutil import iso

SHOWN_LINES = 2  # evidence lines quoted from each per-workload diagnosis


def _error(r) -> str:
    if r.status == ToolStatus.ABSENT:
        return r.error.message if r.error else "not found"
    return r.error.message if r.error else "unknown error"


def _refused(r, what: str) -> None:
    """Refused credentials or permission end the run (exit 4), as in every procedure."""
    err = r.error
    if err is not None and err.kind == ErrorKind.UNAUTHORIZED:
        raise ApiAuthError(f"the Run:ai API refused the credentials for {what} ({err.message})")
    if err is not None and err.kind == ErrorKind.FORBIDDEN:
        raise ApiAuthError(f"the Run:ai service account may not read {what} ({err.message})")


# ------------------------------------------------------------------------------------------------ the scope
def check_scope(state: State, runtime: Runtime[Context]) -> Command:
    """The cluster and a project or department are required: otherwise a question, and nothing is read."""
    req = state.request
    missing = [] if req.cluster_id else ["cluster_id"]
    if not req.has_workload:
        missing.append("project (or department)")
    if missing:
        return end(Stop(route=Route.MISSING_PARAMETERS,
                        question="Which project (or department) on which cluster? Please provide "
                                 + "; ".join(missing) + ".",
                        message="Required identifiers are missing; no tool was called."))
    return Command(goto=["read_listing", "read_quota"])


def _scope_words(state: State) -> str:
    req = state.request
    what = f"project {req.project}" if req.project else f"department {req.department}"
    return f"the workloads of {what} on cluster {req.cluster_id}"


def read_listing(state: State, runtime: Runtime[Context]) -> dict:
    """Every workload of the scope, one listing with server-side filters (cluster, project or department), every
    page (``list_workloads``)."""
    ctx, req = runtime.context, state.request
    if not isinstance(ctx.runai, FleetSource):
        why = "This Run:ai source cannot list a project's workloads (capability 'fleet'): counts, attention items " \
              "and failures are omitted."
        return {"listing_problem": why, "limitations": limitations(Step.LIST, why)}
    ctx.step("list_workloads")
    r = ctx.runai.list_phase(cluster_id=req.cluster_id, phase=None, project=req.project, department=req.department)
    found: dict = {"listing": r, "calls": calls_of(r, Step.LIST)}
    notes = [f"{r.tool}: {n}" for n in r.notes]
    _refused(r, _scope_words(state))
    if not r.ok:
        why = (f"{_scope_words(state)[0].upper()}{_scope_words(state)[1:]} could not be listed ({r.tool}: "
               f"{_error(r)}): counts, attention items and failures are omitted.")
        return {**found, "listing_problem": why, "limitations": limitations(Step.LIST, why, *notes)}
    if r.notes:
        notes.append("The listing was not read in full: counts and attention items cover only the workloads "
                     "listed.")
    return {**found, "limitations": limitations(Step.LIST, *notes)}


def read_quota(state: State, runtime: Runtime[Context]) -> dict:
    """The project's quota per node pool (deserved, limit, allocated): ``find_project``."""
    ctx, req = runtime.context, state.request
    if req.project is None:
        why = "Quota is read per project: a department's node-pool quota is not read, so that part is omitted."
        return {"quota_problem": why, "limitations": limitations(Step.QUOTA, why)}
    if not isinstance(ctx.runai, ProjectSource):
        why = "This Run:ai source does not read projects (capability 'projects'): the quota part is omitted."
        return {"quota_problem": why, "limitations": limitations(Step.QUOTA, why)}
    ctx.step("find_project")
    r = ctx.runai.find_project(cluster_id=req.cluster_id, name=req.project)
    found: dict = {"quota": r, "calls": calls_of(r, Step.QUOTA)}
    _refused(r, f"project {req.project}")
    notes = [f"{r.tool}: {n}" for n in r.notes]
    if not r.ok:
        why = f"Project {req.project}'s quota could not be read ({r.tool}: {_error(r)}): the quota part is omitted."
        return {**found, "quota_problem": why, "limitations": limitations(Step.QUOTA, why, *notes)}
    return {**found, "limitations": limitations(Step.QUOTA, *notes)}


# ------------------------------------------------------------------------------------------------ the diagnoses
def diagnose(state: State, runtime: Runtime[Context]) -> dict:
    """Run the procedure that answers each candidate whose rule needs a verdict (newest first, by rule), at most
    ``max_diagnoses``; the rest are stated, never guessed."""
    ctx, req = runtime.context, state.request
    if state.listing is None or not state.listing.ok:
        return {}
    done: list[Diagnosed] = []
    skipped: list[str] = []
    calls: list = []
    lims: list[str] = []
    for w, rules in plan(state.listing.data or [], req.now, req.cutoff):
        rule = rules[0]
        if not rule.diagnose:
            continue
        if len(done) >= req.max_diagnoses:
            skipped.append(w.id)
            continue
        d, cs, notes = _one(ctx, req, w, rule, state.quota)
        done.append(d)
        calls += cs
        lims += [f"{w.name or w.id} ({rule.answered_by} diagnosis): {n}" for n in notes]
    return {"diagnosed": done, "skipped": skipped, "calls": calls, "limitations": limitations(Step.DIAGNOSE, *lims)}


# a diagnosis's limitation about a Run:ai read it made (failed, absent, cut short): the snapshot states it too
_READ_NOTE = re.compile(r"\b(?:get_workload_\w+|list_workloads|find_project)\b|\(events: null\)")
READ_NOTES_SHOWN = 3  # per diagnosis


class _Shared:
    """The run's Run:ai source as ONE per-workload diagnosis sees it. What this snapshot already read answers the
    diagnosis's same read (as in triage, ``tools.runai.fleet``): the listed workload stands in for the
    single-workload read when its phase is one the listing describes in full (``STANDS_IN_PHASES``: only its
    events are read), and the project's quota read (whatever it answered) for the same project. Every read the
    diagnosis does make is recorded, also the one that ended it: a diagnosis that cannot finish still made it."""

    def __init__(self, inner: object, listed: object, quota: ToolResult | None, cluster_id: str | None,
                 project: str | None):
        from workload_diagnose.tools.runai.fleet import stands_in

        self._inner = inner
        self._listed = listed if stands_in(listed) and hasattr(inner, "get_listed_workload_status") else None
        self._quota = quota if quota is not None and project else None
        self._scope = (cluster_id, project)
        self.calls: list = []
        self.failed_notes: list[str] = []  # what a read that failed said beside its error

    def _record(self, r):
        if hasattr(r, "invocations"):
            self.calls += calls_of(r, Step.DIAGNOSE)
            if not r.ok:
                self.failed_notes += [f"{r.tool}: {n}" for n in r.notes]
        return r

    def get_workload_status(self, workload_id: str, *, cutoff=None):
        if self._listed is not None and self._listed.id == workload_id:
            return self._record(self._inner.get_listed_workload_status(self._listed, cutoff=cutoff))
        return self._record(self._inner.get_workload_status(workload_id, cutoff=cutoff))

    def find_project(self, *, cluster_id: str, name: str):
        if self._quota is not None and (cluster_id, name) == self._scope:
            return self._quota.model_copy(update={"invocations": []})  # read once, by the snapshot
        return self._record(self._inner.find_project(cluster_id=cluster_id, name=name))

    def __getattr__(self, name: str):
        attr = getattr(self._inner, name)
        if not callable(attr) or name.startswith("_") or name in ("close",):
            return attr

        def read(*args, **kw):
            return self._record(attr(*args, **kw))

        return read


def _one(ctx: Context, req, w, rule, quota: ToolResult | None) -> tuple[Diagnosed, list, list[str]]:
    """One per-workload diagnosis through the registry (``agent.procedures.run``: procedures never import each
    other), by the workload's id, with this run's sources and what the snapshot already read; its reads are this
    snapshot's too."""
    from dataclasses import replace

    from workload_diagnose.agent.model.findings import Call
    from workload_diagnose.agent.model.request import build_request
    from workload_diagnose.agent.procedures import run, spec

    ctx.step(f"{rule.answered_by} {w.name or w.id}")
    source = _Shared(ctx.runai, w, quota, req.cluster_id, req.project)
    try:
        sub = spec(rule.answered_by).as_input(build_request(
            cluster_id=req.cluster_id, workload_id=w.id, intent=rule.intent, lookback=req.lookback,
            now=iso(req.now)))
        res = run(rule.answered_by, sub, replace(ctx, runai=source))
    except (ApiUnavailable, InvalidInput) as e:  # every read that failed on the way is stated, not only the last
        failed = list(dict.fromkeys(f"{c.request} answered {f'HTTP {c.status}' if c.status else 'nothing'}"
                                    for c in source.calls if c.status is None or c.status >= 400))
        failed += [n for n in source.failed_notes if n not in failed]
        return Diagnosed(workload_id=w.id, rule=rule.name, error=str(e)), source.calls, failed[:READ_NOTES_SHOWN]
    # the diagnosis's own calls, in its order (its concurrent reads finish in any order)
    calls = [Call(step=Step.DIAGNOSE, tool=c.tool, request=c.request, status=c.status) for c in res.tool_calls]
    preemptions = len(res.preemptions) if getattr(res, "preemptions", None) is not None and \
        res.outcome == "diagnosed" else None
    verdict = Verdict(procedure=rule.answered_by, outcome=res.outcome, category=getattr(res, "category", None),
                      reason=getattr(res, "reason", None), route=res.route, preemptions=preemptions,
                      headline=(res.report.splitlines() or [""])[0])
    return Diagnosed(workload_id=w.id, rule=rule.name, verdict=verdict, evidence=list(res.evidence[:SHOWN_LINES]),
                     recommendations=list(res.recommendations[:1])), calls, \
        [x for x in res.limitations if _READ_NOTE.search(x)][:READ_NOTES_SHOWN]
