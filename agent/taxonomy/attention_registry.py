"""The attention-rule registry: every module under ``attention_rules/`` in precedence order. Adding a rule is
adding a module; nothing here names one."""
from __future__ import annotations

import importlib
import pkgutil

import workload_diagnose.agent.taxonomy.attention_rules as _pkg
from workload_diagnose.agent.taxonomy.attention_record import AttentionRule

__all__ = ["RULES", "BY_NAME", "NAMES"]


def _load() -> list[AttentionRule]:
    return [importlib.import_module(f"{_pkg.__name__}.{m.name}").RULE
            for m in sorted(pkgutil.iter_modules(_pkg.__path__), key=lambda m: m.name)]


RULES: list[AttentionRule] = sorted(_load(), key=lambda r: r.precedence)
BY_NAME: dict[str, AttentionRule] = {r.name: r for r in RULES}
NAMES: list[str] = [r.name for r in RULES]

if len(BY_NAME) != len(RULES) or len({r.precedence for r in RULES}) != len(RULES):
    raise ValueError("attention rules: names and precedences must be unique")
