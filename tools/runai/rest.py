"""Tier 1: the Run:ai control-plane REST API, read-only, through httpx.

Paths and shapes follow ``shared/reference/runai-api.md`` and Run:ai's OpenAPI spec. Each public method maps to
one tool named by the skill (``list_workloads``, ``get_workload_status``, ``get_workload_spec``,
``get_workload_pods``, ``get_workload_history``, ``get_workload_metrics``) and returns a typed
:class:`tools.base.ToolResult`. Every response body passes the guardrails (normalise, redact, injection scan)
before it is parsed into a model, so nothing downstream ever sees a raw secret.
"""
from __future__ import annotations

import json
import re
import threading
import time
from datetime import datetime
from typing import Any, Callable
from urllib.parse import quote

import httpx
from pydantic import ValidationError

from tools.base import ErrorKind, Invocation, ToolFailure, ToolResult, ToolStatus
from tools.runai.errors import ApiAuthError, ApiUnavailable, InvalidInput
from tools.runai.ids import check_id, check_name
from tools.runai.models import (
    OOM_METRICS,
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
)
from tools.timeutil import iso, parse_time
from tools.transport import make_client

__all__ = ["RunaiClient", "SPEC_PATH_BY_KIND", "spec_kind_path", "request_text"]

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
class RunaiClient:
    """Read-only Run:ai REST client, the REST implementation of :class:`tools.runai.source.RunaiSource`.

    Thread-safe: the graph's parallel nodes share one instance."""

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
        sleep: Callable[[float], None] = time.sleep,
        bearer_token: str | Callable[[bool], str] | None = None,
    ):
        """``bearer_token`` replaces the client credentials: a caller's own Run:ai token (pass-through, so Run:ai's
        RBAC decides), or ``fn(refresh) -> token``, a token cache shared by many clients (``refresh`` after a 401)."""
        if not base_url:
            raise InvalidInput("no Run:ai URL: pass --runai-url or set RUNAI_BASE_URL")
        self.base_url = base_url.rstrip("/")
        self._client_id = client_id or ""
        self._client_secret = client_secret or ""
        self.max_attempts = max(1, max_attempts)
        self.backoff = backoff
        self.max_retry_after = max_retry_after
        self.max_pages = max_pages
        self.page_limit = page_limit
        self._sleep = sleep
        self._http = make_client(self.base_url, timeout=timeout, transport=transport)
        self._token: str | None = None
        self._bearer = bearer_token
        self._token_lock = threading.Lock()
        self.injections: list[Any] = []  # guardrail findings from every body read (appended under a lock)
        self._inj_lock = threading.Lock()

    def close(self) -> None:
        self._http.close()

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
            body = r.json()
        except ValueError as e:
            raise ApiUnavailable("the Run:ai token endpoint returned a body that is not JSON") from e
        token = body.get("accessToken") or body.get("access_token") if isinstance(body, dict) else None
        if not token or not isinstance(token, str):
            # a 200 without a token is a broken endpoint, not a refusal of the credentials (exit 3, not 4)
            raise ApiUnavailable("the Run:ai token endpoint answered 200 without an access token")
        return token

    def _auth_header(self, refresh: bool = False) -> dict[str, str]:
        with self._token_lock:
            if self._bearer is not None:  # a given token: never the client credentials
                self._token = self._bearer(refresh) if callable(self._bearer) else self._bearer
            elif self._token is None or refresh:
                self._token = self._fetch_token()
            return {"Authorization": f"Bearer {self._token}"}

    def ensure_token(self, refresh: bool = False) -> str:
        """The bearer token reads send (exchanged for the client credentials once; again with ``refresh``)."""
        return self._auth_header(refresh)["Authorization"].removeprefix("Bearer ")

    # ---------------------------------------------------------------- transport with retries
    def _send_with_retries(self, method: str, path: str, *, params: list[tuple[str, str]] | None = None,
                           json_body: dict | None = None, form: dict | None = None,
                           headers: dict | None = None) -> tuple[httpx.Response, int]:
        last: ToolFailure | None = None
        for attempt in range(1, self.max_attempts + 1):
            try:
                r = self._http.request(method, path, params=params, json=json_body, data=form, headers=headers)
            except httpx.TimeoutException as e:
                last = ToolFailure(ErrorKind.TIMEOUT, f"{method} {path} timed out ({type(e).__name__})")
            except httpx.TransportError as e:
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
        try:
            return self._get_json_inner(path, params, inv, raw_out)
        except ToolFailure as f:
            # a failed read is still a read that was made: it stays listed in the result's tool_calls
            if inv.status_code is None:
                inv.status_code, inv.attempts = f.status_code, self.max_attempts
            f.invocation = inv
            raise

    def _get_json_inner(self, path: str, params: list[tuple[str, str]] | None,
                        inv: Invocation, raw_out: list | None = None) -> tuple[Any, Invocation]:
        r, attempts = self._send_with_retries("GET", path, params=params, headers=self._auth_header())
        if r.status_code == 401:
            r, more = self._send_with_retries("GET", path, params=params, headers=self._auth_header(refresh=True))
            attempts += more
        inv.status_code, inv.attempts = r.status_code, attempts
        if r.status_code == 404:
            raise _Absent(inv, f"GET {path} answered 404 (not found)")
        if r.status_code == 401:
            raise ToolFailure(ErrorKind.UNAUTHORIZED, f"GET {path} answered 401 after a token refresh", 401)
        if r.status_code == 403:
            raise ToolFailure(ErrorKind.FORBIDDEN, f"GET {path} answered 403 (the service account lacks read "
                                                   "access)", 403)
        if not (200 <= r.status_code < 300):
            raise ToolFailure(ErrorKind.OTHER, f"GET {path} answered HTTP {r.status_code}", r.status_code)
        try:
            body = json.loads(r.content)
        except ValueError:
            raise ToolFailure(ErrorKind.MALFORMED, f"GET {path} returned a body that is not valid JSON",
                              r.status_code) from None
        if raw_out is not None:
            raw_out.append(body)
        return self._sanitize(body), inv

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

        try:
            data = fn(get, invocations, notes)
        except _Absent as a:
            invocations.append(a.invocation)
            return ToolResult(tool=tool, status=ToolStatus.ABSENT, invocations=invocations, notes=notes,
                              error=ToolFailure(ErrorKind.NOT_FOUND, a.message, 404).to_error())
        except ToolFailure as f:
            inv = getattr(f, "invocation", None)
            if inv is not None and inv not in invocations:
                invocations.append(inv)
            return ToolResult(tool=tool, status=ToolStatus.ERROR, invocations=invocations, notes=notes,
                              error=f.to_error())
        except ValidationError as e:
            return ToolResult(tool=tool, status=ToolStatus.ERROR, invocations=invocations, notes=notes,
                              error=ToolFailure(ErrorKind.MALFORMED, f"unexpected response shape: "
                                                f"{e.error_count()} field error(s)").to_error())
        return ToolResult(tool=tool, status=ToolStatus.OK, data=data, invocations=invocations, notes=notes)

    # ---------------------------------------------------------------- tools
    def list_workloads(self, *, name: str, cluster_id: str, project: str) -> ToolResult:
        """``list_workloads``: exact name + cluster + project filters, newest phase update first, all pages."""
        check_name(name, "workload name")
        check_name(project, "project")
        check_id(cluster_id, "cluster id")

        def fn(get, invs: list[Invocation], notes: list[str]) -> list[Workload]:
            out: list[Workload] = []
            ids: set[str] = set()
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
                for w in body["workloads"]:
                    wl = Workload.model_validate(w)
                    if wl.id in ids:
                        continue  # a page served twice (a server that repeats pages): one candidate, probed once
                    if wl.name == name and wl.projectName == project and wl.clusterId == cluster_id:
                        ids.add(wl.id)
                        out.append(wl)
                nxt = body.get("next")
                if nxt is None or not body["workloads"]:
                    return out
                if not isinstance(nxt, int) or nxt <= offset or nxt in seen:
                    notes.append(f"pagination stopped: the server returned next={nxt!r} after offset {offset}")
                    return out
                seen.add(nxt)
                offset = nxt
            notes.append(f"pagination stopped after {self.max_pages} pages")
            return out

        return self._run("list_workloads", {"name": name, "clusterId": cluster_id, "project": project}, fn)

    def get_workload_status(self, workload_id: str) -> ToolResult:
        """``get_workload_status``: the workload and its recent events, fetched concurrently."""
        check_id(workload_id, "workload id")
        wid = quote(workload_id, safe="")

        def fn(get, invs: list[Invocation], notes: list[str]) -> WorkloadStatus:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=2) as pool:
                fw = pool.submit(get, f"/api/v1/workloads/{wid}")
                fe = pool.submit(get, f"/api/v1/workloads/{wid}/events",
                                 [("sortOrder", "desc"), ("offset", "0"), ("limit", str(self.page_limit))])
                body, inv = fw.result()  # raises: without the workload there is no status
                invs.append(inv)
                events: list[Event] | None
                events_error = None
                try:
                    ebody, einv = fe.result()
                    invs.append(einv)
                    raw = ebody.get("events") if isinstance(ebody, dict) else None
                    if not isinstance(raw, list):
                        raise ToolFailure(ErrorKind.MALFORMED, "events response has no 'events' list")
                    events = [Event.model_validate(e) for e in raw if isinstance(e, dict)]
                except (ToolFailure, _Absent, ValidationError) as e:
                    events = None
                    events_error = getattr(e, "message", None) or str(e)
                    if getattr(e, "invocation", None) is not None:
                        invs.append(e.invocation)
            return WorkloadStatus(workload=Workload.model_validate(body), events=events, events_error=events_error)

        return self._run("get_workload_status", {"workloadId": workload_id}, fn)

    def get_workload_spec(self, workload_id: str, workload_type: str | None) -> ToolResult:
        """``get_workload_spec``: the submitted spec from the per-kind endpoint (absent kind → ABSENT)."""
        check_id(workload_id, "workload id")
        kind = spec_kind_path(workload_type)
        if kind is None:
            return ToolResult(tool="get_workload_spec", status=ToolStatus.ABSENT,
                              error=ToolFailure(ErrorKind.NOT_FOUND, f"workload type {workload_type!r} has no "
                                                "submitted-spec endpoint").to_error())

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
            offset = 0
            for _ in range(self.max_pages):
                body, inv = get(f"/api/v1/workloads/{quote(workload_id, safe='')}/pods",
                                           [("offset", str(offset)), ("limit", str(self.page_limit))])
                invs.append(inv)
                if not isinstance(body, dict) or not isinstance(body.get("pods"), list):
                    raise ToolFailure(ErrorKind.MALFORMED, "pods response has no 'pods' list")
                pods.extend(Pod.model_validate(p) for p in body["pods"] if isinstance(p, dict))
                nxt = body.get("next")
                if nxt is None or not body["pods"]:
                    return pods
                if not isinstance(nxt, int) or nxt <= offset:
                    notes.append(f"pagination stopped: the server returned next={nxt!r} after offset {offset}")
                    return pods
                offset = nxt
            notes.append(f"pagination stopped after {self.max_pages} pages")
            return pods

        return self._run("get_workload_pods", {"workloadId": workload_id}, fn)

    def get_workload_history(self, workload_id: str, *, cutoff: datetime) -> ToolResult:
        """``get_workload_history``: newest first, limit=50, following ``next`` until null or past the cutoff."""
        check_id(workload_id, "workload id")

        def fn(get, invs: list[Invocation], notes: list[str]) -> History:
            records: list[HistoryRecord] = []
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
                page_old = False
                for raw in body["records"]:
                    rec = _history_record(raw)
                    if rec is None:
                        continue
                    at = parse_time(rec.at)
                    if at is not None and at < cutoff:
                        page_old = True
                        continue
                    records.append(rec)
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
            raw_ms = raw[0].get("measurements") if raw and isinstance(raw[0], dict) else None
            out: list[MetricSeries] = []
            for idx, m in enumerate(body["measurements"]):
                if not isinstance(m, dict) or not isinstance(m.get("type"), str):
                    continue
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
                    samples_.append(MetricSample(timestamp=v.get("timestamp"), value=val))
                out.append(MetricSeries(type=m["type"], samples=samples_, unparsable=bad))
            return out

        return self._run("get_workload_metrics", {"workloadId": workload_id, "start": iso(start), "end": iso(end),
                                                 "metricTypes": list(metric_types)}, fn)


class _Absent(Exception):
    def __init__(self, invocation: Invocation, message: str):
        super().__init__(message)
        self.invocation = invocation
        self.message = message


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


def _history_record(raw: Any) -> HistoryRecord | None:
    if not isinstance(raw, dict):
        return None
    meta = raw.get("meta") if isinstance(raw.get("meta"), dict) else {}
    spec = raw.get("spec") if isinstance(raw.get("spec"), dict) else {}
    ev = spec.get("event")
    pu = spec.get("phaseUpdate")
    try:
        event = Event.model_validate(ev) if isinstance(ev, dict) else None
        phase = PhaseUpdate.model_validate(pu) if isinstance(pu, dict) else None
    except ValidationError:
        return None
    at = meta.get("creationTimestamp") or (event.createdAt if event else None)
    return HistoryRecord(at=at, type=meta.get("type"), event=event, phase_update=phase)
