"""The MCP allow-list: the only tools (and JSON-RPC methods) this client may ever send, as data, in one place.

The official Run:ai MCP server also offers write tools (``manage_credentials``, ``delete_workload``, ...), off by
default behind ``RUNAI_ALLOW_WRITE_TOOLS=false``; a read-only client must not rely on that flag. Whatever a server
advertises, a name that is not a key of :data:`READ_TOOLS` is refused with :class:`McpCallRefused` before a byte
is sent, and so is an argument key the tool's entry does not list. Two places enforce it: the session's ``call``
(:func:`check_call`) and, beneath it, the write stream every message passes (:func:`check_message`), so even a
call made around the session never reaches the transport.
"""
from __future__ import annotations

from typing import Any

from workload_diagnose.tools.base import WriteRefused

__all__ = ["READ_TOOLS", "SKILL_TOOLS", "METHODS", "McpCallRefused", "check_call", "check_message"]

#: server tool name -> the argument keys this client may send with it (values always built by our code from
#: validated ids and our own clock, never from evidence). Tools seen on the official server, read-only ones only.
READ_TOOLS: dict[str, frozenset[str]] = {
    "list_workloads": frozenset(),
    "get_workload_status": frozenset({"workloadId"}),
    "get_workload_spec": frozenset({"workloadId"}),
    "get_workload_pods": frozenset({"workloadId"}),
    "get_workload_history": frozenset({"workloadId"}),
    "get_workload_metrics": frozenset({"workloadId", "start", "end"}),
    # the ``projects`` capability (shared/reference/runai-api.md: "list_project_resources {projectName}",
    # "list_node_pools {}" are read tools of the official server)
    "list_project_resources": frozenset({"projectName"}),
    "list_node_pools": frozenset(),
}

#: skill tool (the source method) -> the server tool that answers it. No alias guessing: a server that
#: renamed a tool does not offer it, and the read is reported as unavailable (see RunaiMcpSource).
SKILL_TOOLS: dict[str, str] = {
    **{name: name for name in ("list_workloads", "get_workload_status", "get_workload_spec", "get_workload_pods",
                               "get_workload_history", "get_workload_metrics")},
    "find_project": "list_project_resources",
    "list_node_pools": "list_node_pools",
}

#: the JSON-RPC methods a read-only session needs (client requests and notifications); nothing else is sent.
METHODS = frozenset({"initialize", "notifications/initialized", "tools/list", "tools/call", "ping",
                     "notifications/cancelled"})


class McpCallRefused(WriteRefused):
    """A tool, argument or method outside the allow-list was about to be sent. Nothing was sent."""


def check_call(name: str, arguments: dict[str, Any] | None) -> None:
    if not isinstance(name, str) or name not in READ_TOOLS:
        raise McpCallRefused(f"MCP tool {name!r} is not on the read-only allow-list "
                             f"({', '.join(sorted(READ_TOOLS))}): not called")
    extra = sorted(set(arguments or {}) - READ_TOOLS[name])
    if extra:
        raise McpCallRefused(f"MCP tool {name!r} may not be sent the argument(s) {extra}: not called")


def check_message(message: Any) -> None:
    """Refuse a JSON-RPC request or notification whose method (or tools/call name/arguments) is not allowed.

    Responses (to a server's own requests) carry no method and pass."""
    root = getattr(message, "root", message)
    method = getattr(root, "method", None)
    if method is None:
        return
    if method not in METHODS:
        raise McpCallRefused(f"MCP method {method!r} is not allowed for a read-only client: not sent")
    if method == "tools/call":
        params = getattr(root, "params", None) or {}
        if not isinstance(params, dict):
            params = params.model_dump(by_alias=True) if hasattr(params, "model_dump") else {}
        check_call(params.get("name"), params.get("arguments"))
