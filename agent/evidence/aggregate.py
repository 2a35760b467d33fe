"""Keep a report readable when evidence floods in: repeats become one line with a count, long lists are capped.

Lines that differ only in their timestamps (the same event re-emitted, the same note planted a thousand times)
are one line: the first, with ``(×N similar lines, first T1, last T2)``. A list longer than its cap keeps its
first lines and says how many were left out (as a limitation, so nothing is silently dropped).
"""
from __future__ import annotations

import re

from workload_diagnose.agent.model.result import EvidenceLine

_TS = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
REPEAT_MIN = 4  # up to three similar lines stay as they are (each cites its own time)
EVIDENCE_CAP = 40
INSTRUCTIONS_CAP = 20


def aggregate(lines: list[EvidenceLine]) -> list[EvidenceLine]:
    """Lines in their order; a group of ``REPEAT_MIN`` or more similar lines is one line where its first was."""
    def key(ln: EvidenceLine) -> tuple[str, str]:
        return ln.source, _TS.sub("<t>", ln.text)

    groups: dict[tuple[str, str], list[EvidenceLine]] = {}
    for ln in lines:
        groups.setdefault(key(ln), []).append(ln)
    out: list[EvidenceLine] = []
    for ln in lines:
        members = groups[key(ln)]
        if len(members) < REPEAT_MIN:
            out.append(ln)
        elif ln is members[0]:
            times = sorted({t for m in members for t in _TS.findall(m.text)})
            span = f", first {times[0]}, last {times[-1]}" if times else ""
            out.append(EvidenceLine(source=ln.source, text=f"{ln.text} (×{len(members)} similar lines{span})"))
    return out


def cap(lines: list[EvidenceLine], limit: int, what: str) -> tuple[list[EvidenceLine], list[str]]:
    """The first ``limit`` lines, and the limitation that says what was left out."""
    if len(lines) <= limit:
        return lines, []
    rest = lines[limit:]
    sources = ", ".join(sorted({ln.source for ln in rest}))
    return lines[:limit], [f"The {what} list was cut at {limit} lines: {len(rest)} more (from {sources}) are not "
                           "shown."]
