"""Where the Tier-1 source is chosen: ``open_runai`` builds the :class:`tools.runai.RunaiSource` a diagnosis
reads through — REST (:class:`tools.runai.RunaiClient`) or the official Run:ai MCP server
(:class:`tools.runai.mcp.RunaiMcpSource`). The graph never knows which one it got."""
from __future__ import annotations

from typing import Any, Callable

from agent.entrypoints.settings import Settings
from tools.runai import InvalidInput, RunaiClient, RunaiSource

__all__ = ["TIER1", "open_runai", "check_tier1"]

TIER1 = ("rest", "mcp")
NOT_CONFIGURED = "http://runai-url-not-configured.invalid"


def check_tier1(tier1: str) -> str:
    if tier1 not in TIER1:
        raise InvalidInput(f"--tier1 must be 'rest' or 'mcp', not {tier1!r}")
    return tier1


def open_runai(tier1: str, settings: Settings, *, url: str | None, client_id: str | None,
               client_secret: str | None, needed: bool, transport: Any = None,
               retry_sleep: Callable[[float], None] | None = None, rest_options: dict[str, Any] | None = None,
               deadline: Any = None) -> RunaiSource:
    """The Tier-1 source for one diagnosis. ``needed``: the request is complete, so a missing endpoint is an
    InvalidInput now (an incomplete request is answered without any read). ``rest_options``: the REST client's
    bounds (deadline, body cap, CA file, ``on_invocation``: see ``agent.api.diagnose``); ``deadline`` (a
    :class:`tools.deadline.Deadline`) also bounds each MCP call, retry and connect to what is left of the
    diagnosis."""
    kw: dict[str, Any] = {} if retry_sleep is None else {"sleep": retry_sleep}
    if check_tier1(tier1) == "rest":
        if needed and not url:
            raise InvalidInput("no Run:ai URL: pass --runai-url or set RUNAI_BASE_URL")
        return RunaiClient(url or NOT_CONFIGURED, client_id, client_secret, transport=transport, **kw,
                           **(rest_options or {}))
    from tools.runai.mcp import RunaiMcpSource
    from tools.runai.mcp.connect import http_connector, stdio_connector

    if settings.runai_mcp_url and settings.runai_mcp_command:
        raise InvalidInput("both RUNAI_MCP_URL and RUNAI_MCP_COMMAND are set: set only one (HTTP or stdio)")
    if settings.runai_mcp_url:
        connect, describe = http_connector(settings.runai_mcp_url, settings.runai_mcp_token)
    elif settings.runai_mcp_command:
        env = {"RUNAI_BASE_URL": url, "RUNAI_CLIENT_ID": client_id, "RUNAI_CLIENT_SECRET": client_secret}
        connect, describe = stdio_connector(settings.runai_mcp_command, {k: v for k, v in env.items() if v})
    else:
        if needed:
            raise InvalidInput("--tier1 mcp needs the Run:ai MCP server: set RUNAI_MCP_URL (streamable HTTP, with "
                               "RUNAI_MCP_TOKEN) or RUNAI_MCP_COMMAND (stdio)")
        return RunaiClient(NOT_CONFIGURED, client_id, client_secret)  # never read: the request is incomplete
    return RunaiMcpSource(connect, describe=describe, deadline=deadline, **kw)
