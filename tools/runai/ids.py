"""Identifier validation: a name or id is checked before it can reach a request.

Kubernetes object names (DNS-1123 subdomain, case-insensitive here) and Run:ai ids. Anything else is refused
before it can reach a query: a value such as ``"a,projectName==x"`` can never widen or change a filter, and a
value such as ``"../x"`` can never change a path. Every source (REST, MCP) validates with these.
"""
from __future__ import annotations

import re

from workload_diagnose.tools.runai.errors import InvalidInput

__all__ = ["check_name", "check_id"]

_SAFE_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,251}[A-Za-z0-9])?$")
_SAFE_ID = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,126}[A-Za-z0-9])?$")


def check_name(value: str, what: str) -> str:
    if not isinstance(value, str) or not _SAFE_NAME.match(value):
        raise InvalidInput(f"{what} {value!r} is not a valid Kubernetes/Run:ai name "
                           "(letters, digits, '.', '-', '_'; must start and end with a letter or digit)")
    return value


def check_id(value: str, what: str) -> str:
    if not isinstance(value, str) or not _SAFE_ID.match(value):
        raise InvalidInput(f"{what} {value!r} is not a valid identifier (expected a UUID)")
    return value
