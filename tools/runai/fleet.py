"""Fleet reads for a triage: every workload of a cluster in one phase, through ``GET /api/v1/workloads`` with the
filters, sort and pages done by the server (``shared/reference/runai-api.md``, OpenAPI ``WorkloadsFilter``).

* :func:`list_phase` — ``filterBy=clusterId==…&filterBy=phase==…`` (+ ``projectName==`` or ``departmentName==``,
  + ``phaseUpdatedAt>=since`` / ``<=until``), ``sortBy=phaseUpdatedAt&sortOrder=desc``, ``limit`` up to 500,
  following ``next``. The server's filter is authoritative, yet only items that match it exactly are kept (a server
  that ignores a filter cannot widen the triage); what was dropped or not read is a note.
* :class:`PacedTransport` — honours ``429 Retry-After`` for every concurrent reader at once: after a 429 no request
  of the fleet is sent before the server's delay has passed (each request's own retries stay in ``RunaiClient``).
* :class:`WorkloadReads` — the :class:`~tools.runai.source.RunaiSource` one diagnosis of a triage reads through:
  a view of the shared client (one connection pool, one token), the listed workload standing in for the status
  read's ``GET …/{id}`` when it is the same object, and the spec and pods it read kept for the cross-workload
  patterns.
"""
from __future__ import annotations

import threading
import time
from datetime import datetime
from typing import Any, Callable

import httpx
from pydantic import ValidationError

from tools.base import ErrorKind, Invocation, ToolFailure, ToolResult
from tools.runai.ids import check_id, check_name
from tools.runai.models import Workload
from tools.timeutil import iso, parse_time

__all__ = ["list_phase", "PacedTransport", "WorkloadReads", "MAX_LIMIT", "STANDS_IN_PHASES"]

MAX_LIMIT = 500  # the OpenAPI maximum of ``limit``: the fewest list calls per workload
# Phases whose listed object can replace ``GET /api/v1/workloads/{id}``: the single read adds only
# ``pendingSchedulingMessages`` (runai-api.md), which describe a workload that is waiting to be scheduled.
STANDS_IN_PHASES = frozenset({"failed", "stopped", "crashed", "error"})


def list_phase(client: Any, *, cluster_id: str, phase: str, project: str | None = None,
               department: str | None = None, since: datetime | None = None, until: datetime | None = None,
               max_pages: int = 40, limit: int = MAX_LIMIT) -> ToolResult:
    """``list_workloads`` for a whole phase: ``data`` is ``list[Workload]`` newest phase update first."""
    check_id(cluster_id, "cluster id")
    check_name(phase, "phase")
    if project is not None:
        check_name(project, "project")
    if department is not None:
        check_name(department, "department")
    filters = [f"clusterId=={cluster_id}", f"phase=={phase}"]
    if project is not None:
        filters.append(f"projectName=={project}")
    if department is not None:
        filters.append(f"departmentName=={department}")
    if since is not None:
        filters.append(f"phaseUpdatedAt>={iso(since)}")
    if until is not None:
        filters.append(f"phaseUpdatedAt<={iso(until)}")
    limit = max(1, min(limit, MAX_LIMIT))

    def matches(w: Workload) -> bool:
        extra = w.model_extra or {}
        t = parse_time(w.phaseUpdatedAt)
        return ((w.clusterId or "").lower() == cluster_id.lower() and (w.phase or "") == phase
                and (project is None or w.projectName == project)
                and (department is None or extra.get("departmentName") == department)
                and (since is None or (t is not None and t >= since))
                and (until is None or (t is not None and t <= until)))

    def fn(get, invs: list[Invocation], notes: list[str]) -> list[Workload]:
        out: list[Workload] = []
        ids: set[str] = set()
        offset, dropped, bad = 0, 0, 0
        seen: set[int] = set()
        for _ in range(max_pages):
            params = [("filterBy", f) for f in filters] + [("sortBy", "phaseUpdatedAt"), ("sortOrder", "desc"),
                                                           ("offset", str(offset)), ("limit", str(limit))]
            body, inv = get("/api/v1/workloads", params)
            invs.append(inv)
            if not isinstance(body, dict) or not isinstance(body.get("workloads"), list):
                raise ToolFailure(ErrorKind.MALFORMED, "GET /api/v1/workloads: no 'workloads' list")
            for raw in body["workloads"]:
                try:
                    w = Workload.model_validate(raw)
                except ValidationError:
                    bad += 1
                    continue
                if w.id in ids:
                    continue  # a page served twice, or a workload that moved between pages: listed once
                if not matches(w):
                    dropped += 1
                    continue
                ids.add(w.id)
                out.append(w)
            nxt = body.get("next")
            if nxt is None or not body["workloads"]:
                break
            if not isinstance(nxt, int) or nxt <= offset or nxt in seen:
                notes.append(f"pagination of phase {phase} stopped: the server returned next={nxt!r} after offset "
                             f"{offset}")
                break
            seen.add(nxt)
            offset = nxt
        else:
            notes.append(f"pagination of phase {phase} stopped after {max_pages} pages of {limit}: older workloads "
                         "in the window were not listed")
        if dropped:
            notes.append(f"{dropped} listed workload(s) did not match the requested filters and were left out")
        if bad:
            notes.append(f"{bad} listed item(s) were not workloads (unexpected shape) and were left out")
        return out

    args: dict[str, Any] = {"clusterId": cluster_id, "phase": phase}
    for k, v in (("project", project), ("department", department),
                 ("since", iso(since) if since else None), ("until", iso(until) if until else None)):
        if v is not None:
            args[k] = v
    return client._run("list_workloads", args, fn)


class PacedTransport(httpx.BaseTransport):
    """Counts every request and, after a ``429``, holds every request of the fleet until ``Retry-After`` passed.

    Sits under the read-only guard (``RunaiClient(transport=PacedTransport(...))``)."""

    def __init__(self, inner: httpx.BaseTransport | None = None, *, max_pause: float = 30.0,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic):
        from tools.deadline import Deadline
        from tools.transport import network_transport

        # the REST client's own network transport (TLS trust, bounded socket reads); each diagnosis keeps its own
        # deadline in its client, the fleet as a whole has none
        self._inner = inner or network_transport(Deadline(None))
        self._lock = threading.Lock()
        self._until = 0.0
        self._sleep, self._clock, self.max_pause = sleep, clock, max_pause
        self.sent = 0
        self.rate_limited = 0
        self.paused_s = 0.0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        with self._lock:
            wait = self._until - self._clock()
            self.sent += 1
        if wait > 0:
            with self._lock:
                self.paused_s += wait
            self._sleep(wait)
        resp = self._inner.handle_request(request)
        if resp.status_code == 429:
            delay = _retry_after(resp.headers.get("Retry-After"), self.max_pause)
            with self._lock:
                self.rate_limited += 1
                self._until = max(self._until, self._clock() + delay)
        return resp

    def close(self) -> None:
        self._inner.close()


def _retry_after(value: str | None, cap: float) -> float:
    try:
        return min(max(float(value), 0.0), cap) if value else 1.0
    except ValueError:
        return 1.0  # an HTTP-date or garbage: a short pause, never an unbounded one


class WorkloadReads:
    """The six skill reads of ONE diagnosis in a triage (a ``RunaiSource``), sharing the fleet's client."""

    def __init__(self, client: Any, listed: Workload | None = None):
        self._c = client.view()
        self._listed = listed if listed is not None and (listed.phase or "").lower() in STANDS_IN_PHASES else None
        self.spec: ToolResult | None = None
        self.pods: ToolResult | None = None

    @property
    def injections(self) -> list[Any]:
        return self._c.injections

    @property
    def stood_in(self) -> bool:
        return self._listed is not None

    def list_workloads(self, *, name: str, cluster_id: str, project: str) -> ToolResult:
        return self._c.list_workloads(name=name, cluster_id=cluster_id, project=project)

    def get_workload_status(self, workload_id: str, *, cutoff: datetime | None = None) -> ToolResult:
        if self._listed is not None and self._listed.id == workload_id:
            return self._c.get_listed_workload_status(self._listed, cutoff=cutoff)
        return self._c.get_workload_status(workload_id, cutoff=cutoff)

    def get_workload_spec(self, workload_id: str, workload_type: str | None) -> ToolResult:
        self.spec = self._c.get_workload_spec(workload_id, workload_type)
        return self.spec

    def get_workload_pods(self, workload_id: str) -> ToolResult:
        self.pods = self._c.get_workload_pods(workload_id)
        return self.pods

    def get_workload_history(self, workload_id: str, *, cutoff: datetime) -> ToolResult:
        return self._c.get_workload_history(workload_id, cutoff=cutoff)

    def get_workload_metrics(self, workload_id: str, **kw: Any) -> ToolResult:
        return self._c.get_workload_metrics(workload_id, **kw)

    def close(self) -> None:  # the fleet's client is closed once, by whoever made it
        pass


def adopt_token(client: Any, token: str) -> None:
    """Give a client in a worker process the triage's token (fetched once by the parent, never again per
    process). A 401 still refreshes it as usual."""
    with client._token_lock:
        client._token = token


def token_of(client: Any) -> str:
    client.ensure_token()
    return client._token
