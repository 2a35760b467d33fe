"""The Run:ai errors the product raises and catches: one place, whichever registered source read.

* :class:`InvalidInput` — a user-supplied identifier that cannot be used safely in a request (exit 2).
* :class:`ApiUnavailable` — the Run:ai API cannot be reached or answers nonsense (fatal, exit 3).
* :class:`ApiAuthError` — the Run:ai API refused the credentials (fatal, exit 4).

Per-call failures that are *not* fatal are never raised to the graph: they come back as
``ToolResult(status=ERROR, error=ToolError(kind=...))`` (see :mod:`tools.base`).
"""
from __future__ import annotations

__all__ = ["InvalidInput", "ApiUnavailable", "ApiAuthError"]


class InvalidInput(ValueError):
    """A user-supplied identifier that cannot be used safely in a request."""


class ApiUnavailable(Exception):
    """The Run:ai API cannot be reached (fatal: nothing can be diagnosed)."""


class ApiAuthError(Exception):
    """The Run:ai API refused the credentials (fatal)."""
