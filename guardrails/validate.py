"""Validation of LLM-written text against the deterministic diagnosis and the evidence it was given.

``validate_llm_output(text, category=..., evidence_texts=[...])`` fails when the text

* names a root-cause category other than the classifier's (any of the 8 categories, or PREEMPTED),
* contains a number, UUID, timestamp, node/pod-name-like token or quoted log line (``"…"``, ``“…”``,
  `` `…` ``, fenced code lines) that does not occur in the evidence (numbers may be unit conversions or
  roundings of evidence numbers: ``32 GiB`` ↔ ``34359738368`` / ``32Gi``; ``0.85`` ↔ ``0.8532``),
* contains a secret-shaped string (the redactor would change it),
* claims that the assistant took an action (it is read-only), shows an image, or links to a URL that is not in
  the evidence (the rules, with their samples, are in ``guardrails.output_rules``).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from functools import lru_cache

import re2
from pydantic import BaseModel, Field

from .injection import normalise
from .output_rules import claim_problems, link_problems
from .redaction import redact

class ValidationResult(BaseModel):
    ok: bool
    reasons: list[str] = Field(default_factory=list)


@lru_cache(maxsize=4)
def _category_rx(names: tuple[str, ...]):
    """A claim of a category in text: upper-case names (also with spaces: "NODE FAILURE"), the snake_case names in
    any case ("oom_killed"), and PREEMPTED; plain prose ("node failure", "unknown reason") is not a claim. The names
    come from the caller (agent.taxonomy), so guardrails never hold their own copy of the taxonomy."""
    upper = "|".join(re2.escape(n).replace("_", "[_ ]") for n in names)
    lower = "|".join(re2.escape(n.lower()) for n in names if "_" in n)
    return re2.compile(rf"\b({upper}|PREEMPTED|(?i:{lower}))\b")


_DOTTED_RX = re2.compile(r"\b\d+(?:\.\d+){2,}\b")
_FENCE_RX = re2.compile(r"```[A-Za-z0-9_+\-]*\n?([^`]*)```")
_QUOTE_RX = re2.compile(r"\"([^\"\n]+)\"|\x{201C}([^\x{201D}\n]+)\x{201D}|`([^`\n]+)`")
_MARKER_RX = re2.compile(r"\[REDACTED:[a-z0-9_]+\]")
_UUID_RX = re2.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_TS_RX = re2.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+\-]\d{2}:?\d{2})?)?|\b\d{2}:\d{2}:\d{2}\b"
)
# node / pod / host / image-tag like tokens: words joined by - or . with at least one digit
_NAMEISH_RX = re2.compile(r"[A-Za-z0-9_]+(?:[\-.][A-Za-z0-9_]+)+")
_NUM_RX = re2.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_UNIT_RX = re2.compile(r"^\s?(Ki|Mi|Gi|Ti|Pi|KiB|MiB|GiB|TiB|PiB|K|M|G|T|KB|MB|GB|TB|PB|kB|B|bytes?)\b")
_LIST_MARK_RX = re2.compile(r"(?m)^[ \t]*(?:[-*][ \t]+)?\d{1,2}[.)][ \t]")
_FACTORS = {
    "ki": 1024, "kib": 1024, "mi": 1024 ** 2, "mib": 1024 ** 2, "gi": 1024 ** 3, "gib": 1024 ** 3,
    "ti": 1024 ** 4, "tib": 1024 ** 4, "pi": 1024 ** 5, "pib": 1024 ** 5,
    "k": 1000, "kb": 1000, "m": 1000 ** 2, "mb": 1000 ** 2, "g": 1000 ** 3, "gb": 1000 ** 3,
    "t": 1000 ** 4, "tb": 1000 ** 4, "p": 1000 ** 5, "pb": 1000 ** 5, "b": 1, "byte": 1, "bytes": 1,
}
_TIME_WORDS = {"second", "seconds", "minute", "minutes", "hour", "hours", "day", "days", "week", "weeks",
               "month", "months", "year", "years", "off", "bit", "core", "cores", "gpu", "gpus"}
_SAFE_NAMEISH = {"x86-64", "x86_64", "utf-8", "sha-256", "base-64", "aes-256", "e.g", "i.e"}


def _squash(s: str) -> str:
    return " ".join(s.split()).casefold()


def _numbers(text: str) -> list[tuple[float, int, str]]:
    """(value, decimals, unit) for standalone numbers (not part of identifiers)."""
    out = []
    for m in _NUM_RX.finditer(text):
        s, e = m.span()
        if s > 0 and (text[s - 1].isalnum() or text[s - 1] in "_-."):
            continue
        if e < len(text) and text[e] == "." and e + 1 < len(text) and text[e + 1].isdigit():
            continue
        raw = m.group(0).replace(",", "")
        try:
            val = float(raw)
        except ValueError:
            continue
        dec = len(raw.split(".")[1]) if "." in raw else 0
        um = _UNIT_RX.search(text[e: e + 7])
        unit = um.group(1).lower() if um else ""
        if not unit and e < len(text) and text[e].isalpha() and not text[e:e + 1] in ("x",):
            # number glued to letters that are not a unit (e.g. "3rd", "8xA100"): treat as a token
            pass
        out.append((val, dec, unit))
    return out


class _EvidenceNumbers:
    """Numbers of the evidence, indexed so that each lookup is O(log n) (no quadratic scans)."""

    def __init__(self, values: list[tuple[float, int, str]]) -> None:
        self.exact: set[float] = set()
        self.rounded: dict[int, set[float]] = {d: set() for d in range(0, 4)}
        bytes_: list[float] = []
        for val, _dec, unit in values:
            self.exact.add(val)
            for d in range(1, 4):
                self.rounded[d].add(round(val, d))
            if val != int(val):
                self.rounded[0].add(float(round(val)))
            f = _FACTORS.get(unit)
            if f:
                bytes_.append(val * f)
            if not unit and val >= 1024:
                bytes_.append(val)  # raw byte counts (metric values, limits in bytes)
        self.bytes = sorted(bytes_)

    def has_bytes_near(self, target: float, tol: float) -> bool:
        i = bisect.bisect_left(self.bytes, target - tol)
        return i < len(self.bytes) and self.bytes[i] <= target + tol


def _evidence_index(evidence_texts: Iterable[str]) -> tuple[str, _EvidenceNumbers]:
    parts = []
    for t in evidence_texts:
        if not isinstance(t, str):
            t = str(t)
        n = normalise(t)
        parts.append(n)
        r = redact(n)
        if r != n:
            parts.append(r)
    blob = "\n".join(parts)
    return blob, _EvidenceNumbers(_numbers(blob))


def _num_ok(val: float, dec: int, unit: str, ev: _EvidenceNumbers) -> bool:
    if val in ev.exact:
        return True
    if round(val, min(dec, 3)) in ev.rounded[min(dec, 3)]:
        return True
    f = _FACTORS.get(unit)
    if f and f > 1:
        tol = 0.5 * (10 ** -dec) * f + 1e-9
        if ev.has_bytes_near(val * f, tol):
            return True
    return False


def validate_llm_output(text: str, *, category: str, evidence_texts: list[str], categories: Sequence[str],
                        extra_allowed: Iterable[str] = ()) -> ValidationResult:
    """Check LLM-written text against the classifier's category (one of ``categories``) and its evidence."""
    names = tuple(categories)
    cat_rx = _category_rx(names)
    reasons: list[str] = []
    if not isinstance(text, str):
        return ValidationResult(ok=False, reasons=["output is not text"])
    if category not in names:
        reasons.append(f"classifier category {category!r} is not one of the known categories")
    text_n = normalise(text)

    # 1. secrets
    if redact(text_n) != text_n:
        reasons.append("contains a secret-shaped string")

    # 2. categories
    named = {m.group(1).replace(" ", "_").upper() for m in cat_rx.finditer(text_n)}
    for other in sorted(named - {category}):
        reasons.append(f"names category {other} but the classifier said {category}")

    blob, ev = _evidence_index(evidence_texts)
    blob_cf = _squash(blob)
    allowed = {_squash(a) for a in extra_allowed}

    def in_evidence(fragment: str) -> bool:
        f = _squash(fragment)
        return not f or f in blob_cf or f in allowed

    # 2b. claimed actions, images and links
    reasons += claim_problems(text_n, blob_cf)
    reasons += link_problems(text_n, blob)

    work = _MARKER_RX.sub(" ", text_n)

    # 3. quoted log lines / fenced code
    spans: list[tuple[int, int]] = []
    for m in _FENCE_RX.finditer(work):
        spans.append(m.span())
        for line in m.group(1).splitlines():
            line = line.strip()
            if line and not _pieces_in(line, in_evidence):
                reasons.append(f"quoted line not found in evidence: {redact(line)[:120]!r}")
    masked = _mask(work, spans)
    spans = []
    for m in _QUOTE_RX.finditer(masked):
        q = next(g for g in m.groups() if g is not None)
        spans.append(m.span())
        if cat_rx.fullmatch(q.strip()) or q.strip() in names:
            continue
        if not _pieces_in(q, in_evidence):
            reasons.append(f"quoted text not found in evidence: {redact(q)[:120]!r}")
    masked = _mask(masked, spans)

    # 4. UUIDs and timestamps
    spans = []
    for rx, what in ((_UUID_RX, "UUID"), (_TS_RX, "timestamp"), (_DOTTED_RX, "version/address")):
        for m in rx.finditer(masked):
            spans.append(m.span())
            tok = m.group(0)
            if not in_evidence(tok) and not in_evidence(tok.replace(" ", "T")):
                reasons.append(f"{what} not found in evidence: {tok}")
        masked = _mask(masked, spans)
        spans = []

    # 5. node / pod / image-tag like tokens
    for m in _NAMEISH_RX.finditer(masked):
        tok = m.group(0).strip(".")
        if len(tok) < 6 or not any(c.isdigit() for c in tok) or sum(c.isalpha() for c in tok) < 2:
            continue
        parts = [p.lower() for p in tok.replace(".", "-").split("-")]
        if tok.lower() in _SAFE_NAMEISH or (len(parts) == 2 and parts[0].isdigit() and parts[1] in _TIME_WORDS):
            continue
        spans.append(m.span())
        if not in_evidence(tok):
            reasons.append(f"name not found in evidence: {tok}")
    masked = _mask(masked, spans)

    # 6. numbers
    masked = _LIST_MARK_RX.sub(" ", masked)
    for val, dec, unit in _numbers(masked):
        if not _num_ok(val, dec, unit, ev):
            shown = f"{val:g}{(' ' + unit) if unit else ''}"
            if _squash(shown) in allowed or _squash(f"{val:g}") in allowed:
                continue
            reasons.append(f"number not found in evidence: {shown}")

    # de-duplicate, keep order
    seen: set[str] = set()
    uniq = [r for r in reasons if not (r in seen or seen.add(r))]
    return ValidationResult(ok=not uniq, reasons=uniq)


def _pieces_in(q: str, in_evidence) -> bool:
    """A quote may elide with '...' / '…': every piece (≥ 3 chars) must be in the evidence."""
    pieces = [p.strip() for p in q.replace("…", "...").split("...")]
    pieces = [p for p in pieces if len(p) >= 3] or [q.strip()]
    return all(in_evidence(p) for p in pieces)


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    out = []
    pos = 0
    for s, e in sorted(spans):
        if s < pos:
            continue
        out.append(text[pos:s])
        out.append(" " * (e - s))
        pos = e
    out.append(text[pos:])
    return "".join(out)
