"""The REST wire: every request of a :class:`~tools.runai.rest.RunaiClient` — built on the read-only transport
(:mod:`tools.transport`), its body streamed and cut at the cap, bounded by the per-read total and the diagnosis's
deadline, retried (429/5xx/transport errors, ``Retry-After`` capped), one token refresh on 401, the body parsed
(:func:`tools.runai.parse.load_json`) and sanitised before any model sees it."""
from __future__ import annotations

import time
from typing import Any, Callable

import httpx

from workload_diagnose.tools.base import ErrorKind, Invocation, ToolFailure, ToolResult
from workload_diagnose.tools.runai.errors import InvalidInput
from workload_diagnose.tools.runai.parse import load_json
from workload_diagnose.tools.runai.rest.reads import check_read
from workload_diagnose.tools.runai.results import Absent, tool_result

__all__ = ["Wire", "request_text", "check_base_url"]


def request_text(method: str, path: str, query: list[tuple[str, str]] | None = None) -> str:
    """The request as reports cite it: ``GET /api/v1/workloads?filterBy=name==x&limit=50`` (query unencoded,
    in the order sent). This string is public contract (``tool_calls[].request``): do not change its form."""
    q = "&".join(f"{k}={v}" for k, v in (query or []))
    return f"{method} {path}{'?' + q if q else ''}"



def check_base_url(url: str, origin: str = "--runai-url") -> str:
    """The Run:ai base URL, validated: http(s), a host, an optional path prefix (``https://host/runai``), no
    credentials, query or fragment. InvalidInput (one line) otherwise."""
    from urllib.parse import urlsplit

    from workload_diagnose import guardrails

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


class _Answer:
    """A response whose body was read within the cap (only 2xx bodies are read at all)."""

    __slots__ = ("status_code", "headers", "content")

    def __init__(self, status_code: int, headers: httpx.Headers, content: bytes):
        self.status_code, self.headers, self.content = status_code, headers, content



class Wire:
    """The guarded GET of the REST client (a mixin: the attributes are set by ``RunaiClient.__init__``)."""

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
        against it, because Unicode normalisation turns e.g. full-width digits into ASCII ones. A path outside the
        tool's read allow-list (:mod:`tools.runai.rest.reads`) is refused before anything is sent."""
        check_read(tool, path)
        self._started_here(tool, path, params)
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
            raise Absent(inv, f"GET {path} answered 404 (not found)", 404)
        if r.status_code == 401:
            raise ToolFailure(ErrorKind.UNAUTHORIZED, f"GET {path} answered 401 after a token refresh", 401)
        if r.status_code == 403:
            raise ToolFailure(ErrorKind.FORBIDDEN, f"GET {path} answered 403 (the service account lacks read "
                                                   "access)", 403)
        if not (200 <= r.status_code < 300):
            raise ToolFailure(ErrorKind.OTHER, f"GET {path} answered HTTP {r.status_code}", r.status_code)
        body = load_json(r.content, f"GET {path}", r.status_code, r.headers.get("Content-Type") or "")
        if raw_out is not None:
            raw_out.append(body)
        try:
            return self.findings.sanitize(body), inv
        except RecursionError:
            raise ToolFailure(ErrorKind.MALFORMED, f"GET {path} returned JSON nested too deeply to read",
                              r.status_code) from None

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


def _size(n: int) -> str:
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= factor:
            return f"{n / factor:g} {unit}"
    return f"{n} bytes"
