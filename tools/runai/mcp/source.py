"""``RunaiMcpSource``: the six skill reads over the official Run:ai MCP server (a second :class:`RunaiSource`).

Same methods, typed results, limitations, parsers (:mod:`tools.runai.parse`) and sanitising
(:mod:`tools.runai.sanitize`) as REST; what differs is the
wire (``tools/call`` through the official ``mcp`` SDK, :mod:`tools.runai.mcp.session`) and what the server's
tools can express (their arguments are ``{workloadId}`` and ``{workloadId, start, end}``; no paging, filter or
events tool). Per skill tool:

* ``list_workloads`` — the tool takes no filter or paging: every workload the server returns is matched here by
  exact name, project and cluster, and the limitation says so (and says when the server's list was cut short).
* ``get_workload_status`` — one call. Events are taken from the result when the server includes them
  (``events``); when it does not, ``events`` is None with the reason, so the procedure uses history and Tier 2
  instead and says so (there is no events tool to call).
* ``get_workload_spec`` — the server resolves the kind; a kind without a submitted spec is ABSENT without a call,
  as for REST.
* ``get_workload_pods`` / ``get_workload_history`` — one call each, no paging arguments: a result that still
  names a ``next`` page is incomplete and says so; history older than the lookback cutoff is dropped here.
* ``get_workload_metrics`` — ``{workloadId, start, end}`` only: the server chooses the metric types; the
  requested ones are kept, a requested type the server did not return is a note.
* ``find_project`` / ``list_node_pools`` (the ``projects`` capability) — ``list_project_resources
  {projectName}`` and ``list_node_pools {}``: neither takes a cluster, so the cluster's items are matched here
  (and a note says so). Their result is read as the REST bodies (a Project, a list of them or ``{"projects":
  [...]}``; a list of node pools or ``{"nodepools"|"nodePools": [...]}``): the public record names the tools and
  their arguments, not their result shape.

A tool result with ``isError`` is classified from its (sanitised) text: not found → ABSENT, refused credentials,
rate limits, timeouts and server errors → their :class:`ErrorKind` (those three retried once, within what is left
of the diagnosis's ``deadline``: a call the deadline cut off is not retried). A tool the server
does not advertise (e.g. renamed) is never called: the read is an ERROR naming the missing tool.
"""
from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, Callable

from workload_diagnose.tools.base import ErrorKind, Invocation, ToolFailure, ToolResult
from workload_diagnose.tools.deadline import Deadline
from workload_diagnose.tools.runai.errors import ApiAuthError, ApiUnavailable
from workload_diagnose.tools.runai.ids import check_id, check_name
from workload_diagnose.tools.runai.mcp.allow import SKILL_TOOLS
from workload_diagnose.tools.runai.mcp.session import Connector, McpSession
from workload_diagnose.tools.runai.models import (OOM_METRICS, Event, History, Pod, Skips, SubmittedSpec, Workload, WorkloadStatus,
                                parse_lenient)
from workload_diagnose.tools.runai.parse import history_page, metric_series, spec_kind_path
from workload_diagnose.tools.runai.quota import NodePool, Project, items_of, parse_node_pool, parse_project
from workload_diagnose.tools.runai.results import Absent, no_spec, tool_result
from workload_diagnose.tools.runai.sanitize import Findings
from workload_diagnose.tools.timeutil import iso

__all__ = ["RunaiMcpSource", "request_text"]

RETRIED = (ErrorKind.SERVER_ERROR, ErrorKind.RATE_LIMITED, ErrorKind.TIMEOUT)

# how a tool error's text is classified (first match wins); the text is the server's, already sanitised
ERROR_TEXT: tuple[tuple[re.Pattern, ErrorKind], ...] = (
    (re.compile(r"\b404\b|not found|does not exist", re.I), ErrorKind.NOT_FOUND),
    (re.compile(r"\b401\b|unauthori[sz]ed|unauthenticated", re.I), ErrorKind.UNAUTHORIZED),
    (re.compile(r"\b403\b|forbidden|permission denied", re.I), ErrorKind.FORBIDDEN),
    (re.compile(r"\b429\b|rate.?limit|too many requests", re.I), ErrorKind.RATE_LIMITED),
    (re.compile(r"timed? ?out|timeout|\b504\b", re.I), ErrorKind.TIMEOUT),
    (re.compile(r"\b5\d\d\b|unavailable|internal server error|bad gateway", re.I), ErrorKind.SERVER_ERROR),
)


def request_text(tool: str, arguments: dict[str, Any]) -> str:
    """The call as reports cite it: ``tools/call get_workload_status {"workloadId": "..."}``."""
    return f"tools/call {tool} {json.dumps(arguments, sort_keys=True)}"


class RunaiMcpSource:
    """Read-only Run:ai evidence over MCP (see the module docstring). Thread-safe; connects on first use."""

    def __init__(self, connect: Connector, *, describe: str, timeout: float = 10.0, connect_timeout: float = 15.0,
                 attempts: int = 2, backoff: float = 0.2, sleep: Callable[[float], None] | None = None,
                 deadline: Deadline | None = None):
        self.describe = describe
        self.deadline = deadline or Deadline(None)
        self.session = McpSession(connect, describe=describe, timeout=timeout, connect_timeout=connect_timeout,
                                  deadline=self.deadline)
        self.attempts = max(1, attempts)
        self.backoff = backoff
        self._sleep = sleep or self.deadline.sleep
        self.findings = Findings()
        self._connected = False

    @property
    def injections(self) -> list[Any]:
        return self.findings.injections

    def close(self) -> None:
        self.session.close()

    # ---------------------------------------------------------------- plumbing
    def _ensure_connected(self) -> None:
        if self._connected:
            return
        try:
            self.session.connect()
        except ToolFailure as f:
            if f.status_code in (401, 403):
                raise ApiAuthError(f"the MCP server {self.describe} refused the credentials ({f.message})") from f
            raise ApiUnavailable(f"cannot reach the Run:ai MCP server: {f.message}") from f
        self._connected = True

    def _call(self, skill: str, recorded: dict[str, Any], arguments: dict[str, Any],
              invs: list[Invocation]) -> tuple[Any, Any]:
        """One guarded ``tools/call``: (sanitised body, body as served). Raises ToolFailure or Absent; the
        invocation is appended to ``invs`` whatever happens once something was sent."""
        self._ensure_connected()
        tool = SKILL_TOOLS[skill]
        if tool not in self.session.tools:
            offered = ", ".join(sorted(self.session.tools)) or "none"
            raise ToolFailure(ErrorKind.OTHER, f"the MCP server does not offer the tool {tool} (it offers: "
                                               f"{self.findings.sanitize(offered)}); not called")
        inv = Invocation(tool=skill, arguments=dict(recorded), request=request_text(tool, arguments), attempts=0)
        invs.append(inv)
        for attempt in range(1, self.attempts + 1):
            try:
                result, n = self.session.call(tool, arguments)
            except ToolFailure as f:
                inv.attempts += getattr(f, "attempts", 1)
                if getattr(f, "stopped", False):  # the diagnosis's deadline: no time for another attempt
                    raise
                if f.kind in RETRIED and attempt < self.attempts:
                    self._sleep(self.backoff)
                    continue
                if f.kind in RETRIED and self.attempts > 1:
                    f.message += f" after {self.attempts} attempts"
                raise
            inv.attempts += n
            if result.is_error:
                text = self.findings.sanitize(_text_of(result)) or "no detail"
                kind = next((k for rx, k in ERROR_TEXT if rx.search(text)), ErrorKind.OTHER)
                message = f"tools/call {tool} returned a tool error: {text[:300]}"
                if kind == ErrorKind.NOT_FOUND:
                    raise Absent(None, message)
                if kind in RETRIED and attempt < self.attempts:
                    self._sleep(self.backoff)
                    continue
                raise ToolFailure(kind, message + (f" after {self.attempts} attempts" if kind in RETRIED
                                                   and self.attempts > 1 else ""))
            raw = _body_of(result)
            if raw is _NOT_JSON:
                raise ToolFailure(ErrorKind.MALFORMED, f"tools/call {tool} returned content that is not JSON")
            return self.findings.sanitize(raw), raw
        raise AssertionError("unreachable")  # pragma: no cover

    def _run(self, skill: str, recorded: dict[str, Any], fn: Callable[..., Any]) -> ToolResult:
        invs: list[Invocation] = []
        notes: list[str] = []

        def call(arguments: dict[str, Any]) -> tuple[Any, Any]:
            return self._call(skill, recorded, arguments, invs)

        return tool_result(skill, invs, notes, lambda: fn(call, notes))

    # ---------------------------------------------------------------- the six skill reads
    def list_workloads(self, *, name: str, cluster_id: str, project: str) -> ToolResult:
        check_name(name, "workload name")
        check_name(project, "project")
        check_id(cluster_id, "cluster id")

        def fn(call, notes: list[str]) -> list[Workload]:
            body, _ = call({})
            items = _items(body, "workloads", "list_workloads")
            out: list[Workload] = []
            ids: set[str] = set()
            skips = Skips("listed workloads")
            for wl in skips.parse(Workload, items):
                if wl.id not in ids and wl.name == name and wl.projectName == project and wl.clusterId == cluster_id:
                    ids.add(wl.id)
                    out.append(wl)
            notes.append("the MCP tool takes no filter or paging: the workloads it returned were matched here by "
                         "exact name, project and cluster")
            _incomplete(body, "the workload list", notes)
            notes[:0] = skips.note()
            return out

        return self._run("list_workloads", {"name": name, "clusterId": cluster_id, "project": project}, fn)

    def get_workload_status(self, workload_id: str, *, cutoff: datetime | None = None) -> ToolResult:
        """The events come inside the status result, as the server chose them: there is no events paging to
        follow down to ``cutoff`` (the REST source's), so every event it returned is kept."""
        check_id(workload_id, "workload id")

        def fn(call, notes: list[str]) -> WorkloadStatus:
            body, _ = call({"workloadId": workload_id})
            if not isinstance(body, dict):
                raise ToolFailure(ErrorKind.MALFORMED, "get_workload_status result is not an object")
            wl = body.get("workload") if isinstance(body.get("workload"), dict) else \
                {k: v for k, v in body.items() if k not in ("events", "eventsError")}
            events: list[Event] | None = None
            events_error = None
            if "events" not in body:
                events_error = ("the MCP server's get_workload_status carries no events and it offers no events "
                                "tool")
            elif isinstance(body["events"], list):
                skips = Skips("events")
                events = skips.parse(Event, body["events"])
                notes[:0] = skips.note()
            else:
                detail = body.get("eventsError")
                events_error = f"the MCP server returned events: null ({detail})" if isinstance(detail, str) \
                    else "the MCP server returned no events list"
            workload, problems = parse_lenient(Workload, wl, "workload")
            notes.extend(problems)
            return WorkloadStatus(workload=workload, events=events, events_error=events_error)

        return self._run("get_workload_status", {"workloadId": workload_id}, fn)

    def get_workload_spec(self, workload_id: str, workload_type: str | None) -> ToolResult:
        check_id(workload_id, "workload id")
        kind = spec_kind_path(workload_type)
        if kind is None:
            return no_spec(workload_type)

        def fn(call, notes: list[str]) -> SubmittedSpec:
            body, _ = call({"workloadId": workload_id})
            if not isinstance(body, dict) or not isinstance(body.get("spec"), dict):
                raise ToolFailure(ErrorKind.MALFORMED, "spec result has no 'spec' object")
            return SubmittedSpec(kind=kind, body=body)

        return self._run("get_workload_spec", {"workloadId": workload_id, "workloadType": workload_type}, fn)

    def get_workload_pods(self, workload_id: str) -> ToolResult:
        check_id(workload_id, "workload id")

        def fn(call, notes: list[str]) -> list[Pod]:
            body, _ = call({"workloadId": workload_id})
            skips = Skips("pods")
            pods = skips.parse(Pod, _items(body, "pods", "pods"))
            _incomplete(body, "the pod list", notes)
            notes[:0] = skips.note()
            return pods

        return self._run("get_workload_pods", {"workloadId": workload_id}, fn)

    def get_workload_history(self, workload_id: str, *, cutoff: datetime) -> ToolResult:
        check_id(workload_id, "workload id")

        def fn(call, notes: list[str]) -> History:
            body, _ = call({"workloadId": workload_id})
            skips = Skips("history records")
            records, reached = history_page(_items(body, "records", "history"), cutoff, skips)
            _incomplete(body, "history" if reached else "history (older records in the window were not read)",
                        notes)
            notes[:0] = skips.note()
            return History(records=records, pages=1, reached_cutoff=reached)

        return self._run("get_workload_history", {"workloadId": workload_id, "cutoff": iso(cutoff)}, fn)

    def get_workload_metrics(self, workload_id: str, *, start: datetime, end: datetime,
                             metric_types: tuple[str, ...] = OOM_METRICS, samples: int = 1000) -> ToolResult:
        check_id(workload_id, "workload id")

        def fn(call, notes: list[str]) -> list:
            body, raw = call({"workloadId": workload_id, "start": iso(start), "end": iso(end)})
            if not isinstance(body, dict) or not isinstance(body.get("measurements"), list):
                raise ToolFailure(ErrorKind.MALFORMED, "metrics result has no 'measurements' list")
            skips = Skips("metric series")
            series = metric_series(body["measurements"], raw, skips)
            notes[:0] = skips.note()
            kept = [s for s in series if s.type in metric_types]
            missing = [t for t in metric_types if t not in {s.type for s in series}]
            if missing:
                notes.append(f"the MCP tool takes no metric types and returned no series for {', '.join(missing)}")
            return kept

        return self._run("get_workload_metrics", {"workloadId": workload_id, "start": iso(start), "end": iso(end),
                                                 "metricTypes": list(metric_types)}, fn)


    # ---------------------------------------------------------------- the projects capability
    def find_project(self, *, cluster_id: str, name: str) -> ToolResult:
        check_id(cluster_id, "cluster id")
        check_name(name, "project")

        def fn(call, notes: list[str]) -> Project:
            body, _ = call({"projectName": name})
            raw = [body] if isinstance(body, dict) and "id" in body else items_of(body, ("projects",),
                                                                                   "list_project_resources result")
            found = [p for p in (parse_project(r, notes) for r in raw) if p is not None and p.name == name
                     and (p.cluster_id or "").lower() == cluster_id.lower()]
            notes.append("the MCP tool takes no cluster: the project was matched here by exact name and cluster")
            if not found:
                raise Absent(None, f"no project named {name!r} on cluster {cluster_id}")
            return found[0]

        return self._run("find_project", {"name": name, "clusterId": cluster_id}, fn)

    def list_node_pools(self, *, cluster_id: str) -> ToolResult:
        check_id(cluster_id, "cluster id")

        def fn(call, notes: list[str]) -> list[NodePool]:
            body, _ = call({})
            raw = items_of(body, ("nodepools", "nodePools"), "list_node_pools result")
            pools = [p for p in (parse_node_pool(r, notes) for r in raw) if p is not None]
            notes.append("the MCP tool takes no cluster: the node pools were matched here by cluster")
            _incomplete(body, "the node-pool list", notes)
            return [p for p in pools if (p.cluster_id or "").lower() == cluster_id.lower()]

        return self._run("list_node_pools", {"clusterId": cluster_id}, fn)


# ------------------------------------------------------------------------------------------------ result bodies
_NOT_JSON = object()


def _text_of(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in (result.content or []) if getattr(c, "type", "") == "text")


def _body_of(result: Any) -> Any:
    """structuredContent when the server sent it, else the JSON of its text content (a lone text block)."""
    sc = getattr(result, "structured_content", None)
    if sc is not None:
        # a server that wraps a non-object result in {"result": ...} (the SDK's convention)
        return sc["result"] if isinstance(sc, dict) and set(sc) == {"result"} else sc
    text = _text_of(result)
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


def _items(body: Any, key: str, what: str) -> list:
    if isinstance(body, list):
        return body
    if isinstance(body, dict) and isinstance(body.get(key), list):
        return body[key]
    raise ToolFailure(ErrorKind.MALFORMED, f"{what} result has no '{key}' list")


def _incomplete(body: Any, what: str, notes: list[str]) -> None:
    nxt = body.get("next") if isinstance(body, dict) else None
    if nxt is not None:
        notes.append(f"the MCP server's result for {what} is incomplete (next={nxt!r}) and the tool takes no "
                     "paging arguments")
