"""Periodic input.

Hostile input repeats a short unit ('token: ' × 100 000) so that every unit is one match; re2's per-call
cost (~0.6 µs) alone then caps the scan near 15 MB/s.  When the text after a match is an exact repetition
of the unit just scanned (from the search start to the match end), the next searches would find the same
match shifted by one period, as long as nothing a search looks at differs: its one character of context
before the search start (for \\b), and every character that some match attempt started before the match
could still consume.  ``Lookahead`` bounds that second distance for a given unit from the patterns'
structure: a run of one character class cannot be longer than the longest run of that class in the
periodic text, and a branch that needs a character absent from the unit ends there.  Copies whose search
window lies inside the repetition are then decided at once (same replacement, same count) without
searching; the last ones are scanned as usual (engine.sub).  Results are identical to scanning every copy
(tests/guardrails/test_linearity.py checks this on generated periodic inputs).

The pattern trees come from Python's own regex parser; only the constructs the rules use are supported
(anything else disables the analysis, never changes a result).
"""

from __future__ import annotations

import functools
from typing import Any

try:
    from re import _constants as _sre_c, _parser as _sre_parse  # Python >= 3.11
except ImportError:  # pragma: no cover
    import sre_constants as _sre_c  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

_INF = 1 << 40
# units made only of these characters are analysed (Python's and re2's classes agree on them: \s is
# [ \t\n\r] here, \w and \d are ASCII, case folding is ASCII)
SAFE = frozenset(chr(c) for c in range(32, 127)) | frozenset("\t\n\r")
_CATEGORY = {
    _sre_c.CATEGORY_DIGIT: frozenset("0123456789"),
    _sre_c.CATEGORY_SPACE: frozenset(" \t\n\r"),
    _sre_c.CATEGORY_WORD: frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"),
}
_CATEGORY.update({
    _sre_c.CATEGORY_NOT_DIGIT: SAFE - _CATEGORY[_sre_c.CATEGORY_DIGIT],
    _sre_c.CATEGORY_NOT_SPACE: SAFE - _CATEGORY[_sre_c.CATEGORY_SPACE],
    _sre_c.CATEGORY_NOT_WORD: SAFE - _CATEGORY[_sre_c.CATEGORY_WORD],
})
# every context rule needs one of these characters (a separator, a space, a tag, an encoded or escaped
# "=": %3D \u003d &#61;): a candidate made of
# other SAFE characters only (a bare token) can only be a known format, and the context rules are not
# even tried on it (tests/guardrails/test_linearity.py proves it against the patterns with possible)
CTX_CHARS = "=: \t<%\\&"
PLAIN = bytes(sorted(ord(c) for c in SAFE - set(CTX_CHARS)))
PERIOD_MAX = 1024        # longest unit considered
PERIOD_MIN_SPAN = 16384  # shortest repetition worth an analysis (0.2-1 ms for a new unit)
SIM_CAP = 512            # Lookahead.simulated: characters an attempt may live for (the rules' runs are ≤ 200)


class _Unsupported(Exception):
    pass


def _fold(chars: set[str], icase: bool) -> set[str]:
    return chars | {c.swapcase() for c in chars} if icase else chars


def _ir(sub: Any, icase: bool) -> tuple:
    """Pattern tree (re's parser) -> ('c', chars) | ('s', items) | ('a', items) | ('r', lo, hi, item) | ('e',)
    (zero-width) | ('n',) (^: cannot match)."""
    items = [_ir_node(op, av, icase) for op, av in sub]
    return items[0] if len(items) == 1 else ("s", tuple(items))


def _ir_node(op: Any, av: Any, icase: bool) -> tuple:
    c = _sre_c
    if op is c.LITERAL:
        return ("c", frozenset(_fold({chr(av)}, icase) & SAFE))
    if op is c.NOT_LITERAL:
        return ("c", frozenset(SAFE - _fold({chr(av)}, icase)))
    if op is c.ANY:
        return ("c", frozenset(SAFE - {"\n"}))
    if op is c.IN:
        neg, pos = False, set()
        for iop, iav in av:
            if iop is c.NEGATE:
                neg = True
            elif iop is c.LITERAL:
                pos.add(chr(iav))
            elif iop is c.RANGE:
                pos.update(chr(x) for x in range(iav[0], min(iav[1], 127) + 1))
            elif iop is c.CATEGORY and iav in _CATEGORY:
                pos |= _CATEGORY[iav]
            else:
                raise _Unsupported(iop)
        pos = _fold(pos, icase)
        return ("c", frozenset(SAFE - pos if neg else pos & SAFE))
    if op is c.AT:
        # ^ only matches at offset 0, never inside a repetition that starts after it
        return ("n",) if av in (c.AT_BEGINNING, c.AT_BEGINNING_STRING) else ("e",)
    if op is c.BRANCH:
        return ("a", tuple(_ir(b, icase) for b in av[1]))
    if op is c.SUBPATTERN:
        _group, add, rem, p = av
        ic = (icase or bool(add & c.SRE_FLAG_IGNORECASE)) and not (rem & c.SRE_FLAG_IGNORECASE)
        return _ir(p, ic)
    if op in (c.MAX_REPEAT, c.MIN_REPEAT):
        lo, hi, p = av
        return ("r", lo, None if hi == c.MAXREPEAT else hi, _ir(p, icase))
    raise _Unsupported(op)


@functools.lru_cache(maxsize=None)
def pattern_tree(pattern: str) -> tuple:
    """One pattern's tree (``_ir``), parsed once per process (the matchers share most of their patterns);
    ``("x",)`` for a pattern with a construct the analysis does not support."""
    try:
        return _ir(_sre_parse.parse(pattern), False)
    except Exception:  # noqa: BLE001 - any doubt disables what depends on the tree
        return ("x",)


def trees(patterns: "list[str] | tuple[str, ...]") -> "tuple | None":
    """The trees of the patterns, in order, or None if one of them is not supported."""
    out = tuple(pattern_tree(p) for p in patterns)
    return None if ("x",) in out else out


class Lookahead:
    """Upper bound on how far past its start any match attempt of the patterns can get inside a text that
    repeats a unit, or None when no small bound is known (see the comment above)."""

    def __init__(self, patterns: list[str]) -> None:
        self.patterns = patterns
        self.tree: tuple | None = None  # built on first use
        self.cache: dict[str, int | None] = {}
        self.sim_cache: dict[str, int | None] = {}

    def build(self) -> tuple | None:
        """The alternation of the patterns as one tree (None if a pattern uses an unsupported construct)."""
        if self.tree is None:
            items = trees(self.patterns)
            self.tree = ("x",) if items is None else ("a", items)
        return None if self.tree == ("x",) else self.tree

    def simulated(self, unit: str) -> int | None:
        """The same bound from running the match attempts themselves over the periodic text (``advance``: exact
        but for assertions, which it takes to hold), where ``bound`` compares character sets only and so finds
        no bound for a unit holding the letters of a word it does not hold ("send" in "instructions and ").
        Dearer (a millisecond or two for a big alternation): the caller budgets the units it tries."""
        hit = self.sim_cache.get(unit, False)
        if hit is not False:
            return hit  # type: ignore[return-value]
        res = None
        if set(unit) <= SAFE:
            tree = self.build()
            if tree is not None:
                p = len(unit)
                text = unit * -(-(p + SIM_CAP) // p)
                # every attempt started in one period is dead before the end of the text: none reads further
                # than len(text) past its start (a still-live one, or a match ending there, leaves len(text) in)
                res = None if len(text) in advance(tree, text, frozenset(range(p))) else len(text)
        if len(self.sim_cache) >= 256:
            self.sim_cache.clear()
        self.sim_cache[unit] = res
        return res

    def bound(self, unit: str) -> int | None:
        hit = self.cache.get(unit, False)
        if hit is not False:
            return hit  # type: ignore[return-value]
        res = None
        if set(unit) <= SAFE:
            tree = self.build()
            if tree is not None:
                vp = _Eval(unit).ev(tree)[1]
                res = vp if vp < _INF else None
        if len(self.cache) >= 256:
            self.cache.clear()
        self.cache[unit] = res
        return res


class _Eval:
    """(longest full match, longest viable prefix) of a pattern tree over the periodic text unit*∞."""

    __slots__ = ("chars", "double", "runs")

    def __init__(self, unit: str) -> None:
        self.chars = frozenset(unit)
        self.double = unit + unit
        self.runs: dict[frozenset, int] = {}

    def run(self, cls: frozenset) -> int:
        """Longest run of characters of ``cls`` in the periodic text."""
        r = self.runs.get(cls)
        if r is None:
            if self.chars <= cls:
                r = _INF
            else:
                table = {ord(ch): ("x" if ch in cls else " ") for ch in self.chars}
                r = max(map(len, self.double.translate(table).split()), default=0)
            self.runs[cls] = r
        return r

    def ev(self, node: tuple) -> tuple[int | None, int]:
        kind = node[0]
        if kind == "c":
            return (None, 0) if node[1].isdisjoint(self.chars) else (1, 1)
        if kind == "e":
            return 0, 0
        if kind == "n":
            return None, 0
        if kind == "s":
            acc, vp = 0, 0
            for item in node[1]:
                ml, v = self.ev(item)
                vp = max(vp, acc + v)
                if ml is None:
                    return None, min(vp, _INF)
                acc = min(acc + ml, _INF)
            return acc, max(vp, acc)
        if kind == "a":
            best_ml, best_vp = None, 0
            for item in node[1]:
                ml, v = self.ev(item)
                if ml is not None and (best_ml is None or ml > best_ml):
                    best_ml = ml
                best_vp = max(best_vp, v)
            return best_ml, best_vp
        if kind == "r":
            _k, lo, hi, item = node
            # a repetition of single characters: one run of the union of their classes, possibly ended
            # by a branch that starts but cannot complete
            branches = item[1] if item[0] == "a" else (item,)
            cls: set[str] = set()
            partial = 0
            simple = True
            for b in branches:
                if b[0] == "c":
                    cls |= b[1]
                    continue
                ml, v = self.ev(b)
                if ml is None:
                    partial = max(partial, v)
                elif ml > 0:
                    simple = False
                    break
            if simple:
                run = self.run(frozenset(cls)) if not self.chars.isdisjoint(cls) else 0
                cap = run if hi is None else min(run, hi)
                return (cap if cap >= lo else None), min(cap + partial, _INF)
            ml, v = self.ev(item)
            if ml is None or ml == 0:
                return (ml if lo > 0 else 0), v
            if hi is None:
                return _INF, _INF
            return min(hi * ml, _INF), min((hi - 1) * ml + v, _INF)
        return _INF, _INF  # unknown node: no bound


def possible(node: tuple, alphabet: frozenset) -> bool:
    """Can the pattern tree match some text made only of ``alphabet`` characters?"""
    kind = node[0]
    if kind == "c":
        return not node[1].isdisjoint(alphabet)
    if kind == "s":
        return all(possible(x, alphabet) for x in node[1])
    if kind == "a":
        return any(possible(x, alphabet) for x in node[1])
    if kind == "r":
        return node[1] == 0 or possible(node[3], alphabet)
    return True  # zero-width assertions (^ too: a candidate starts a text), unknown nodes




def advance(node: tuple, text: str, at: frozenset) -> frozenset:
    """Positions in ``text`` (len(text) = consumed all of it, anything may follow) that a match of the tree
    can reach when it starts at one of the positions ``at``.  Conservative: assertions always hold."""
    n = len(text)
    kind = node[0]
    if kind == "c":
        cls = node[1]
        out = {i + 1 for i in at if i < n and text[i] in cls}
        if n in at and cls:
            out.add(n)
        return frozenset(out)
    if kind == "s":
        for item in node[1]:
            if not at:
                break
            at = advance(item, text, at)
        return at
    if kind == "a":
        out: frozenset = frozenset()
        for item in node[1]:
            out |= advance(item, text, at)
        return out
    if kind == "r":
        _k, lo, hi, item = node
        for _ in range(lo):
            nxt = advance(item, text, at)
            if nxt == at or not nxt:
                at = nxt
                break
            at = nxt
        acc, cur, more = at, at, (hi - lo if hi is not None else n + 1)
        while cur and more > 0:
            cur = advance(item, text, cur) - acc
            acc |= cur
            more -= 1
        return acc
    return at  # zero-width (assertions, ^) or unknown: no constraint


def copies(text: str, unit: str, start: int) -> int:
    """Number of consecutive copies of ``unit`` in ``text`` from ``start`` (C-speed comparisons)."""
    p = len(unit)
    room = (len(text) - start) // p
    n, step = 0, 1
    while step:
        if n + step <= room and text.startswith(unit * step, start + n * p):
            n += step
            step *= 2
        else:
            step //= 2
    return n


