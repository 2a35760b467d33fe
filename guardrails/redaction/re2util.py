"""re2 plumbing shared by the redactor and the injection detector: the marker format, the DFA budget,
options, named groups made non-capturing, and the low-level anchors of ``RE2.Match``."""

from __future__ import annotations

import re
from collections.abc import Callable

import re2

MARKER_PREFIX = "[REDACTED:"


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


# DFA budget of the combined alternations.  re2 builds its DFA lazily and only allocates what an input
# needs (a few MiB for logs); the budget is the ceiling before re2 falls back to its ~50x slower NFA.
# The patterns are written so that the DFA stays small on any input (no counted repetition that many
# overlapping candidates can be inside at once, see rules.NAME), and the budget leaves headroom.
MAX_MEM = 256 << 20


def options(max_mem: int = MAX_MEM) -> re2.Options:
    o = re2.Options()
    o.max_mem = max_mem
    return o


_GROUP_NAME = re.compile(r"\(\?P<\w+>")


def without_group_names(pattern: str) -> str:
    """The pattern with its named groups made non-capturing.  ``Options.never_capture`` does not apply to
    *named* groups in re2, and a regex with capture groups makes re2 run its NFA (or BitState) over every
    match after the DFA found it: 2-4 µs per match, ~10 MB/s over a long one."""
    return _GROUP_NAME.sub("(?:", pattern)


# the anchors of re2's low-level ``RE2.Match(anchor, bytes, pos, endpos)`` (the Python ``finditer``
# wrapper costs ~1 µs per match on its own)
UNANCHORED = re2._Anchor.UNANCHORED
ANCHOR_START = re2._Anchor.ANCHOR_START
ANCHOR_BOTH = re2._Anchor.ANCHOR_BOTH


def whole_match(pattern: str) -> "Callable[[str], bool]":
    """A test that the whole of a str matches ``pattern``: re2's low-level ``Match`` on its UTF-8 bytes (the
    ``search`` wrapper converts offsets between characters and bytes, a Python-level cost per character of a
    long value)."""
    match = re2.compile(pattern, options())._regexp.Match

    def test(s: str) -> bool:
        b = s.encode("utf-8")
        return match(ANCHOR_BOTH, b, 0, len(b))[0][0] >= 0

    return test


def low_level_search(rx: "re2._Regexp") -> object:
    """The low-level ``Match(anchor, bytes, pos, endpos) -> [(start, end), …]`` of a compiled re2 regex."""
    return rx._regexp.Match
