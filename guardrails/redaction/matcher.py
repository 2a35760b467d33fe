"""Compiled rule sets: one re2 alternation per set of rules, and the way back from a candidate span to
the rule that produced it.

1. ``coarse``: the alternation of every rule with its groups made non-capturing: one DFA pass over the
   text, found match by match with re2's low-level ``RE2.Match``.
2. for each candidate span a ``FullMatchSet`` names the rule (the lowest index matching the span exactly
   is the alternative that leftmost-first semantics chose), then only that rule's own regex runs on the
   (short) span to extract its groups.
"""

from __future__ import annotations

import functools
from typing import Any

import re2

from .heuristics import CHECKED_KINDS
from .periodic import PLAIN, Lookahead, advance, trees
from .re2util import ANCHOR_BOTH, ANCHOR_START, marker, options, without_group_names

_LONG_CAND = 2048  # candidates longer than this get their groups without re2's NFA (see CompiledRule.spans)
PREFIX_CACHE = 1024  # distinct token prefixes analysed per process (then the known-format set decides)

@functools.lru_cache(maxsize=None)
def _rule_regex(pattern: str) -> tuple[Any, dict[str, int], int]:
    """A context rule's own regex (with its groups), its group index and group count: compiled once per process
    (the matchers share their context rules), on the first candidate that rule matched."""
    rx = re2.compile(pattern, options(64 << 20))
    return rx, dict(rx.groupindex), rx.groups


_NO_REGEX: tuple[Any, dict[str, int], int] = (None, {}, 0)


class CompiledRule:
    __slots__ = ("typ", "name", "pattern", "_regex", "split", "marker", "check")

    def __init__(self, typ: str, name: str, pattern: str) -> None:
        self.typ = typ          # "ctx" (a callback decides) or "known" (a token format)
        self.name = name        # context rule name, or the kind of a known format
        self.pattern = pattern
        self.marker = marker(name)
        self.check = typ == "known" and name in CHECKED_KINDS  # check_known has a test for it
        self._regex: "tuple[Any, dict[str, int], int] | None" = None if typ == "ctx" else _NO_REGEX
        self.split: Any = None  # (head, value, value group index) or False; built on first long candidate

    def _compiled(self) -> tuple[Any, dict[str, int], int]:
        if self._regex is None:
            self._regex = _rule_regex(self.pattern)
        return self._regex

    @property
    def rx(self) -> Any:
        return self._compiled()[0]

    @property
    def gidx(self) -> dict[str, int]:
        return self._compiled()[1]

    @property
    def ngroups(self) -> int:
        return self._compiled()[2]

    def _split(self) -> Any:
        """For a rule whose value group ends the pattern: the part before it (with its groups) and the value
        (without groups), to split a long candidate with two DFA passes instead of one NFA pass."""
        if self.split is None:
            self.split = False
            pattern, vg = self.pattern, f"(?P<{self.name}_val>"
            if vg in pattern and pattern.endswith(")"):
                i = pattern.index(vg)
                try:
                    val = re2.compile(pattern[i + len(vg):-1], options(64 << 20))
                    head = re2.compile(pattern[:i], options(64 << 20))
                except re2.error:
                    return self.split
                if val.groups == 0 and all(self.gidx.get(g) == j for g, j in head.groupindex.items()):
                    self.split = (head, val, self.gidx[f"{self.name}_val"])
        return self.split

    def spans(self, cand: str) -> "list[tuple[int, int]] | None":
        """Spans of every group of this rule's full match of ``cand`` (positions in ``cand``)."""
        if not cand.isascii():
            mm = self.rx.fullmatch(cand)
            return None if mm is None else [mm.span(i) for i in range(self.ngroups + 1)]
        b = cand.encode("ascii")
        n = len(b)
        split = self._split() if n > _LONG_CAND else False
        if split:
            # leftmost-first takes the first completion of the head (in priority order) after which
            # the value can match the rest: when the head's own first completion leaves a rest the
            # value matches entirely, that is the split, and no NFA runs over the long value
            head, val, vidx = split
            hs = head._regexp.Match(ANCHOR_START, b, 0, n)
            if hs[0][0] >= 0:
                he = hs[0][1]
                if val._regexp.Match(ANCHOR_BOTH, b, he, n)[0][0] >= 0:
                    out = [(0, n)] + hs[1:] + [(-1, -1)] * (self.ngroups + 1 - len(hs))
                    out[vidx] = (he, n)
                    return out
        sp = self.rx._regexp.Match(ANCHOR_BOTH, b, 0, n)
        return sp if sp[0][0] >= 0 else None


def _matches_space(tree: tuple) -> bool:
    """Can a match of the pattern tree hold a space, or be empty (and so start at one)?"""
    return _holds_space(tree) or _nullable(tree)


def _holds_space(tree: tuple) -> bool:
    kind = tree[0]
    if kind == "c":
        return " " in tree[1]
    if kind in ("s", "a"):
        return any(_holds_space(x) for x in tree[1])
    if kind == "r":
        return _holds_space(tree[3])
    return kind not in ("e", "n")  # (an unknown node: assume it can)


def _nullable(tree: tuple) -> bool:
    kind = tree[0]
    if kind == "c":
        return False
    if kind == "s":
        return all(_nullable(x) for x in tree[1])
    if kind == "a":
        return any(_nullable(x) for x in tree[1])
    if kind == "r":
        return tree[1] == 0 or _nullable(tree[3])
    return True  # zero-width, or unknown


def _alternation(patterns: list[str]) -> Any:
    """One re2 regex: the alternation of the patterns, in their order, without captures."""
    o = options()
    o.never_capture = True
    return re2.compile("|".join(f"(?:{without_group_names(p)})" for p in patterns), o)


@functools.lru_cache(maxsize=None)
def fullmatch_set(patterns: tuple[str, ...]) -> Any:
    """re2.Set (anchored both ends) of the patterns, as its low-level Match: bytes -> [indices]."""
    o = options()
    o.never_capture = True
    st = re2.Set.FullMatchSet(o)
    for p in patterns:
        st.Add(without_group_names(p))
    st.Compile()
    return st._set.Match


class Matcher:
    """Two-phase matching, linear and cheap per candidate.

    1. ``coarse``: the alternation of every rule with its groups made non-capturing: one DFA pass over
       the text, found match by match with re2's low-level ``RE2.Match`` (the Python ``finditer`` wrapper
       costs ~1 µs per match on its own).
    2. for each candidate span a ``FullMatchSet`` names the rule (the lowest index matching the span
       exactly is the alternative that leftmost-first semantics chose), then only that rule's own regex
       runs on the (short) span to extract its groups.
    """

    def __init__(self, ctx: list[tuple[str, str]], known: list[tuple[str, str]]) -> None:
        # every compiled part is built on first use (functools.cached_property: then a plain attribute), so
        # importing the redactor compiles nothing and a process compiles only the matchers its texts need
        # (a `failed` run pays for the ones its bodies reach, not the command rules' or the decoded-base64 ones)
        self._ctx, self._known = ctx, known
        self.patterns = [p for _n, p in ctx] + [p for _k, p in known]
        self._streams: "tuple[Any, Any] | None" = None
        self._run: Any = None
        self.nctx = len(ctx)
        self.lookahead = Lookahead(self.patterns)
        self.by_prefix: dict[bytes, "CompiledRule | bool"] = {}
        # the marker of a bare token (no context character) by its first 4 bytes, where only one known format
        # can start with them and it has no check: what the scan replaces it with without asking rule_for
        # (b"": "", the empty piece between two spaces in engine._token_run)
        self.bare_marker: dict[bytes, str] = {b"": ""}

    @functools.cached_property
    def rules(self) -> list[CompiledRule]:
        return ([CompiledRule("ctx", n, p) for n, p in self._ctx]
                + [CompiledRule("known", k, p) for k, p in self._known])

    @functools.cached_property
    def search(self) -> Any:
        """The low-level search of the whole alternation: (anchor, bytes, pos, endpos) -> [(start, end)]."""
        return _alternation(self.patterns)._regexp.Match

    # which rule matched a candidate: the lowest index among the patterns matching it exactly.  Two sets
    # (context rules, then known formats): one set of both costs 3-4 µs per random-looking token (its DFA
    # tracks both families at once), the two ~0.4 µs each.
    @functools.cached_property
    def ctx_set(self) -> Any:
        return self._set([p for _n, p in self._ctx]) if self._ctx else None

    @functools.cached_property
    def known_set(self) -> Any:
        return self._set([p for _k, p in self._known]) if self._known else None

    def streams(self) -> "tuple[Any, Any]":
        """The low-level searches of the context rules and of the known formats apart (None for an empty
        family), built on first use.  The leftmost-first match of the whole alternation is the leftmost of
        their two matches (the context rule's at the same start: its alternatives come first), and a match
        one of them found from an earlier position is still its next one from any position up to its start,
        so a scan searches again only the family whose match it passed (engine.sub).  Apart, each DFA stays
        small: together, every state of one family combines with every state of the other (a random base64
        token is scanned at ~190 + ~300 MB/s apart, ~55 MB/s together), and a log line meets more new states
        to build."""
        if self._streams is None:
            ctx, known = self.patterns[: self.nctx], self.patterns[self.nctx:]
            self._streams = (_alternation(ctx)._regexp.Match if ctx else None,
                             _alternation(known)._regexp.Match if known else None)
        return self._streams

    def token_run(self) -> Any:
        """The low-level search (anchored at its start) of a run of one or more spaces and a bare token of a
        known format, repeated: the formats without a check (heuristics.CHECKED_KINDS), built on first use;
        None if some known format could match a space (then a space does not end a token, see
        engine._token_run)."""
        if self._run is None:
            self._run = False
            known = self._known_trees() or ()
            if known and not any(_matches_space(t) for t in known):
                alts = [r.pattern for r in self.rules[self.nctx:] if not r.check]
                if alts:
                    self._run = _alternation([f"(?:[ ]+(?:{'|'.join(f'(?:{p})' for p in alts)}))+"])._regexp.Match
        return self._run or None

    def _known_trees(self) -> "tuple | None":
        """The known formats' pattern trees (what a bare token can match), without parsing the context rules'
        (four times their cost; only the periodic analysis needs those)."""
        return trees(self.patterns[self.nctx:])

    @staticmethod
    def _set(patterns: list[str]) -> Any:
        return fullmatch_set(tuple(patterns))

    def rule_for(self, cand: bytes, ctx: bool = False) -> "CompiledRule | None":
        """The rule that matched the (UTF-8 encoded) candidate span; ``ctx``: the span is a context rule's
        match, so it holds a context character (what the test below says of any span that has one)."""
        if ctx or cand.translate(None, PLAIN):
            if self.ctx_set is not None:
                idx = self.ctx_set(cand)
                if idx:
                    return self.rules[min(idx)]
        else:
            # a bare token: only known formats can match it; when a single one can start with its first
            # characters, that is the one the scan matched (no set to run)
            key = cand[:6] if cand[:1] == b"\\" else cand[:4]
            rule = self.by_prefix.get(key)
            if rule is None and len(self.by_prefix) < PREFIX_CACHE:
                rule = self.by_prefix[key] = self._unique_known(key)
                if rule and not rule.check and len(key) == 4:
                    self.bare_marker[key] = rule.marker
            if rule:
                return rule
        idx = self.known_set(cand) if self.known_set is not None else None
        return self.rules[self.nctx + min(idx)] if idx else None

    def _unique_known(self, prefix: bytes) -> "CompiledRule | bool":
        """The only known format that can match a text starting with ``prefix`` (False if not one)."""
        known = self._known_trees()
        if known is None:
            return False
        text = prefix.decode("ascii")
        found = [i for i, t in enumerate(known) if len(text) in advance(t, text, frozenset({0}))]
        return self.rules[self.nctx + found[0]] if len(found) == 1 else False

