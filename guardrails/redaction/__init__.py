"""Credential redaction for untrusted evidence (logs, events, specs, commands, annotations, API bodies).

The public API.  The package, one concern per module:

* ``rules``      – the rule table as data: every rule's id, keywords, pattern and its own true / false
                   positive samples (known token formats, context rules, command rules, PEM);
* ``engine``     – the linear re2 scan (stages, gates, memo, periodic shortcut) and ``redact``;
* ``matcher``    – the compiled alternations and the way back from a candidate to its rule;
* ``handlers``   – the decision of each context rule on its candidate, and the re-scan of rejected ones;
* ``heuristics`` – is this value a credential (placeholders, prose, paths, entropy, format checks);
* ``periodic``   – the analysis that lets text repeating a unit be decided once per unit;
* ``pem``        – PEM private-key blocks;
* ``structured`` – redaction of JSON-like values by key (``redact_value``);
* ``align``      – where an offset of a text lands in its redaction (excerpts are cut from the latter);
* ``re2util``    – re2 options, anchors, markers (shared with the injection detector).
"""

from __future__ import annotations

import functools

from ..names import STRONG, WEAK
from .engine import GATE_PATTERN, redact, redact_with_count
from .align import Aligned
from .heuristics import is_secret_value as _is_secret_value
from .heuristics import looks_random
from .re2util import MARKER_PREFIX, MAX_MEM, UNANCHORED, low_level_search, marker, options, without_group_names
from .rules import ALL_RULES, COMMANDS, CONTEXT, FORMATS, KNOWN_FORMATS, PEM, Rule
from .structured import redact_value, redact_value_with_count

__all__ = [
    "ALL_RULES", "Aligned", "COMMANDS", "CONTEXT", "FORMATS", "GATE_PATTERN", "KNOWN_FORMATS", "MARKER_PREFIX",
    "MAX_MEM", "PEM", "Rule",
    "STRONG", "UNANCHORED", "WEAK", "is_secret_value", "looks_random", "low_level_search", "marker", "options",
    "redact", "redact_value", "redact_value_with_count", "redact_with_count", "rule_summary",
    "without_group_names",
]


def is_secret_value(value: str, strength: str | None, kind: str, *, structured: bool = False) -> bool:
    """Is ``value`` (already unquoted) a credential, given how strongly its label says so?  ``strength`` is
    ``names.STRONG`` / ``names.WEAK`` / None as ``names.classify_name`` returns it for the label;
    ``structured``: the value is a whole field under that key, not a word in free text."""
    return _is_secret_value(value, strength, kind, structured)


@functools.lru_cache(maxsize=1)
def rule_summary() -> dict[str, int]:
    return {"known_formats": len(FORMATS), "context_rules": len(CONTEXT) + len(COMMANDS)}
