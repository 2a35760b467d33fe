"""The Tier-1 source of every entry point, built by the one factory (:func:`tools.runai.registry.open_source`)
from the one settings object: ``source_settings`` turns the environment (:class:`Settings`), the caller's
arguments and the bounds of a read (:class:`Limits`) into :class:`tools.runai.registry.SourceSettings`;
``open_runai`` builds the source named by ``--tier1``. ``failed``, ``chat``, ``serve``, the MCP server and
``triage`` all come here; the graph never knows which source it got."""
from __future__ import annotations

from typing import Any

from workload_diagnose.agent.model.settings import Settings
from workload_diagnose.agent.model.limits import Limits
from workload_diagnose.tools.runai import RunaiSource
from workload_diagnose.tools.runai.registry import SourceSettings, check_name, names, open_source

__all__ = ["TIER1", "open_runai", "check_tier1", "source_settings"]

TIER1 = names()  # the --tier1 values: every registered source
check_tier1 = check_name


def source_settings(settings: Settings, *, url: str | None, client_id: str | None, client_secret: str | None,
                    needed: bool = True, limits: Limits | None = None, **kw: Any) -> SourceSettings:
    """One :class:`SourceSettings`: the endpoint and credentials (already resolved against the environment), each
    source's own settings from the environment, the bounds of ``limits``; ``kw``: any other field (``deadline``,
    ``transport``, ``sleep``, ``ca_file``, ``url_origin``, ``on_invocation``, ``bearer_token``, ``paced``, ...)."""
    b = limits or Limits()
    return SourceSettings(url=url, client_id=client_id, client_secret=client_secret, env=dict(settings.sources),
                          needed=needed, timeout=b.read_idle_seconds, max_body_bytes=b.max_body_bytes,
                          read_total=b.read_total_seconds, max_event_pages=b.max_event_pages, **kw)


def open_runai(tier1: str, settings: SourceSettings) -> RunaiSource:
    """The Tier-1 source ``tier1`` (a registered name), built from ``settings``."""
    return open_source(check_tier1(tier1), settings)
