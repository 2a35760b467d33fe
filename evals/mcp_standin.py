"""An MCP stand-in for the official Run:ai MCP server, built on the project's simulator.

Like the real server (``nvcr.io/nvidia/runai/runai-mcp-server``) it is a thin layer over the Run:ai REST API: its
tools call the API at ``RUNAI_BASE_URL`` with ``RUNAI_CLIENT_ID`` / ``RUNAI_CLIENT_SECRET`` — in tests and evals
that is :mod:`evals.simulator` serving a scenario's World, so every fact (the completed workloads, pods, events,
history, metrics and the injected REST faults of :mod:`evals.faults`) is the simulator's own, byte for byte. The
REST reads go through :class:`tools.runai.RunaiClient`'s transport and retries (never its sanitising: the client
under test must do that), so a transient REST fault is absorbed here as a real server's HTTP client would.

Tools (official SDK, low-level ``Server``): ``list_workloads {}``, ``get_workload_status`` / ``_spec`` / ``_pods`` /
``_history {workloadId}``, ``get_workload_metrics {workloadId, start, end}``, ``whoami``, ``list_node_pools``, ``list_project_resources
{projectName}``.
Results are the REST bodies (``structuredContent`` plus the same JSON as text; a body that is not JSON passes
through as text). Paged endpoints are read to the end here (at most 20 pages; a list cut short keeps ``next``).
Variants (:class:`Options`): advertise write tools (``delete_workload``, ``manage_credentials``), rename or omit a
tool, no events in the status, text-only results, and MCP faults per tool (tool errors, timeouts, a dropped
session). Every ``tools/call`` received is logged in :attr:`Standin.calls`.

Transports: in-process (:func:`memory_connector`, the SDK's in-memory streams), stdio and streamable HTTP
(``python -m workload_diagnose.evals.mcp_standin``; ``RUNAI_TRANSPORT=http`` serves ``/mcp`` on ``RUNAI_MCP_PORT``, default 8080,
and requires ``Authorization: Bearer $RUNAI_MCP_TOKEN``). ``WD_STANDIN_OPTIONS`` (JSON) selects a variant.
"""
from __future__ import annotations

import json
import os
import threading
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Callable
from urllib.parse import quote

from workload_diagnose.tools.runai.models import OOM_METRICS

PAGE, MAX_PAGES = 50, 20
METRIC_TYPES = (*OOM_METRICS, "GPU_UTILIZATION")  # the server picks the types: the tool takes none
WRITE_TOOLS = {"delete_workload": {"workloadId": {"type": "string"}},
               "manage_credentials": {"action": {"type": "string"}, "dryRun": {"type": "boolean"}}}
EXTRA_READ_TOOLS = {"whoami": {}, "list_node_pools": {}, "list_project_resources": {"projectName": {"type": "string"}}}
READS: dict[str, dict] = {
    "list_workloads": {},
    "get_workload_status": {"workloadId": {"type": "string"}},
    "get_workload_spec": {"workloadId": {"type": "string"}},
    "get_workload_pods": {"workloadId": {"type": "string"}},
    "get_workload_history": {"workloadId": {"type": "string"}},
    "get_workload_metrics": {"workloadId": {"type": "string"}, "start": {"type": "string"},
                             "end": {"type": "string"}},
}


@dataclass
class McpFault:
    """A fault at the MCP layer: ``tool_error`` (isError result), ``timeout`` (hold the answer ``seconds``),
    ``drop`` (end the session). ``times`` = how often it fires (-1 always); ``once_file`` (stdio, where every
    reconnect is a new process): fire only while that file does not exist, and create it."""
    tool: str
    kind: str = "tool_error"
    times: int = 1
    seconds: float = 1.0
    once_file: str | None = None
    fired: int = 0


@dataclass
class Options:
    write_tools: bool = False
    rename: dict[str, str] = field(default_factory=dict)  # real name -> advertised name
    omit: tuple[str, ...] = ()
    events_in_status: bool = True
    structured: bool = True
    faults: list[McpFault] = field(default_factory=list)

    @classmethod
    def from_json(cls, text: str | None) -> "Options":
        d = json.loads(text) if text else {}
        d["faults"] = [McpFault(**f) for f in d.get("faults", [])]
        d["omit"] = tuple(d.get("omit", ()))
        return cls(**d)


class _ApiError(Exception):
    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


class Standin:
    """The stand-in's state: its REST backend, options and the log of every tools/call it received."""

    def __init__(self, base_url: str, client_id: str, client_secret: str, options: Options | None = None, *,
                 transport: Any = None, sleep: Callable[[float], None] = time.sleep, timeout: float = 10.0):
        from workload_diagnose.tools.runai.rest import RunaiClient

        self.options = options or Options()
        self.api = RunaiClient(base_url, client_id, client_secret, transport=transport, sleep=sleep, timeout=timeout)
        self.calls: list[tuple[str, dict]] = []
        self.lock = threading.Lock()
        self.on_drop: Callable[[], None] = lambda: None  # set by the transport: how this session ends abruptly

    def close(self) -> None:
        self.api.close()

    # ------------------------------------------------------------------ REST backend (raw bodies)
    def _get(self, path: str, params: list[tuple[str, str]] | None = None) -> tuple[int, bytes]:
        from workload_diagnose.tools.base import ToolFailure
        from workload_diagnose.tools.runai import ApiAuthError, ApiUnavailable

        try:
            r, _ = self.api._send_with_retries("GET", path, params=params, headers=self.api._auth_header())
            if r.status_code == 401:
                r, _ = self.api._send_with_retries("GET", path, params=params,
                                                   headers=self.api._auth_header(refresh=True))
        except ToolFailure as f:
            raise _ApiError(f"Run:ai API error: {f.message}") from None
        except ApiUnavailable as e:  # the server cannot reach or authenticate to Run:ai at all
            raise _ApiError(f"Run:ai API unavailable: {e}") from None
        except ApiAuthError as e:
            raise _ApiError(f"Run:ai API unauthorized: {e}") from None
        if not 200 <= r.status_code < 300:
            raise _ApiError(f"Run:ai API answered HTTP {r.status_code} for GET {path}"
                            + (" (not found)" if r.status_code == 404 else ""))
        return r.status_code, r.content

    def _json(self, path: str, params: list[tuple[str, str]] | None = None) -> Any:
        _, raw = self._get(path, params)
        try:
            return json.loads(raw)
        except ValueError:
            raise _Passthrough(raw.decode("utf-8", "replace")) from None

    def _paged(self, path: str, key: str, params: list[tuple[str, str]] | None = None) -> dict:
        items: list = []
        offset, nxt = 0, None
        for _ in range(MAX_PAGES):
            body = self._json(path, list(params or []) + [("offset", str(offset)), ("limit", str(PAGE))])
            if not isinstance(body, dict) or not isinstance(body.get(key), list):
                raise _Passthrough(json.dumps(body))  # not the documented shape: passed on as served
            items += body[key]
            nxt = body.get("next")
            if nxt is None or not body[key] or not isinstance(nxt, int) or nxt <= offset:
                return {key: items} | ({"next": nxt} if nxt is not None and body[key] else {})
            offset = nxt
        return {key: items, "next": nxt}

    # ------------------------------------------------------------------ tools
    def list_workloads(self, args: dict) -> Any:
        return self._paged("/api/v1/workloads", "workloads", [("sortBy", "phaseUpdatedAt"), ("sortOrder", "desc")])

    def get_workload_status(self, args: dict) -> Any:
        wid = quote(str(args.get("workloadId", "")), safe="")
        wl = self._json(f"/api/v1/workloads/{wid}")
        if not self.options.events_in_status or not isinstance(wl, dict):
            return wl
        try:
            ev = self._json(f"/api/v1/workloads/{wid}/events", [("sortOrder", "desc"), ("offset", "0"),
                                                               ("limit", str(PAGE))])
        except (_ApiError, _Passthrough) as e:
            return {**wl, "events": None, "eventsError": getattr(e, "text", "events not readable")}
        events = ev.get("events") if isinstance(ev, dict) else None
        return {**wl, "events": events if isinstance(events, list) else None,
                **({} if isinstance(events, list) else {"eventsError": "events response has no 'events' list"})}

    def get_workload_spec(self, args: dict) -> Any:
        from workload_diagnose.tools.runai import spec_kind_path

        wid = quote(str(args.get("workloadId", "")), safe="")
        wl = self._json(f"/api/v1/workloads/{wid}")
        kind = spec_kind_path(wl.get("type") if isinstance(wl, dict) else None)
        if kind is None:
            raise _ApiError(f"workload {wid} has no submitted spec (not found)")
        return self._json(f"/api/v1/workloads/{kind}/{wid}")

    def get_workload_pods(self, args: dict) -> Any:
        return self._paged(f"/api/v1/workloads/{quote(str(args.get('workloadId', '')), safe='')}/pods", "pods")

    def get_workload_history(self, args: dict) -> Any:
        return self._paged(f"/api/v1/workloads/{quote(str(args.get('workloadId', '')), safe='')}/history",
                           "records")

    def get_workload_metrics(self, args: dict) -> Any:
        wid = quote(str(args.get("workloadId", "")), safe="")
        params = [("metricType", t) for t in METRIC_TYPES]
        params += [("start", str(args.get("start", ""))), ("end", str(args.get("end", ""))),
                   ("numberOfSamples", "1000")]
        return self._json(f"/api/v1/workloads/{wid}/metrics", params)

    def whoami(self, args: dict) -> Any:
        return {"subject": self.api._client_id, "type": "application"}

    def list_node_pools(self, args: dict) -> Any:
        return self._paged("/api/v1/node-pools", "nodepools")

    def list_project_resources(self, args: dict) -> Any:
        """The projects named ``projectName`` (every cluster: the tool takes none), as the REST list serves them."""
        return self._paged("/api/v1/org-unit/projects", "projects", [("filterBy", f"name=={args.get('projectName')}")])

    # ------------------------------------------------------------------ the MCP server
    def advertised(self) -> dict[str, tuple[str, dict]]:
        """advertised name -> (real name, input properties)."""
        o = self.options
        tools = {**READS, **EXTRA_READ_TOOLS, **(WRITE_TOOLS if o.write_tools else {})}
        return {o.rename.get(n, n): (n, props) for n, props in tools.items() if n not in o.omit}

    def server(self):
        import anyio
        import mcp.types as T
        from mcp.server import Server

        def result(body: Any = None, text: str | None = None, error: bool = False):
            if text is None:
                text = json.dumps(body)
            structured = body if (self.options.structured and isinstance(body, dict) and not error) else None
            return T.CallToolResult(content=[T.TextContent(type="text", text=text)], structuredContent=structured,
                                    isError=error)

        async def list_tools(ctx, params):
            return T.ListToolsResult(tools=[
                T.Tool(name=adv, description=f"Run:ai {real.replace('_', ' ')}",
                       inputSchema={"type": "object", "properties": props,
                                    "required": [k for k in props if k == "workloadId"]})
                for adv, (real, props) in self.advertised().items()])

        async def call_tool(ctx, params):
            name, args = params.name, dict(params.arguments or {})
            with self.lock:
                self.calls.append((name, args))
            real = self.advertised().get(name, (None, None))[0]
            if real is None or real in WRITE_TOOLS:
                return result(text=f"tool {name!r} is not available (writes are disabled)", error=True)
            fault = self._fault(real)
            if fault is not None:
                if fault.kind == "tool_error":
                    return result(text="injected tool error: upstream answered HTTP 503", error=True)
                if fault.kind == "drop":
                    self.on_drop()
                    await anyio.sleep(30)
                    return result(text="session dropped", error=True)
                await anyio.sleep(fault.seconds)  # timeout: the client has given up by now
            try:
                body = await anyio.to_thread.run_sync(getattr(self, real), args)
            except _Passthrough as p:
                return result(text=p.text)
            except _ApiError as e:
                return result(text=e.text, error=True)
            return result(body)

        return Server("runai-mcp-standin", version="0", on_list_tools=list_tools, on_call_tool=call_tool)

    def _fault(self, tool: str) -> McpFault | None:
        with self.lock:
            for f in self.options.faults:
                if f.tool == tool and (f.times < 0 or f.fired < f.times):
                    if f.once_file is not None:
                        if os.path.exists(f.once_file):
                            continue
                        open(f.once_file, "w").close()
                    f.fired += 1
                    return f
        return None

    @property
    def fired(self) -> int:
        return sum(f.fired for f in self.options.faults)


class _Passthrough(Exception):
    def __init__(self, text: str):
        super().__init__(text)
        self.text = text


# ------------------------------------------------------------------------------------------------ transports
def memory_connector(standin: Standin):
    """A Connector over the SDK's in-memory streams to a fresh server session of ``standin`` (one per connect).

    A ``drop`` fault closes the client's read stream: the client sees the session end mid-call."""
    import anyio
    from mcp.client._memory import InMemoryTransport

    @asynccontextmanager
    async def connect():
        async with InMemoryTransport(standin.server()) as (read, write):
            send, recv = anyio.create_memory_object_stream(16)
            dropped = anyio.Event()
            standin.on_drop = dropped.set

            async def pump():
                async with send:
                    with anyio.CancelScope() as scope:
                        async def watch():
                            await dropped.wait()
                            scope.cancel()
                        async with anyio.create_task_group() as tg:
                            tg.start_soon(watch)
                            async for item in read:
                                await send.send(item)
                            tg.cancel_scope.cancel()

            async with anyio.create_task_group() as tg:
                tg.start_soon(pump)
                try:
                    yield recv, write
                finally:
                    tg.cancel_scope.cancel()

    return connect


def _from_env() -> Standin:
    env = os.environ
    return Standin(env.get("RUNAI_BASE_URL", ""), env.get("RUNAI_CLIENT_ID", ""), env.get("RUNAI_CLIENT_SECRET", ""),
                   Options.from_json(env.get("WD_STANDIN_OPTIONS")))


def http_app(standin: Standin, token: str | None):
    """The streamable-HTTP ASGI app (``/mcp``), refusing requests without ``Authorization: Bearer <token>``."""
    from starlette.responses import JSONResponse

    inner = standin.server().streamable_http_app(streamable_http_path="/mcp", json_response=True)

    async def app(scope, receive, send):
        if scope["type"] == "http" and token is not None:
            auth = dict(scope.get("headers") or []).get(b"authorization", b"").decode()
            if auth != f"Bearer {token}":
                return await JSONResponse({"error": "invalid_token"}, status_code=401)(scope, receive, send)
        await inner(scope, receive, send)

    return app


def main() -> None:  # python -m workload_diagnose.evals.mcp_standin
    import anyio

    standin = _from_env()
    if os.environ.get("RUNAI_TRANSPORT") == "http":
        import uvicorn

        uvicorn.run(http_app(standin, os.environ.get("RUNAI_MCP_TOKEN")), host="127.0.0.1",
                    port=int(os.environ.get("RUNAI_MCP_PORT", "8080")), log_level="warning")
        return
    from mcp.server.stdio import stdio_server

    standin.on_drop = lambda: os._exit(3)  # a dropped stdio session: the server process ends

    async def serve():
        server = standin.server()
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


if __name__ == "__main__":
    main()
