"""Tier 1: the Run:ai control-plane REST API, read-only, through httpx.

Paths and shapes follow ``shared/reference/runai-api.md`` and Run:ai's OpenAPI spec. Each public method maps to
one tool named by the skill (``list_workloads``, ``get_workload_status``, ``get_workload_spec``,
``get_workload_pods``, ``get_workload_history``, ``get_workload_metrics``) and returns a typed
:class:`tools.base.ToolResult`. Every response body passes the guardrails (normalise, redact, injection scan)
before it is parsed into a model, so nothing downstream ever sees a raw secret.
"""
from __future__ import annotations

import json
import os
import re
import threading
import time
from datetime import datetime
from typing import Any, Callable
from urllib.parse import quote

import httpx
from pydantic import ValidationError

from tools.base import ErrorKind, Invocation, ToolFailure, ToolResult
from tools.runai.errors import ApiAuthError, ApiUnavailable, InvalidInput
from tools.runai.ids import check_id, check_name
from tools.runai.models import (
    OOM_METRICS,
    Skips,
    Event,
    History,
    HistoryRecord,
    MetricSample,
    MetricSeries,
    PhaseUpdate,
    Pod,
    SubmittedSpec,
    Workload,
    WorkloadStatus,
    field_problem,
    parse_lenient,
)
from tools.deadline import Deadline
from tools.runai.results import Absent, no_spec, tool_result
from tools.timeutil import iso, parse_time
from tools.transport import make_client

__all__ = ["RunaiClient", "SPEC_PATH_BY_KIND", "spec_kind_path", "request_text", "check_base_url", "metric_series",
           "history_record", "history_page"]

SPEC_PATH_BY_KIND = {"training": "trainings", "workspace": "workspaces", "inference": "inferences",
                     "distributed": "distributed"}


def spec_kind_path(workload_type: str | None) -> str | None:
    """Map a workload ``type`` onto the per-kind spec endpoint; None when the kind has no spec endpoint."""
    t = (workload_type or "").strip().lower()
    for key, path in SPEC_PATH_BY_KIND.items():
        if key in t:
            return path
    if t in {"interactive", "interactiveworkload"}:
        return "workspaces"
    return None


def request_text(method: str, path: str, query: list[tuple[str, str]] | None = None) -> str:
    """The request as reports cite it: ``GET /api/v1/workloads?filterBy=name==x&limit=50`` (query unencoded,
    in the order sent). This string is public contract (``tool_calls[].request``): do not change its form."""
    q = "&".join(f"{k}={v}" for k, v in (query or []))
    return f"{method} {path}{'?' + q if q else ''}"


# ----------------------------------------------------------------------------------------------- client
MAX_JSON_DEPTH = 100  # deeper nesting is not a Run:ai body: refused before anything recurses over it


def check_base_url(url: str, origin: str = "--runai-url") -> str:
    """The Run:ai base URL, validated: http(s), a host, an optional path prefix (``https://host/runai``), no
    credentials, query or fragment. InvalidInput (one line) otherwise."""
    from urllib.parse import urlsplit

    import guardrails

    hint = "use http(s)://HOST[:PORT][/PATH-PREFIX], e.g. https://runai.example.com"
    text = (url or "").strip()
    shown = repr(guardrails.redact(text)[:200])  # the user's own text is redacted before it is printed
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018  (raises ValueError for a port that is not a number in range)
    except ValueError:
        raise InvalidInput(f"{origin} {shown} is not a usable URL: {hint}") from None
    if parts.username is not None or parts.password is not None:
        raise InvalidInput(f"{origin} must not carry credentials (use RUNAI_CLIENT_ID / RUNAI_CLIENT_SECRET): {hint}")
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or any(c.isspace() for c in text):
        raise InvalidInput(f"{origin} {shown} is not a usable URL: {hint}")
    if parts.query or parts.fragment or text.endswith(("?", "#")):
        raise InvalidInput(f"{origin} must not have a query or fragment: {hint}")
    return text.rstrip("/")


def _json_depth_ok(body: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """Iterative (never recursive) check that ``body`` nests at most ``limit`` levels."""
    stack = [(body, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (dict, list)):
            if d > limit:
                return False
            stack.extend((c, d + 1) for c in (v.values() if isinstance(v, dict) else v))
    return True


class _Answer:
    """A response whose body was read within the cap (only 2xx bodies are read at all)."""

    __slots__ = ("status_code", "headers", "content")

    def __init__(self, status_code: int, headers: httpx.Headers, content: bytes):
        self.status_code, self.headers, self.content = status_code, headers, content


class RunaiClient:
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
    ):
        """``bearer_token`` replaces the client credentials: a caller's own Run:ai token (pass-through, so Run:ai's
        RBAC decides), or ``fn(refresh) -> token``, a token cache shared by many clients (``refresh`` after a 401).
        ``concurrent_reads=False``: the workload and its events are read one after the other (a service or a fleet
        running many diagnoses at once: see ``Limits.concurrent_reads``)."""
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
        self.injections: list[Any] = []  # guardrail findings from every body read (appended under a lock)
        self._inj_lock = threading.Lock()

    def close(self) -> None:
        self._http.close()

    def view(self) -> "RunaiClient":
        """A view for one of many concurrent diagnoses (fleet triage): the same connection pool, settings and
        token, its own ``injections`` (a report lists only what its own reads found). Close the parent, not it."""
        import copy

        self.ensure_token()
        v = copy.copy(self)
        v.injections, v._inj_lock = [], threading.Lock()
        return v

    # ---------------------------------------------------------------- auth
    def _fetch_token(self) -> str:
        """client_credentials on /api/v1/token, falling back to the v2 OAuth2 form flow."""
        try:
            r = self._send_with_retries("POST", "/api/v1/token", json_body={
                "grantType": "client_credentials", "clientID": self._client_id,
                "clientSecret": self._client_secret})[0]
            if r.status_code in (404, 405, 501):
                r = self._send_with_retries("POST", "/api/v2/token", form={
                    "grant_type": "client_credentials", "client_id": self._client_id,
                    "client_secret": self._client_secret})[0]
        except ToolFailure as e:
            raise ApiUnavailable(f"cannot reach the Run:ai API at {self.base_url}: {e.message}") from e
        if r.status_code in (400, 401, 403):
            raise ApiAuthError(f"the Run:ai API at {self.base_url} refused the credentials (HTTP {r.status_code})")
        if r.status_code != 200:
            raise ApiUnavailable(f"the Run:ai token endpoint at {self.base_url} answered HTTP {r.status_code}")
        try:
            body = json.loads(r.content)
        except (ValueError, RecursionError) as e:
            raise ApiUnavailable("the Run:ai token endpoint returned a body that is not JSON") from e
        token = body.get("accessToken") or body.get("access_token") if isinstance(body, dict) else None
        if not token or not isinstance(token, str):
            # a 200 without a token is a broken endpoint, not a refusal of the credentials (exit 3, not 4)
            raise ApiUnavailable("the Run:ai token endpoint answered 200 without an access token")
        return token

    def _auth_header(self, refresh: bool = False) -> dict[str, str]:
        """The bearer token, exchanged ONCE for all threads (a refresh on 401 is the one other exchange); when the
        exchange failed, every later caller gets the same failure at once instead of trying again."""
        with self._token_lock:
            if self._bearer is not None:  # a given token: never the client credentials
                self._token = self._bearer(refresh) if callable(self._bearer) else self._bearer
                return {"Authorization": f"Bearer {self._token}"}
            if self._token_error is not None:  # a fresh exception per thread (one object raised twice would mix
                err = type(self._token_error)(str(self._token_error))  # their tracebacks), with the same cause
                raise err from self._token_error.__cause__
            if self._token is None or refresh:
                try:
                    self._token = self._fetch_token()
                except (ApiUnavailable, ApiAuthError) as e:
                    self._token_error = e
                    raise
            return {"Authorization": f"Bearer {self._token}"}

    def ensure_token(self, refresh: bool = False) -> str:
        """The bearer token reads send (exchanged for the client credentials once; again with ``refresh``)."""
        return self._auth_header(refresh)["Authorization"].removeprefix("Bearer ")

    # ---------------------------------------------------------------- transport with retries
    def _send_once(self, method: str, path: str, **kw: Any) -> _Answer:
        """One request, its body streamed and cut at the cap; only a 2xx body is read (others are closed)."""
        with self.deadline.scope(self.read_total):
            r = self._http.send_streamed(self._request(method, path, **kw))
            try:
                if not (200 <= r.status_code < 300):
                    return _Answer(r.status_code, r.headers, b"")
                return _Answer(r.status_code, r.headers, self._read_capped(r, method, path))
            finally:
                r.close()

    def _request(self, method: str, path: str, *, params: list[tuple[str, str]] | None = None,
                 json: dict | None = None, data: dict | None = None, headers: dict | None = None) -> httpx.Request:
        """What ``Client.build_request`` builds (the client's headers and timeout, ``path`` under the base URL), made
        directly: merging a relative URL costs more than the rest of a request's preparation."""
        h = httpx.Headers(self._http.headers)
        if headers:
            h.update(headers)
        return httpx.Request(method, self.base_url + path, params=params, json=json, data=data, headers=h,
                             extensions={"timeout": self._timeout})

    def _read_capped(self, r: httpx.Response, method: str, path: str) -> bytes:
        cap = self.max_body_bytes
        declared = r.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > cap:
            raise ToolFailure(ErrorKind.TOO_LARGE, f"{method} {path} announced a {_size(int(declared))} body, above "
                                                   f"the {_size(cap)} cap (Limits.max_body_bytes): not read",
                              r.status_code)
        chunks: list[bytes] = []
        total = 0
        for chunk in r.iter_bytes():  # decoded: a compressed body is capped at what it expands to
            total += len(chunk)
            if total > cap:
                raise ToolFailure(ErrorKind.TOO_LARGE, f"{method} {path} sent a body larger than the {_size(cap)} "
                                                       "cap (Limits.max_body_bytes): not read further", r.status_code)
            chunks.append(chunk)
            if self.deadline.expired:  # a transport that does not clamp its reads (a test double)
                raise httpx.ReadTimeout("deadline")
        return b"".join(chunks)

    def _send_with_retries(self, method: str, path: str, *, params: list[tuple[str, str]] | None = None,
                           json_body: dict | None = None, form: dict | None = None,
                           headers: dict | None = None) -> tuple[_Answer, int]:
        last: ToolFailure | None = None
        what = request_text(method, path, params)
        for attempt in range(1, self.max_attempts + 1):
            if self.deadline.expired:
                raise ToolFailure(ErrorKind.TIMEOUT, self.deadline.stopped(what))
            try:
                r = self._send_once(method, path, params=params, json=json_body, data=form, headers=headers)
            except httpx.TimeoutException as e:
                if self.deadline.expired:
                    raise ToolFailure(ErrorKind.TIMEOUT, self.deadline.stopped(what)) from None
                last = ToolFailure(ErrorKind.TIMEOUT, f"{method} {path} timed out ({type(e).__name__})")
            except httpx.TransportError as e:
                if self.deadline.expired:
                    raise ToolFailure(ErrorKind.TIMEOUT, self.deadline.stopped(what)) from None
                last = ToolFailure(ErrorKind.UNREACHABLE, f"{method} {path} failed: {type(e).__name__}: {e}")
            else:
                if r.status_code == 429 or r.status_code >= 500:
                    kind = ErrorKind.RATE_LIMITED if r.status_code == 429 else ErrorKind.SERVER_ERROR
                    last = ToolFailure(kind, f"{method} {path} answered HTTP {r.status_code}", r.status_code)
                    if attempt < self.max_attempts:
                        self._sleep(self._retry_delay(attempt, r.headers.get("Retry-After")))
                    continue
                return r, attempt
            if attempt < self.max_attempts:
                self._sleep(self._retry_delay(attempt, None))
        assert last is not None
        last.message += f" after {self.max_attempts} attempts"
        raise last

    def _retry_delay(self, attempt: int, retry_after: str | None) -> float:
        if retry_after:
            try:
                return min(max(float(retry_after), 0.0), self.max_retry_after)
            except ValueError:
                pass
        return min(self.backoff * (2 ** (attempt - 1)), self.max_retry_after)

    def _get_json(self, tool: str, arguments: dict[str, Any], path: str,
                  params: list[tuple[str, str]] | None = None, raw_out: list | None = None) -> tuple[Any, Invocation]:
        """GET with auth, retries, one token refresh on 401, and guardrails applied to the body.

        ``raw_out`` (optional) receives the parsed body as served, before normalisation: numbers are checked
        against it, because Unicode normalisation turns e.g. full-width digits into ASCII ones."""
        inv = Invocation(tool=tool, arguments=dict(arguments), request=request_text("GET", path, params))
        t0 = time.perf_counter()
        try:
            return self._get_json_inner(path, params, inv, raw_out)
        except ToolFailure as f:
            # a failed read is still a read that was made: it stays listed in the result's tool_calls
            if inv.status_code is None:
                inv.status_code, inv.attempts = f.status_code, self.max_attempts
            f.invocation = inv
            raise
        finally:
            if self._on_invocation is not None:
                self._on_invocation(inv, (time.perf_counter() - t0) * 1000.0)

    def _get_json_inner(self, path: str, params: list[tuple[str, str]] | None,
                        inv: Invocation, raw_out: list | None = None) -> tuple[Any, Invocation]:
        r, attempts = self._send_with_retries("GET", path, params=params, headers=self._auth_header())
        if r.status_code == 401:
            r, more = self._send_with_retries("GET", path, params=params, headers=self._auth_header(refresh=True))
            attempts += more
        inv.status_code, inv.attempts = r.status_code, attempts
        if r.status_code == 404:
            raise _Absent(inv, f"GET {path} answered 404 (not found)", 404)
        if r.status_code == 401:
            raise ToolFailure(ErrorKind.UNAUTHORIZED, f"GET {path} answered 401 after a token refresh", 401)
        if r.status_code == 403:
            raise ToolFailure(ErrorKind.FORBIDDEN, f"GET {path} answered 403 (the service account lacks read "
                                                   "access)", 403)
        if not (200 <= r.status_code < 300):
            raise ToolFailure(ErrorKind.OTHER, f"GET {path} answered HTTP {r.status_code}", r.status_code)
        body = _parse_body(r, f"GET {path}")
        if raw_out is not None:
            raw_out.append(body)
        try:
            return self._sanitize(body), inv
        except RecursionError:
            raise ToolFailure(ErrorKind.MALFORMED, f"GET {path} returned JSON nested too deeply to read",
                              r.status_code) from None

    def _sanitize(self, body: Any) -> Any:
        import guardrails

        clean, findings = guardrails.sanitize_value(body)
        if findings:
            with self._inj_lock:
                self.injections.extend(findings)
        return clean

    def _run(self, tool: str, arguments: dict[str, Any],
             fn: Callable[[Callable[..., tuple[Any, Invocation]], list[Invocation], list[str]], Any]) -> ToolResult:
        """Run one skill tool: ``fn(get, invocations, notes)``, where ``get(path, params=None, raw_out=None)`` is a
        guarded GET whose :class:`Invocation` names this tool and the ``arguments`` the caller gave."""
        invocations: list[Invocation] = []
        notes: list[str] = []

        def get(path: str, params: list[tuple[str, str]] | None = None,
                raw_out: list | None = None) -> tuple[Any, Invocation]:
            return self._get_json(tool, arguments, path, params, raw_out)

        return tool_result(tool, invocations, notes, lambda: fn(get, invocations, notes))

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
            offset = 0
            seen: set[int] = set()
            for _ in range(self.max_pages):
                params = [("filterBy", f"name=={name}"), ("filterBy", f"clusterId=={cluster_id}"),
                          ("filterBy", f"projectName=={project}"), ("sortBy", "phaseUpdatedAt"),
                          ("sortOrder", "desc"), ("offset", str(offset)), ("limit", str(self.page_limit))]
                body, inv = get("/api/v1/workloads", params)
                invs.append(inv)
                if not isinstance(body, dict) or not isinstance(body.get("workloads"), list):
                    raise ToolFailure(ErrorKind.MALFORMED, "GET /api/v1/workloads: no 'workloads' list")
                # The server's filter is authoritative, but only exact matches are ever used.
                for wl in skips.parse(Workload, body["workloads"]):
                    if wl.id in ids:
                        continue  # a page served twice (a server that repeats pages): one candidate, probed once
                    if wl.name == name and wl.projectName == project and wl.clusterId == cluster_id:
                        ids.add(wl.id)
                        out.append(wl)
                nxt = body.get("next")
                if nxt is None or not body["workloads"]:
                    break
                if not isinstance(nxt, int) or nxt <= offset or nxt in seen:
                    notes.append(f"pagination stopped: the server returned next={nxt!r} after offset {offset}")
                    break
                seen.add(nxt)
                offset = nxt
            else:
                notes.append(f"pagination stopped after {self.max_pages} pages")
            notes[:0] = skips.note()
            return out

        return self._run("list_workloads", {"name": name, "clusterId": cluster_id, "project": project}, fn)

    def get_workload_status(self, workload_id: str, *, cutoff: datetime | None = None) -> ToolResult:
        """``get_workload_status``: the workload and its recent events, fetched concurrently. Events are read
        newest first, page after page, until a page reaches ``cutoff`` (the lookback) or ``next`` ends; a cut
        before that is stated in ``notes``. A bad event is skipped and counted, a bad workload field left out and
        named; only a body that is no workload object at all fails the read."""
        return self._status(workload_id, None, cutoff)

    def get_admitted_workload_status(self, workload_id: str, admit: Callable[[Workload], None], *,
                                     cutoff: datetime | None = None) -> ToolResult:
        """``get_workload_status`` with ``admit(workload)`` (the service's scope check) run on the workload before
        its events are read, which wait for it: what it raises ends the read after its one request."""
        return self._status(workload_id, None, cutoff, admit)

    def get_listed_workload_status(self, listed: Workload, *, cutoff: datetime | None = None) -> ToolResult:
        """``get_workload_status`` of a workload exactly as a list page returned it (fleet triage): its events are
        read, the listed object stands in for ``GET …/{id}``."""
        return self._status(listed.id, listed, cutoff)

    def _status(self, workload_id: str, listed: Workload | None, cutoff: datetime | None,
                admit: Callable[[Workload], None] | None = None) -> ToolResult:
        check_id(workload_id, "workload id")
        wid = quote(workload_id, safe="")

        def fn(get, invs: list[Invocation], notes: list[str]) -> WorkloadStatus:
            event_invs: list[Invocation] = []
            event_notes: list[str] = []
            # the events are read beside the workload (a shared pool: no thread is started per read), or after
            # it when this client reads one thing at a time (concurrent_reads=False)
            beside = listed is None and self.concurrent_reads and admit is None
            args = (self._events, get, wid, cutoff, event_invs, event_notes)
            fe = _beside(*args) if beside else None
            if listed is None:
                try:
                    body, inv = get(f"/api/v1/workloads/{wid}")
                except BaseException:  # without the workload there is no status: its error is the read's
                    if fe is not None:
                        fe.exception()  # (the events read ends first, whatever it gives)
                    raise
                invs.append(inv)
                if admit is not None and isinstance(body, dict):
                    admit(parse_lenient(Workload, body, "workload")[0])
            if fe is None:
                fe = _inline(*args)
            events: list[Event] | None
            events_error = None
            try:
                events = fe.result()
            except (ToolFailure, _Absent) as e:
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
                                                           f"{_json_kind(body)} where a workload object was expected")
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


def metric_series(measurements: list, raw: Any, skips: Skips | None = None) -> list[MetricSeries]:
    """The series of a metrics body's (sanitised) ``measurements``; ``raw`` is the body as served, before
    normalisation: a value counts only if it was a plain number as served (shared by every source). A series that
    is not usable is counted in ``skips`` (when given) and left out; the others are kept."""
    skips = skips or Skips("metric series")
    raw_ms = raw.get("measurements") if isinstance(raw, dict) else None
    out: list[MetricSeries] = []
    for idx, m in enumerate(measurements):
        if not isinstance(m, dict) or not isinstance(m.get("type"), str):
            skips.skip("field 'type' is not a string" if isinstance(m, dict) else "an item is not an object")
            continue
        skips.keep()
        raw_m = raw_ms[idx] if isinstance(raw_ms, list) and idx < len(raw_ms) else None
        served_vals = raw_m.get("values") if isinstance(raw_m, dict) else None
        samples_: list[MetricSample] = []
        bad = 0
        values_ = m.get("values")
        if values_ is not None and not isinstance(values_, list):
            values_, bad = [], 1  # not a list of samples: one unusable value, never iterated
        for j, v in enumerate(values_ or []):
            val = _parse_metric_value(v.get("value") if isinstance(v, dict) else None)
            rv = served_vals[j] if isinstance(served_vals, list) and j < len(served_vals) else None
            if val is not None and (not isinstance(rv, dict) or _parse_metric_value(rv.get("value")) != val):
                val = None  # the value as served was not a plain number (it only became one when normalised)
            if val is None:
                bad += 1
                continue
            ts = v.get("timestamp")
            samples_.append(MetricSample(timestamp=ts if isinstance(ts, str) else None, value=val))
        out.append(MetricSeries(type=m["type"], samples=samples_, unparsable=bad))
    return out


_POOL: Any = None
_POOL_LOCK = threading.Lock()


def _read_pool() -> Any:
    """One thread pool for the reads a diagnosis makes beside another (the events beside the workload), shared
    by every client of the process: threads are started once, not per read."""
    global _POOL
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                from concurrent.futures import ThreadPoolExecutor

                _POOL = ThreadPoolExecutor(max_workers=32, thread_name_prefix="runai-read")
    return _POOL


def _beside(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` started on the shared read pool; its future.

    Ctrl-C can land while ``submit`` starts a new pool thread, after the thread runs but before the pool records
    it for the interpreter's exit, which then waits for that thread for ever (the chat hung on Ctrl-C in CI). The
    pool is then shut down, which wakes every thread of it, recorded or not, once its read ends; the next read
    gets a new pool."""
    global _POOL
    pool = _read_pool()
    try:
        return pool.submit(fn, *args)
    except BaseException:
        with _POOL_LOCK:
            if _POOL is pool:
                _POOL = None
        pool.shutdown(wait=False)
        raise


def _forget_pool_in_child() -> None:
    """A forked child makes its own pool: fork copies the parent's but none of its threads (work queued there
    would never run), and the parent's lock may have been held by a thread at the fork."""
    global _POOL, _POOL_LOCK
    _POOL, _POOL_LOCK = None, threading.Lock()


if hasattr(os, "register_at_fork"):  # (no fork, so nothing to forget, where it is missing)
    os.register_at_fork(after_in_child=_forget_pool_in_child)


def _inline(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` run now, as a completed future (one read needs no thread)."""
    from concurrent.futures import Future

    f: Future = Future()
    try:
        f.set_result(fn(*args))
    except BaseException as e:  # noqa: BLE001 - delivered through the future like pool.submit would
        f.set_exception(e)
    return f


_Absent = Absent


_DECIMAL = re.compile(r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$", re.ASCII)


def _parse_metric_value(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        f = float(v)
    elif isinstance(v, str):
        # Only a plain ASCII decimal: float() would also accept "1_000", full-width or Arabic-Indic digits.
        if not _DECIMAL.match(v.strip()):
            return None
        f = float(v.strip())
    else:
        return None
    if f != f or f in (float("inf"), float("-inf")) or f < 0:
        return None
    return f


def history_record(raw: Any) -> tuple[HistoryRecord | None, str]:
    """One history record, or None with the reason it cannot be used (shared by every source)."""
    if not isinstance(raw, dict):
        return None, "an item is not an object"
    meta = raw.get("meta") if isinstance(raw.get("meta"), dict) else {}
    spec = raw.get("spec") if isinstance(raw.get("spec"), dict) else {}
    ev = spec.get("event")
    pu = spec.get("phaseUpdate")
    try:
        event = Event.model_validate(ev) if isinstance(ev, dict) else None
        phase = PhaseUpdate.model_validate(pu) if isinstance(pu, dict) else None
    except ValidationError as e:
        part = "spec.event" if isinstance(ev, dict) and _fails(Event, ev) else "spec.phaseUpdate"
        return None, field_problem({**e.errors()[0], "loc": (part, *e.errors()[0]["loc"])})
    at = meta.get("creationTimestamp") or (event.createdAt if event else None)
    typ = meta.get("type")
    return HistoryRecord(at=at if isinstance(at, str) else None, type=typ if isinstance(typ, str) else None,
                         event=event, phase_update=phase), ""


def history_page(raws: list, cutoff: datetime, skips: Skips) -> tuple[list[HistoryRecord], bool]:
    """One page of history records (shared by every source): the usable ones newer than ``cutoff``, the bad ones
    counted in ``skips``, and whether the page reached the cutoff."""
    out: list[HistoryRecord] = []
    reached = False
    for raw in raws:
        rec, why = history_record(raw)
        if rec is None:
            skips.skip(why)
            continue
        skips.keep()
        at = parse_time(rec.at)
        if at is not None and at < cutoff:
            reached = True
            continue
        out.append(rec)
    return out, reached


def _fails(model, value: dict) -> bool:
    try:
        model.model_validate(value)
        return False
    except ValidationError:
        return True


def _json_kind(v: Any) -> str:
    return {str: "a JSON string", bool: "a JSON boolean", int: "a JSON number", float: "a JSON number",
            list: "a JSON array", type(None): "JSON null"}.get(type(v), "a JSON value")


def _size(n: int) -> str:
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= factor:
            return f"{n / factor:g} {unit}"
    return f"{n} bytes"


def _parse_body(r: _Answer, what: str) -> Any:
    """The JSON of a 2xx body; every way it is not usable JSON is one MALFORMED line naming what came instead."""
    ctype = (r.headers.get("Content-Type") or "").split(";")[0].strip().lower()
    try:
        body = json.loads(r.content)
    except UnicodeDecodeError:
        raise ToolFailure(ErrorKind.MALFORMED, f"{what} returned a body that is not valid UTF-8 JSON",
                          r.status_code) from None
    except RecursionError:
        raise ToolFailure(ErrorKind.MALFORMED, f"{what} returned JSON nested too deeply to read",
                          r.status_code) from None
    except ValueError:
        got = f" ({ctype})" if ctype and ctype != "application/json" else ""
        raise ToolFailure(ErrorKind.MALFORMED, f"{what} returned a body that is not valid JSON{got}",
                          r.status_code) from None
    if not _json_depth_ok(body):
        raise ToolFailure(ErrorKind.MALFORMED, f"{what} returned JSON nested deeper than {MAX_JSON_DEPTH} levels",
                          r.status_code)
    return body
