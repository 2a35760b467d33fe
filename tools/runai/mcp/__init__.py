"""Tier 1 over the official Run:ai MCP server (``nvcr.io/nvidia/runai/runai-mcp-server``).

* :mod:`tools.runai.mcp.allow` — the allow-list (data): the only tools, arguments and methods ever sent.
* :mod:`tools.runai.mcp.session` — one SDK ``ClientSession`` on its own event-loop thread, deadlines, one reconnect.
* :mod:`tools.runai.mcp.source` — :class:`RunaiMcpSource`, the :class:`tools.runai.RunaiSource` over it.
* :mod:`tools.runai.mcp.connect` — the stdio and streamable-HTTP connectors (``RUNAI_MCP_COMMAND`` / ``_URL``).
* :mod:`tools.runai.mcp.spec` — its registration (``--tier1 mcp``).

The ``mcp`` SDK is imported only when a session connects, the source's modules when first named here (reading the
registration, as every entry point does, imports none of them).
"""
from typing import Any

__all__ = ["READ_TOOLS", "McpCallRefused", "RunaiMcpSource"]


def __getattr__(name: str) -> Any:
    if name in ("READ_TOOLS", "McpCallRefused"):
        from workload_diagnose.tools.runai.mcp import allow

        return getattr(allow, name)
    if name == "RunaiMcpSource":
        from workload_diagnose.tools.runai.mcp.source import RunaiMcpSource

        return RunaiMcpSource
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
