"""The REST implementation of :class:`tools.runai.source.RunaiSource` (and of its ``fleet`` capability): the
six skill reads and their paging over the Run:ai control-plane API, read-only, through httpx.

Paths and shapes follow ``shared/reference/runai-api.md`` and Run:ai's OpenAPI spec. Each public method maps to
one tool named by the skill (``list_workloads``, ``get_workload_status``, ``get_workload_spec``,
``get_workload_pods``, ``get_workload_history``, ``get_workload_metrics``) and returns a typed
:class:`tools.base.ToolResult`. Every response body passes the guardrails (normalise, redact, injection scan)
before it is parsed into a model (:mod:`tools.runai.rest.wire`), so nothing downstream ever sees a raw secret.
"""
from __future__ import annotations

import threading
from datetime import datetime
from typing import Any, Callable
from urllib.parse import quote

import httpx

from workload_diagnose.tools.base import ErrorKind, Invocation, ToolFailure, ToolResult
from workload_diagnose.tools.deadline import Deadline
from workload_diagnose.tools.runai.errors import InvalidInput
from workload_diagnose.tools.runai.ids import check_id, check_name
from workload_diagnose.tools.runai.models import (OOM_METRICS, Event, History, HistoryRecord, MetricSeries, Pod, Skips, SubmittedSpec,
                                Workload, WorkloadStatus, parse_lenient)
from workload_diagnose.tools.runai.parse import history_page, json_kind, metric_series, spec_kind_path
from workload_diagnose.tools.runai.rest.capacity import get_node_pool_gpus, list_nodes
from workload_diagnose.tools.runai.rest.listing import list_clusters, list_phase, workload_pages
from workload_diagnose.tools.runai.rest.orgunits import find_project, list_node_pools
from workload_diagnose.tools.runai.rest.paced import PacedTransport
from workload_diagnose.tools.runai.rest.pool import beside, inline
from workload_diagnose.tools.runai.rest.token import Token
from workload_diagnose.tools.runai.rest.wire import Wire, check_base_url, request_text
from workload_diagnose.tools.runai.results import Absent, no_spec
from workload_diagnose.tools.runai.sanitize import Findings
from workload_diagnose.tools.timeutil import iso, parse_time
from workload_diagnose.tools.transport import check_request, make_client

__all__ = ["RunaiClient"]

# the reads whose first request may be started ahead (their arguments say everything they send first)
_PREFETCHABLE = frozenset({"get_workload_spec", "get_workload_pods", "get_workload_history", "get_workload_metrics"})


class _Started(BaseException):
    """``prefetch``: the read's first request was started; the read stops there (not an error: a BaseException,
    so that no read's error handling turns it into a result)."""


class RunaiClient(Wire, Token):
    """Read-only Run:ai REST client, the REST implementation of :class:`tools.runai.source.RunaiSource`.

    Thread-safe: the graph's parallel nodes share one instance. Every read is bounded: the body by
    ``max_body_bytes`` (streamed, never read past it), each request by ``read_total`` seconds and by ``timeout``
    seconds of silence, and all of them by the one ``deadline`` of the diagnosis (Ctrl-C cancels it)."""

    def __init__(
        self,
        base_url: str,
        client_id: str | None,
        client_secret: str | None,
        *,
        timeout: float = 10.0,
        max_attempts: int = 3,
        backoff: float = 0.2,
        max_retry_after: float = 5.0,
        max_pages: int = 20,
        page_limit: int = 50,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] | None = None,
        max_body_bytes: int = 16 * 1024 * 1024,
        read_total: float | None = 30.0,
        max_event_pages: int = 20,
        deadline: Deadline | None = None,
        ca_file: str | None = None,
        url_origin: str = "--runai-url",
        on_invocation: Callable[[Invocation, float], None] | None = None,
        bearer_token: str | Callable[[bool], str] | None = None,
        concurrent_reads: bool = True,
        paced: bool = False,
    ):
        """``bearer_token`` replaces the client credentials: a caller's own Run:ai token (pass-through, so Run:ai's
        RBAC decides), or ``fn(refresh) -> token``, a token cache shared by many clients (``refresh`` after a 401).
        ``concurrent_reads=False``: the workload and its events are read one after the other (a service or a fleet
        running many diagnoses at once: see ``Limits.concurrent_reads``). ``paced``: after a 429, every reader of
        this client (and of its views) waits the server's ``Retry-After`` (a fleet: :class:`PacedTransport`)."""
        if not base_url:
            raise InvalidInput("no Run:ai URL: pass --runai-url or set RUNAI_BASE_URL")
        self.base_url = check_base_url(base_url, url_origin)
        self._client_id = client_id or ""
        self._client_secret = client_secret or ""
        self.max_attempts = max(1, max_attempts)
        self.backoff = backoff
        self.max_retry_after = max_retry_after
        self.max_pages = max_pages
        self.page_limit = page_limit
        self.max_body_bytes = max_body_bytes
        self.read_total = read_total
        self.max_event_pages = max_event_pages
        self.concurrent_reads = concurrent_reads
        self.deadline = deadline or Deadline(None)
        self._sleep = sleep or self.deadline.sleep
        # a transport that sends a request ahead of its use (the service's: tools.runai.rest.aio.LoopReads)
        self._start = transport.start if getattr(transport, "sends_ahead", False) else None
        self._paced = PacedTransport(transport, ca_file=ca_file, **({"sleep": sleep} if sleep else {})) \
            if paced else None
        transport = self._paced or transport
        try:
            self._http = make_client(self.base_url, timeout=timeout, transport=transport, deadline=self.deadline,
                                     ca_file=ca_file)
        except ValueError as e:  # the CA file
            raise InvalidInput(str(e)) from None
        self._timeout = self._http.timeout.as_dict()
        self._on_invocation = on_invocation  # (invocation, elapsed ms) after each read, answered or not (-v)
        self._token: str | None = None
        self._token_error: BaseException | None = None  # a failed exchange is not repeated by the other threads
        self._bearer = bearer_token
        self._token_lock = threading.Lock()
        self._probing = threading.local()  # ``prefetch``: a read run up to its first request, which is started
        self.findings = Findings()  # guardrail findings from every body read

    @property
    def injections(self) -> list[Any]:
        return self.findings.injections

    def close(self) -> None:
        self._http.close()

    def list_clusters(self) -> ToolResult:
        """The ``clusters`` capability: the clusters these credentials can see (:mod:`tools.runai.rest.listing`)."""
        return list_clusters(self)

    def find_project(self, *, cluster_id: str, name: str) -> ToolResult:
        """The ``projects`` capability: one project's quota per node pool (:mod:`tools.runai.rest.orgunits`)."""
        return find_project(self, cluster_id=cluster_id, name=name)

    def list_node_pools(self, *, cluster_id: str) -> ToolResult:
        """The ``projects`` capability: the cluster's node pools (:mod:`tools.runai.rest.orgunits`)."""
        return list_node_pools(self, cluster_id=cluster_id)

    def list_nodes(self, *, cluster_id: str, node_pool: str) -> ToolResult:
        """The ``nodes`` capability: one node pool's nodes (:mod:`tools.runai.rest.capacity`)."""
        return list_nodes(self, cluster_id=cluster_id, node_pool=node_pool)

    def get_node_pool_gpus(self, *, cluster_id: str, node_pool: str, start: datetime, end: datetime) -> ToolResult:
        """The ``nodes`` capability: one node pool's GPUs, free ones included (:mod:`tools.runai.rest.capacity`)."""
        return get_node_pool_gpus(self, cluster_id=cluster_id, node_pool=node_pool, start=start, end=end)

    def list_phase(self, **kw: Any) -> ToolResult:
        """The ``fleet`` listing: every workload of a cluster in one phase (:mod:`tools.runai.rest.listing`)."""
        return list_phase(self, **kw)

    def traffic(self) -> dict[str, float]:
        p = self._paced
        return {"sent": p.sent if p else 0, "rate_limited": p.rate_limited if p else 0,
                "paused_s": p.paused_s if p else 0.0}

    def view(self) -> "RunaiClient":
        """A view for one of many concurrent diagnoses (fleet triage): the same connection pool, settings and
        token, its own ``injections`` (a report lists only what its own reads found). Close the parent, not it."""
        import copy

        self.ensure_token()
        v = copy.copy(self)
        v.findings = Findings()
        return v



    def prefetch(self, tool: str, *args: Any, **kwargs: Any) -> bool:
        """Start now the first request of the read ``tool(*args, **kwargs)``, when this client's transport can send
        a request ahead of its use (:mod:`tools.runai.rest.aio`: the service's event loop); the read itself, made
        later with the same arguments, takes its answer, through the same wire (bounds, guardrails, its
        invocation). The request is the read's own, found by running the read up to its first request; nothing is
        read or counted here. False when nothing was started (another transport, a read that sends nothing, bad
        input: the read itself then says so; the same request already under way)."""
        if self._start is None or tool not in _PREFETCHABLE:
            return False
        return self._probe(lambda: getattr(self, tool)(*args, **kwargs))

    def _probe(self, read: Callable[[], Any]) -> bool:
        self._probing.on = True
        try:
            read()
        except _Started as e:
            return bool(e.args[0])
        except Exception:  # noqa: BLE001 - the read, made for real later, reports its own failure
            return False
        finally:
            self._probing.on = False
        return False

    def _started_here(self, tool: str, path: str, params: list[tuple[str, str]] | None) -> None:
        """In ``prefetch``: the read's first GET is started instead of sent (tagged with the tool and the request
        as ``tool_calls`` cite it), and the read stops there."""
        if getattr(self._probing, "on", False):
            request = self._request("GET", path, params=params, headers=self._auth_header())
            check_request(request, self._http.prefix)
            raise _Started(self._start(request, (tool, request_text("GET", path, params))))

    # ---------------------------------------------------------------- tools
    def list_workloads(self, *, name: str, cluster_id: str, project: str) -> ToolResult:
        """``list_workloads``: exact name + cluster + project filters, newest phase update first, all pages."""
        check_name(name, "workload name")
        check_name(project, "project")
        check_id(cluster_id, "cluster id")

        def fn(get, invs: list[Invocation], notes: list[str]) -> list[Workload]:
            out: list[Workload] = []
            ids: set[str] = set()
            skips = Skips("listed workloads")
            filters = [f"name=={name}", f"clusterId=={cluster_id}", f"projectName=={project}"]
            for page in workload_pages(get, filters, self.page_limit, self.max_pages, invs, notes):
                # The server's filter is authoritative, but only exact matches are ever used.
                for wl in skips.parse(Workload, page):
                    if wl.id in ids:
                        continue  # a page served twice (a server that repeats pages): one candidate, probed once
                    if wl.name == name and wl.projectName == project and wl.clusterId == cluster_id:
                        ids.add(wl.id)
                        out.append(wl)
            notes[:0] = skips.note()
            return out

        return self._run("list_workloads", {"name": name, "clusterId": cluster_id, "project": project}, fn)

    def get_workload_status(self, workload_id: str, *, cutoff: datetime | None = None) -> ToolResult:
        """``get_workload_status``: the workload and its recent events, fetched concurrently. Events are read
        newest first, page after page, until a page reaches ``cutoff`` (the lookback) or ``next`` ends; a cut
        before that is stated in ``notes``. A bad event is skipped and counted, a bad workload field left out and
        named; only a body that is no workload object at all fails the read."""
        return self._status(workload_id, None, cutoff)

    def get_listed_workload_status(self, listed: Workload, *, cutoff: datetime | None = None) -> ToolResult:
        """``get_workload_status`` of a workload exactly as a list page returned it (fleet triage): its events are
        read, the listed object stands in for ``GET …/{id}``."""
        return self._status(listed.id, listed, cutoff)

    def get_admitted_workload_status(self, workload_id: str, admit: Callable[[Workload], None], *,
                                     cutoff: datetime | None = None) -> ToolResult:
        """``get_workload_status`` with ``admit(workload)`` (the service's scope check) run on the workload before
        its events are read, which wait for it: what it raises ends the read after its one request."""
        return self._status(workload_id, None, cutoff, admit)

    def _status(self, workload_id: str, listed: Workload | None, cutoff: datetime | None,
                admit: Callable[[Workload], None] | None = None) -> ToolResult:
        check_id(workload_id, "workload id")
        wid = quote(workload_id, safe="")

        def fn(get, invs: list[Invocation], notes: list[str]) -> WorkloadStatus:
            event_invs: list[Invocation] = []
            event_notes: list[str] = []
            # the events are read beside the workload: their first page started ahead on a transport that can
            # (the service's event loop), else on a shared pool (no thread is started per read); after it when
            # this client reads one thing at a time (concurrent_reads=False) or the workload must be admitted first
            alongside = listed is None and admit is None
            args = (self._events, get, wid, cutoff, event_invs, event_notes)
            if alongside and self._start is not None:
                self._probe(lambda: self._events(get, wid, cutoff, [], []))
            fe = beside(*args) if alongside and self._start is None and self.concurrent_reads else None
            if listed is None:
                try:
                    body, inv = get(f"/api/v1/workloads/{wid}")
                except BaseException as x:  # without the workload there is no status: its error is the read's
                    if fe is not None:  # (the events read ends first, whatever it gives, and is listed too)
                        if getattr(x, "invocation", None) is not None:
                            invs.append(x.invocation)
                        e = fe.exception()
                        if getattr(e, "invocation", None) is not None:
                            event_invs.append(e.invocation)
                        invs.extend(event_invs)
                        if isinstance(e, (ToolFailure, Absent)):
                            notes.append(f"the events read failed too: {getattr(e, 'message', None) or e}")
                    raise
                invs.append(inv)
                if admit is not None and isinstance(body, dict):
                    admit(parse_lenient(Workload, body, "workload")[0])
            if fe is None:
                fe = inline(*args)
            events: list[Event] | None
            events_error = None
            try:
                events = fe.result()
            except (ToolFailure, Absent) as e:
                events = None
                events_error = getattr(e, "message", None) or str(e)
                if getattr(e, "invocation", None) is not None:
                    event_invs.append(e.invocation)
            invs.extend(event_invs)
            if listed is not None:
                workload, problems = listed, []
            else:
                if not isinstance(body, dict):
                    raise ToolFailure(ErrorKind.MALFORMED, f"GET /api/v1/workloads/{wid} returned "
                                                           f"{json_kind(body)} where a workload object was expected")
                workload, problems = parse_lenient(Workload, body, "workload")
            notes.extend(problems + (event_notes if events is not None else []))
            return WorkloadStatus(workload=workload, events=events, events_error=events_error)

        return self._run("get_workload_status", {"workloadId": workload_id}, fn)

    def _events(self, get, wid: str, cutoff: datetime | None, invs: list[Invocation],
                notes: list[str]) -> list[Event]:
        """Every page of events down to ``cutoff`` (at most ``max_event_pages``), bad items skipped and counted."""
        events: list[Event] = []
        skips = Skips("events")
        offset, seen = 0, {0}
        for _ in range(self.max_event_pages):
            body, inv = get(f"/api/v1/workloads/{wid}/events",
                            [("sortOrder", "desc"), ("offset", str(offset)), ("limit", str(self.page_limit))])
            invs.append(inv)
            raw = body.get("events") if isinstance(body, dict) else None
            if not isinstance(raw, list):
                raise ToolFailure(ErrorKind.MALFORMED, "events response has no 'events' list")
            good = skips.parse(Event, raw)
            events += good
            nxt = body.get("next")
            if nxt is None or not raw:
                break
            if cutoff is not None and any((t := parse_time(e.createdAt)) is not None and t < cutoff for e in good):
                break  # this page reached the lookback: older events are outside the window
            if not isinstance(nxt, int) or isinstance(nxt, bool) or nxt <= offset or nxt in seen:
                notes.append(f"events pagination stopped: the server returned next={nxt!r} after offset {offset}; "
                             "older events in the lookback were not read")
                break
            seen.add(nxt)
            offset = nxt
        else:
            notes.append(f"events pagination stopped after {self.max_event_pages} pages ({len(events)} events) "
                         "before the lookback was reached: older events were not read")
        notes[:0] = skips.note()
        return events

    def get_workload_spec(self, workload_id: str, workload_type: str | None) -> ToolResult:
        """``get_workload_spec``: the submitted spec from the per-kind endpoint (absent kind → ABSENT)."""
        check_id(workload_id, "workload id")
        kind = spec_kind_path(workload_type)
        if kind is None:
            return no_spec(workload_type)

        def fn(get, invs: list[Invocation], notes: list[str]) -> SubmittedSpec:
            body, inv = get(f"/api/v1/workloads/{kind}/{quote(workload_id, safe='')}")
            invs.append(inv)
            if not isinstance(body, dict) or not isinstance(body.get("spec"), dict):
                raise ToolFailure(ErrorKind.MALFORMED, "spec response has no 'spec' object")
            return SubmittedSpec(kind=kind, body=body)

        return self._run("get_workload_spec", {"workloadId": workload_id, "workloadType": workload_type}, fn)

    def get_workload_pods(self, workload_id: str) -> ToolResult:
        check_id(workload_id, "workload id")

        def fn(get, invs: list[Invocation], notes: list[str]) -> list[Pod]:
            pods: list[Pod] = []
            skips = Skips("pods")
            offset = 0
            for _ in range(self.max_pages):
                body, inv = get(f"/api/v1/workloads/{quote(workload_id, safe='')}/pods",
                                [("offset", str(offset)), ("limit", str(self.page_limit))])
                invs.append(inv)
                if not isinstance(body, dict) or not isinstance(body.get("pods"), list):
                    raise ToolFailure(ErrorKind.MALFORMED, "pods response has no 'pods' list")
                pods += skips.parse(Pod, body["pods"])
                nxt = body.get("next")
                if nxt is None or not body["pods"]:
                    break
                if not isinstance(nxt, int) or nxt <= offset:
                    notes.append(f"pagination stopped: the server returned next={nxt!r} after offset {offset}")
                    break
                offset = nxt
            else:
                notes.append(f"pagination stopped after {self.max_pages} pages")
            notes[:0] = skips.note()
            return pods

        return self._run("get_workload_pods", {"workloadId": workload_id}, fn)

    def get_workload_history(self, workload_id: str, *, cutoff: datetime) -> ToolResult:
        """``get_workload_history``: newest first, limit=50, following ``next`` until null or past the cutoff."""
        check_id(workload_id, "workload id")

        def fn(get, invs: list[Invocation], notes: list[str]) -> History:
            records: list[HistoryRecord] = []
            skips = Skips("history records")
            offset, pages = 0, 0
            reached = False
            while True:
                if pages >= self.max_pages:
                    notes.append(f"history pagination stopped after {self.max_pages} pages before the lookback "
                                 "cutoff: older records in the window were not read")
                    break
                body, inv = get(f"/api/v1/workloads/{quote(workload_id, safe='')}/history",
                                [("offset", str(offset)), ("limit", "50")])
                invs.append(inv)
                pages += 1
                if not isinstance(body, dict) or not isinstance(body.get("records"), list):
                    raise ToolFailure(ErrorKind.MALFORMED, "history response has no 'records' list")
                kept, page_old = history_page(body["records"], cutoff, skips)
                records += kept
                nxt = body.get("next")
                if page_old:
                    reached = True
                    break
                if nxt is None or not body["records"]:
                    break
                if not isinstance(nxt, int) or nxt <= offset:
                    notes.append(f"history pagination stopped: the server returned next={nxt!r} after "
                                 f"offset {offset}")
                    break
                offset = nxt
            notes[:0] = skips.note()
            return History(records=records, pages=pages, reached_cutoff=reached)

        return self._run("get_workload_history", {"workloadId": workload_id, "cutoff": iso(cutoff)}, fn)

    def get_workload_metrics(self, workload_id: str, *, start: datetime, end: datetime,
                             metric_types: tuple[str, ...] = OOM_METRICS, samples: int = 1000) -> ToolResult:
        """``get_workload_metrics``: ``metricType`` repeated, ``start``/``end`` ISO 8601, string values parsed."""
        check_id(workload_id, "workload id")

        def fn(get, invs: list[Invocation], notes: list[str]) -> list[MetricSeries]:
            params = [("metricType", t) for t in metric_types]
            params += [("start", iso(start)), ("end", iso(end)), ("numberOfSamples", str(samples))]
            raw: list = []
            body, inv = get(f"/api/v1/workloads/{quote(workload_id, safe='')}/metrics", params, raw)
            invs.append(inv)
            if not isinstance(body, dict) or not isinstance(body.get("measurements"), list):
                raise ToolFailure(ErrorKind.MALFORMED, "metrics response has no 'measurements' list")
            skips = Skips("metric series")
            out = metric_series(body["measurements"], raw[0] if raw else None, skips)
            notes[:0] = skips.note()
            return out

        return self._run("get_workload_metrics", {"workloadId": workload_id, "start": iso(start), "end": iso(end),
                                                 "metricTypes": list(metric_types)}, fn)

