"""Every Tier-1 source, registered once, and the one factory that builds them.

A source is one module that defines ``SOURCE``, its :class:`SourceSpec`: its name (the ``--tier1`` value), the
settings it reads (environment variable, CLI flag), its prerequisites (checked before any read: one line naming
what is missing), the capabilities it reads beyond the six skill reads (:data:`tools.runai.source.CAPABILITIES`),
that it is read-only, and how it is built from the one :class:`SourceSettings`. :data:`SOURCES` names those modules (one
line per source); the CLI's ``--tier1`` choices, the service's ``WD_TIER1`` and the MCP server derive from it,
and ``failed``, ``chat``, ``serve``, the MCP server and ``triage`` all build their source with :func:`open_source`.
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

from workload_diagnose.tools.runai.errors import InvalidInput
from workload_diagnose.tools.runai.source import RunaiSource

__all__ = ["SOURCES", "Setting", "SourceSpec", "SourceSettings", "names", "spec", "specs", "check_name", "help_text",
           "metavar", "open_source", "missing", "require", "source_env", "NOT_CONFIGURED"]

#: name -> the module whose ``SOURCE`` is that source's :class:`SourceSpec` (imported when first asked for)
SOURCES: dict[str, str] = {
    "rest": "workload_diagnose.tools.runai.rest.spec",
    "mcp": "workload_diagnose.tools.runai.mcp.spec",
}

NOT_CONFIGURED = "http://runai-url-not-configured.invalid"


@dataclass(frozen=True)
class Setting:
    """One setting a source reads: ``env`` (the variable), ``flag`` (the CLI option, when there is one)."""

    env: str
    help: str
    flag: str | None = None
    required: bool = False  # a complete request cannot be read without it (the prerequisites say so)
    secret: bool = False


@dataclass
class SourceSettings:
    """Everything any source is built from: the Run:ai endpoint and credentials every source may use, each
    source's own settings (``env``: the declared variables that are set), the bounds of every read, and who
    calls (``needed``: a complete request, so a missing prerequisite is an ``InvalidInput`` now; an incomplete one
    is answered without a read)."""

    url: str | None = None
    client_id: str | None = None
    client_secret: str | None = None
    url_origin: str = "--runai-url"
    env: Mapping[str, str] = field(default_factory=dict)
    needed: bool = True
    ca_file: str | None = None
    timeout: float = 10.0  # seconds of silence a read waits
    max_body_bytes: int = 16 * 1024 * 1024
    read_total: float | None = 30.0  # seconds one request may take in all
    max_event_pages: int = 20
    deadline: Any = None  # tools.deadline.Deadline of the diagnosis
    transport: Any = None  # an httpx transport under the read-only guard (tests, the service's shared pool)
    sleep: Callable[[float], None] | None = None  # a retry's wait
    on_invocation: Callable[[Any, float], None] | None = None
    bearer_token: Any = None  # a caller's own Run:ai token, or fn(refresh) -> token (the service)
    concurrent_reads: bool = True
    paced: bool = False  # one 429 pauses every reader (a fleet)

    def portable(self) -> "SourceSettings":
        """These settings without what cannot cross a process boundary (the transport, deadline, callbacks)."""
        return replace(self, deadline=None, transport=None, sleep=None, on_invocation=None, bearer_token=None)


@dataclass(frozen=True)
class SourceSpec:
    """One source, as its module declares it (``SOURCE = SourceSpec(...)``)."""

    name: str
    summary: str
    build: Callable[[SourceSettings], RunaiSource]
    # the one line naming what is missing, or None (a contradictory configuration raises InvalidInput)
    prerequisites: Callable[[SourceSettings], str | None]
    settings: tuple[Setting, ...] = ()
    capabilities: frozenset[str] = frozenset()
    read_only: bool = False  # must be declared True: the registry refuses a source that does not
    bearer: bool = False  # reads with the caller's own Run:ai token (the service's WD_AUTH=passthrough)

    def ready(self, s: SourceSettings) -> bool:
        """Whether every ``required`` setting is present (a chat answers without reading when it is not)."""
        return all(_value(s, x) for x in self.settings if x.required)


def _value(s: SourceSettings, setting: Setting) -> str | None:
    return s.url if setting.env == "RUNAI_BASE_URL" else s.env.get(setting.env)


_LOADED: dict[str, SourceSpec] = {}


def spec(name: str) -> SourceSpec:
    check_name(name)
    if name not in _LOADED:
        sp = importlib.import_module(SOURCES[name]).SOURCE
        if sp.name != name or sp.read_only is not True:
            raise RuntimeError(f"source {name!r}: its spec must be named {name!r} and declare read_only=True")
        _LOADED[name] = sp
    return _LOADED[name]


def names() -> tuple[str, ...]:
    return tuple(SOURCES)


def specs() -> list[SourceSpec]:
    return [spec(n) for n in SOURCES]


def _choices() -> str:
    return " or ".join(repr(n) for n in SOURCES)


def help_text() -> str:
    """``--tier1``'s help: every registered source and what it reads."""
    parts = [f"{sp.name} ({sp.summary})" for sp in specs()]
    return "Tier-1 source: " + (" or ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + " or " + parts[-1])


def metavar() -> str:
    return "[" + "|".join(SOURCES) + "]"


def check_name(name: str) -> str:
    if name not in SOURCES:
        raise InvalidInput(f"--tier1 must be {_choices()}, not {name!r}")
    return name


def source_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The settings every registered source declares that ``environ`` sets (read in one place)."""
    env = os.environ if environ is None else environ
    return {x.env: env[x.env] for sp in specs() for x in sp.settings if env.get(x.env)}


def missing(name: str, settings: SourceSettings) -> str | None:
    """The one line naming the prerequisite of source ``name`` these settings miss, or None."""
    return spec(name).prerequisites(settings)


def require(name: str, capability: str, what: str) -> None:
    """InvalidInput (one line) when source ``name`` does not declare ``capability``, which ``what`` needs."""
    if capability in spec(name).capabilities:
        return
    able = [n for n in SOURCES if capability in spec(n).capabilities]
    raise InvalidInput(f"--tier1 {name} cannot {what}: it does not read the '{capability}' capability"
                       + (f" (use --tier1 {' or '.join(able)})" if able else ""))


def open_source(name: str, settings: SourceSettings) -> RunaiSource:
    """The one factory: source ``name`` built from ``settings``. A missing prerequisite is an ``InvalidInput``
    when the request is complete (``settings.needed``); otherwise the source is a placeholder at an address that
    does not resolve (an incomplete request is answered without a read; a read through it fails as unreachable)."""
    sp = spec(name)
    why = sp.prerequisites(settings)
    if why is not None:
        if settings.needed:
            raise InvalidInput(why)
        from workload_diagnose.tools.runai.rest import RunaiClient

        return RunaiClient(NOT_CONFIGURED, settings.client_id, settings.client_secret)
    return sp.build(settings)
