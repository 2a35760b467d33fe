"""Tier 1 over the official Run:ai MCP server (``nvcr.io/nvidia/runai/runai-mcp-server``).

* :mod:`tools.runai.mcp.allow` — the allow-list (data): the only tools, arguments and methods ever sent.
* :mod:`tools.runai.mcp.session` — one SDK ``ClientSession`` on its own event-loop thread, deadlines, one reconnect.
* :mod:`tools.runai.mcp.source` — :class:`RunaiMcpSource`, the :class:`tools.runai.RunaiSource` over it.
* :mod:`tools.runai.mcp.connect` — the stdio and streamable-HTTP connectors (``RUNAI_MCP_COMMAND`` / ``_URL``).

The ``mcp`` SDK is imported only when a session connects.
"""
from tools.runai.mcp.allow import READ_TOOLS, McpCallRefused
from tools.runai.mcp.source import RunaiMcpSource

__all__ = ["READ_TOOLS", "McpCallRefused", "RunaiMcpSource"]
