"""``--tier1 mcp``: the official Run:ai MCP server (:class:`tools.runai.mcp.RunaiMcpSource`), over streamable HTTP
(``RUNAI_MCP_URL`` with ``RUNAI_MCP_TOKEN``) or stdio (``RUNAI_MCP_COMMAND``), read-only by its allow-list
(:mod:`tools.runai.mcp.allow`). Its tools take no filter: it does not read the ``fleet`` capability; it reads the
``projects`` one (``list_project_resources``, ``list_node_pools``)."""
from __future__ import annotations

from workload_diagnose.tools.runai.errors import InvalidInput
from workload_diagnose.tools.runai.registry import Setting, SourceSettings, SourceSpec
from workload_diagnose.tools.runai.source import PROJECTS

URL, TOKEN, COMMAND = "RUNAI_MCP_URL", "RUNAI_MCP_TOKEN", "RUNAI_MCP_COMMAND"


def _missing(s: SourceSettings) -> str | None:
    if s.env.get(URL) and s.env.get(COMMAND):  # a contradiction, not something missing: refused whoever asks
        raise InvalidInput("both RUNAI_MCP_URL and RUNAI_MCP_COMMAND are set: set only one (HTTP or stdio)")
    if not (s.env.get(URL) or s.env.get(COMMAND)):
        return ("--tier1 mcp needs the Run:ai MCP server: set RUNAI_MCP_URL (streamable HTTP, with "
                "RUNAI_MCP_TOKEN) or RUNAI_MCP_COMMAND (stdio)")
    return None


def _build(s: SourceSettings):
    from workload_diagnose.tools.runai.mcp.connect import http_connector, stdio_connector
    from workload_diagnose.tools.runai.mcp.source import RunaiMcpSource

    if s.env.get(URL):
        connect, describe = http_connector(s.env[URL], s.env.get(TOKEN))
    else:
        env = {"RUNAI_BASE_URL": s.url, "RUNAI_CLIENT_ID": s.client_id, "RUNAI_CLIENT_SECRET": s.client_secret}
        connect, describe = stdio_connector(s.env[COMMAND], {k: v for k, v in env.items() if v})
    kw: dict = {} if s.sleep is None else {"sleep": s.sleep}
    # each connect, call and retry gets only what is left of the diagnosis's deadline (none when too little is)
    return RunaiMcpSource(connect, describe=describe, deadline=s.deadline, **kw)


SOURCE = SourceSpec(
    name="mcp",
    summary="the official Run:ai MCP server: RUNAI_MCP_URL + RUNAI_MCP_TOKEN, or RUNAI_MCP_COMMAND",
    settings=(Setting(URL, "the MCP server's streamable-HTTP endpoint"),
              Setting(TOKEN, "the bearer token sent to RUNAI_MCP_URL", secret=True),
              Setting(COMMAND, "the command that starts the MCP server on stdio")),
    prerequisites=_missing,
    build=_build,
    capabilities=frozenset({PROJECTS}),
    read_only=True,
)
