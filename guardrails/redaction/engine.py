"""The scanning engine: linear in the input on any text.

* Every regex runs on google-re2: matching is linear in the input, so hostile input cannot make the
  redactor backtrack.  re2 has no look-around and no back-references, so "is this really a secret?"
  decisions that would need them are made in small Python callbacks (handlers.py) that only see the
  (already bounded) candidate match.
* Five stages, each linear:
    1. PEM private-key blocks (pem.py).
    2. Command rules (``docker login -p``, ``mysql -pX``, ``redis-cli -a``, ``sshpass -p``,
       ``echo X | … --password-stdin``), each as its own pass over the lines holding its command word:
       they skip an unbounded part of the line before their flag, and inside one alternation that made
       every later search read to the end of the line (quadratic).
    3. The leftmost-first alternation of the other context rules, then the known token formats
       (rules.py), searched as two streams (matcher.streams: the context rules, the known formats; each
       family's next match is kept until the scan passes it, the leftmost of the two is the alternation's
       match), compiled without captures (matcher.py) and searched match by match with re2's low-level
       ``RE2.Match``; a ``re2.Set`` names the rule of each candidate (a bare token whose first
       characters only one known format can start with needs none, and a list of such tokens is taken in
       one search: _token_run) and only that rule's regex extracts groups from the candidate; identical
       candidates are decided once per call (memo).  Text that repeats a unit is decided once per unit
       when the patterns' structure proves that the searches would see the same thing (periodic.py).  No
       pattern keeps a counter that restarts inside long tokens, and the two families' DFAs are apart
       (one random base64 token is scanned at ~190 + ~300 MB/s, not ~55 as one alternation).
    4. A candidate that a callback rejects is re-scanned once (handlers.py).
    5. Base64 runs whose decoded text holds a secret (encoded.py): the last alternatives of stage 3.
* The replacement is ``[REDACTED:<kind>]``.  No rule can match inside a marker (values may not start
  with ``[REDACTED``; token character classes exclude ``[``/``]``), so ``redact(redact(x)) == redact(x)``.
* Whole spans are replaced: the full JWT (all segments), the full PEM block, the full token including
  its prefix.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import re2

from ..clean import REDACTION_CLEAN
from .counter import CounterBase
from .handlers import B64, RESCAN, Block, block_end, handle
from .heuristics import MIN_LEN
from .encoded import B64_CHARS, B64_MARK, secret_run
from .matcher import PLAIN, Matcher
from .periodic import PERIOD_MAX, PERIOD_MIN_SPAN, copies
from .pem import redact_pem
from .re2util import ANCHOR_START, MARKER_PREFIX, UNANCHORED, low_level_search, marker
from .rules import BASE64, COMMANDS, CONTEXT, FORMATS, KNOWN_FORMATS, TAIL_KINDS

# Command rules run each on its own (see rules.COMMANDS): (matcher, keywords, the search for its start)
# (compiled on first use, as every matcher is: a process whose texts hold no command word never builds them)
@functools.lru_cache(maxsize=None)
def _commands() -> list[tuple[Matcher, tuple[str, ...], Any]]:
    return [(Matcher([(r.kind, r.pattern)], []), r.keywords, low_level_search(re2.compile(r.starts)))
            for r in COMMANDS]


_CMD_LITERALS = tuple(lit for r in COMMANDS for lit in r.keywords)


@functools.lru_cache(maxsize=None)
def _cmd_any_word() -> Any:
    return low_level_search(re2.compile("|".join(f"(?:{r.starts})" for r in COMMANDS)))


MAIN_RULES = [(r.kind, r.pattern) for r in CONTEXT]
TAIL_RULES = [(r.kind, r.pattern) for r in CONTEXT if r.kind in TAIL_KINDS]
# Two formats start with a counted run after any word boundary (Terraform: 14 characters and
# ".atlasv1."; Azure: 3 characters, a digit and "Q~"): inside long tokens their counters multiply the DFA
# states of everything else (2.5x slower scans of random base64).  A text without their keyword cannot
# hold them: it is scanned by the same alternations without them (the same results: an alternative that
# matches nowhere changes no leftmost-first choice).  Counter holds the matchers of a call.
_GATED_KINDS = frozenset(r.kind for r in FORMATS if r.gated)
GATED_LITERALS = tuple(lit for r in FORMATS if r.gated for lit in r.keywords)
# the base64 fragments come last (stage 5, see encoded.py): a match anywhere else starting at the same
# place is preferred; they are no known format (KNOWN_FORMATS: what a redacted text may not contain)
_B64_RULE = [(BASE64.kind, BASE64.pattern)]
_LITE_FORMATS = [(k, p) for k, p in KNOWN_FORMATS if k not in _GATED_KINDS]
_FULL_LITE = Matcher(MAIN_RULES, _LITE_FORMATS + _B64_RULE)
_KNOWN_LITE = Matcher([], _LITE_FORMATS + _B64_RULE)
_TAIL_LITE = Matcher(TAIL_RULES, _LITE_FORMATS + _B64_RULE)
# text decoded from base64 is scanned without the fragments (one level deep)
_PLAIN_LITE = (Matcher(MAIN_RULES, _LITE_FORMATS), Matcher([], _LITE_FORMATS), Matcher(TAIL_RULES, _LITE_FORMATS))
# one pass over a long text finds whether it holds a command word or a gated literal at all
_GATE_LITERALS = _CMD_LITERALS + GATED_LITERALS
GATE_PATTERN = "|".join([f"(?:{r.starts})" for r in COMMANDS] + [re2.escape(lit) for lit in GATED_LITERALS])


@functools.lru_cache(maxsize=None)
def _gate() -> Any:
    return low_level_search(re2.compile(GATE_PATTERN))


@functools.lru_cache(maxsize=2)
def full_matchers(b64: bool = True) -> tuple[Matcher, Matcher, Matcher]:
    """The main, known-format and tail matchers with every format, built on the first text that needs them."""
    known = KNOWN_FORMATS + _B64_RULE if b64 else KNOWN_FORMATS
    return (Matcher(MAIN_RULES, known), Matcher([], known), Matcher(TAIL_RULES, known))


class Counter(CounterBase):
    """Markers inserted so far, and the matchers of this call (lite: without the gated formats; b64: with
    the base64 fragments)."""

    __slots__ = ()

    def __init__(self, lite: bool = False, b64: bool = True) -> None:
        if lite:
            full, known, tail = (_FULL_LITE, _KNOWN_LITE, _TAIL_LITE) if b64 else _PLAIN_LITE
        else:
            full, known, tail = full_matchers() if b64 else full_matchers(False)
        super().__init__(full, known, tail, sub)


_MEMO_MAX = 4096
_MEMO_LEN = 4096  # longest candidate remembered


def sub(matcher: Matcher, text: str, depth: int, counter: Counter, subject: bytes | None = None) -> str:
    ascii_ = text.isascii()
    # re2 scans UTF-8 bytes; for ASCII text byte offsets are character offsets
    if subject is None:
        subject = text.encode("ascii") if ascii_ else text.encode("utf-8")
    search_c, search_k = matcher.streams()
    run = matcher.token_run() if ascii_ else None
    no_run_until = 0
    rule_for = matcher.rule_for
    bare_marker_get = matcher.bare_marker.get
    unanchored, plain, memo_max = UNANCHORED, PLAIN, _MEMO_MAX
    end = len(subject)
    out: list[str] = []
    append = out.append
    pos = 0        # text[pos:] is not in out yet (characters)
    bpos = 0       # where the next search starts (bytes)
    mb = mc = 0    # non-ASCII text: byte offset mb is character offset mc
    no_period_until = 0
    b64_done = 0   # the end of the last base64 run decided to hold no secret
    # identical candidates (a log repeats its lines; hostile input repeats its pattern) are decided once
    memo: dict[str, tuple[Any, int]] = {}
    memo_get = memo.get
    # the next match of each family (matcher.streams): (start, end) found by a search from cq / kq; a start
    # of `none`: no match at or after there
    none = end + 1
    cs = ce = ks = ke = 0
    cq = kq = none + 1
    if search_c is None:
        cs, cq = none, 0
    if search_k is None:
        ks, kq = none, 0
    while True:
        if cs < bpos or bpos < cq:
            cs, ce = search_c(unanchored, subject, bpos, end)[0]
            cq = bpos
            if cs < 0:
                cs = none
        if cs == bpos and cs != none:
            bs, be, ctx = cs, ce, True  # (no known format can start before a context match starting here)
        else:
            if ks < bpos or bpos < kq:
                ks, ke = search_k(unanchored, subject, bpos, end)[0]
                kq = bpos
                if ks < 0:
                    ks = none
            if cs <= ks:
                if cs == none:
                    break
                bs, be, ctx = cs, ce, True
            else:
                bs, be, ctx = ks, ke, False
        if ascii_:
            s, e, p = bs, be, bpos
        else:
            # (after a rejected candidate the scan goes on inside it, before the last offset converted)
            s = mc + _re2_chars(subject, mb, bs) if bs >= mb else mc - _re2_chars(subject, bs, mb)
            e = s + _re2_chars(subject, bs, be)
            mb, mc = be, e
            p = -1
        bpos = be if be > bs else be + (1 if ascii_ else len(text[e:e + 1].encode("utf-8")))
        if s < pos:
            continue  # inside a block scalar already replaced
        cb = subject[bs:be]
        # (a context match always holds a context character: tests/guardrails/test_linearity.py)
        if not ctx and not cb.translate(None, plain):
            # a bare token whose first characters only one known format can start with: the common case
            # of a real token, kept short (see rule_for)
            # (a JSON escape before a token, "\\n" + token, is not bare: the backslash is a context character)
            mark = bare_marker_get(cb[:4])
            if mark:
                counter.n += 1
                append(text[pos:s])
                append(mark)
                pos = e
                if run is not None and p >= 0 and e < end and subject[e] == 32 and e >= no_run_until and e < cs:
                    # more such tokens after it, a space or more apart (a token list): taken in one search
                    limit = min(cs, end, e + _RUN_CHUNK)
                    taken, rep, k, read = _token_run(run, subject, e, limit, plain, bare_marker_get)
                    if k:
                        counter.n += k
                        append(rep)
                        pos = bpos = taken
                    if read > taken + 1:
                        no_run_until = read  # (stopped early: what it read is not searched again)
                continue
        cand = text[s:e]
        long_ = len(cand) > _MEMO_LEN  # (not remembered: rarely repeated, and hashing it is a pass over it)
        hit = None if long_ else memo_get(cand)
        if hit is not None:
            rep, delta = hit
            counter.n += delta
        else:
            rule = rule_for(cb, ctx)
            if rule is None:
                rep, delta = cand, 0
            else:
                before = counter.n
                rep = handle(rule, cand, depth, counter)
                delta = counter.n - before
            if len(memo) < memo_max and not long_:
                memo[cand] = (rep, delta)
        if rep is B64:
            # a base64 fragment (rules.BASE64): decide the run around it (ASCII characters: as many bytes)
            if s < b64_done:
                continue  # inside a run already decided (no secret): the scan goes on after the fragment
            lo, rend = s, e
            while lo > pos and text[lo - 1] in B64_CHARS:
                lo -= 1
            n_text = len(text)
            while rend < n_text and text[rend] in B64_CHARS:
                rend += 1
            hi = rend
            while rend < n_text and rend - hi < 2 and text[rend] == "=":
                rend += 1
            if secret_run(text[lo:hi], _redact_plain):
                counter.n += 1
                append(text[pos:lo])
                append(B64_MARK)
                pos = rend
                bpos = be + (rend - e)
                if not ascii_:
                    mb, mc = bpos, rend
            else:
                b64_done = hi  # (other formats later in the run are still found: the scan goes on here)
            continue
        if rep is RESCAN:
            # not a candidate (see RESCAN): what the scan finds at s instead is a match of a rule after it
            # in the alternation that can start there (a known format after a JSON escape, Bearer, ...),
            # else the next match from s + 1
            tb, te = counter.tail.search(ANCHOR_START, subject, bs, end)[0]
            if tb < 0:
                bpos = bs + 1
                while bpos < end and (subject[bpos] & 0xC0) == 0x80:
                    bpos += 1
                continue
            e = s + (te - tb if ascii_ else _re2_chars(subject, tb, te))
            if not ascii_:
                mb, mc = te, e
            cand = text[s:e]
            rule = counter.tail.rule_for(subject[tb:te])
            rep = cand if rule is None else handle(rule, cand, depth, counter)
            bpos = te
            if rep.__class__ is Block or rep is RESCAN or rep is B64 or rep == cand:
                continue  # (neither can be: the tail has no such rules)
            append(text[pos:s])
            append(rep)
            pos = e
            continue
        read = e  # the end of what deciding the candidate read
        if rep.__class__ is Block:
            vend = s + len(rep.head)
            bend, read = block_end(text, vend)
            inner_block = text[vend:bend].strip()
            if inner_block and not (inner_block.startswith(MARKER_PREFIX) and "\n" not in inner_block):
                body = text[vend:bend]
                first = body.split("\n", 2)[1] if "\n" in body else ""
                indent = first[: len(first) - len(first.lstrip(" \t"))]
                counter.n += 1
                append(text[pos:s])
                head = sub(counter.known, rep.head, 1, counter) if rep.long_head else rep.head
                append(head + "\n" + indent + marker(rep.kind) + ("\n" if body.endswith("\n") else ""))
                pos = bend
                continue
            # empty, or already redacted: left as it is, and so are its periodic copies (below) when the
            # line it starts on begins inside the unit (block_end reads back to that line's start)
            if p <= 0 or text.rfind("\n", p, vend) < 0:
                continue
            changed = False
        else:
            changed = rep is not cand and rep != cand
            if changed:
                append(text[pos:s])
                append(rep)
                pos = e
        # periodic input: copies of the unit just scanned that the searches would treat identically
        if p > 0 and e >= no_period_until and e - p <= PERIOD_MAX and text[p - 1] == text[e - 1]:
            unit = text[p:e]
            if text.startswith(unit, e):
                period = e - p
                m = copies(text, unit, e)
                region_end = e + m * period
                no_period_until = region_end
                if m * period >= PERIOD_MIN_SPAN:
                    la = matcher.lookahead.bound(unit)
                    if la is not None:
                        la = max(la, read - s)
                        # copy i (1..k) is searched from p + i*period; everything that search reads lies
                        # before s + i*period + la + 1 < region_end
                        k = min(m, (region_end - s - la - 2) // period)
                        if k > 0:
                            counter.n += delta * k
                            if changed:
                                append((text[p:s] + rep) * k)
                                pos = e + k * period
                            bpos = be + k * period
    if not out:
        return text
    append(text[pos:])
    return "".join(out)


_RUN_CHUNK = 16384  # bytes a token run's search may read
_FIRST4 = operator.itemgetter(slice(0, 4))


def _token_run(run: Any, subject: bytes, start: int, limit: int, plain: bytes,
               bare_marker_get: Any) -> tuple[int, str, int, int]:
    """After a bare token of the fast path ending at ``start`` (ASCII text, a space next): the tokens that
    follow it one space or more apart and that the fast path would take one by one.  ``run`` (one search,
    matcher.token_run) matches spaces and a token of a format without a check, repeated; every token it
    gives that is followed by a space within ``limit`` (the next context match, so that none comes between),
    has no context character, and whose first 4 bytes only one known format can start with (bare_marker)
    is what the scan's next search would find there (no known format matches a space, no known format but
    that one can start there), and what the fast path would replace.  Returns (end of the last token taken,
    the replacement of start..that end, the number of tokens, the end of what the search read)."""
    stop = run(ANCHOR_START, subject, start, limit)[0][1]
    if stop <= start:
        return start, "", 0, start
    pieces = subject[start:stop].split(b" ")
    if not (stop < limit and subject[stop] == 32):
        pieces.pop()  # the last one: not followed by a space (a longer token, or the limit cut it)
    marks = list(map(bare_marker_get, map(_FIRST4, pieces)))
    try:
        taken = marks.index(None)
    except ValueError:
        taken = len(marks)
    while taken and not marks[taken - 1]:
        taken -= 1  # (the spaces after the last token are not taken)
    if not taken:
        return start, "", 0, stop
    region = b" ".join(pieces[:taken])
    if region.translate(None, plain + b" "):
        # a token with a context character: up to it only
        taken = next(i for i, w in enumerate(pieces) if w.translate(None, plain))
        while taken and not marks[taken - 1]:
            taken -= 1
        if not taken:
            return start, "", 0, stop
        region = b" ".join(pieces[:taken])
    del marks[taken:]
    return start + len(region), " ".join(marks), taken - marks.count(""), stop


def _re2_chars(b: bytes, start: int, stop: int) -> int:
    """Number of characters in the UTF-8 bytes b[start:stop]."""
    return len(b[start:stop].decode("utf-8")) if stop > start else 0



def redact_with_count(text: str, *, gate: bool | None = None) -> tuple[str, int]:
    """Redact and return the number of markers inserted.  ``gate``: whether ``GATE_PATTERN`` (a command word
    or the literal of a gated format) occurs in ``text``, when the caller has searched for it already."""
    if not isinstance(text, str) or len(text) < MIN_LEN:
        return text, 0
    if text in REDACTION_CLEAN:
        return text, 0
    out, counter = _redact(text, gate=None if gate is None else not gate)
    if counter.n == 0 and out == text:
        REDACTION_CLEAN.remember(text)
    return out, counter.n


def _redact_plain(text: str) -> tuple[str, int]:
    """The redaction of text decoded from base64 (its own base64 runs are not decoded again)."""
    if len(text) < MIN_LEN:
        return text, 0
    out, counter = _redact(text, b64=False)
    return out, counter.n


def _redact(text: str, b64: bool = True, gate: bool | None = None) -> tuple[str, Counter]:
    """``gate``: no command word and no gated literal in ``text`` (the command rules and the gated formats
    are left out), when known.  (A command rule's match starts with a match of its ``starts``, which the gate
    pattern holds; a gated literal is in it as it is.)"""
    subject = None
    if gate is not None:
        pass
    elif len(text) < 4096:  # (the literals of the command rules and of the gated formats)
        gate = not any(map(text.__contains__, _GATE_LITERALS))
    else:  # one DFA pass for the command words and the literals of the gated formats
        subject = text.encode("utf-8")
        gate = _gate()(UNANCHORED, subject, 0, len(subject))[0][0] < 0
    counter = Counter(gate or not any(map(text.__contains__, GATED_LITERALS)), b64)
    out = redact_pem(text, counter)
    out, subject = _redact_commands(out, counter, gate, subject if out is text else None)
    out = sub(counter.full, out, 0, counter, subject)
    return out, counter


def _redact_commands(text: str, counter: Counter, none: bool = False,
                     b: bytes | None = None) -> tuple[str, bytes | None]:
    """The command rules, each on its own (see _COMMAND_RULES), on the lines holding its command word only:
    a command match and everything its search reads lie within one line (the rules never cross a line
    break), so running it over those lines gives what a run over the whole text gives.  Returns the text
    and, when at hand, its UTF-8 encoding (for the next stage); ``b``: the encoding of ``text`` if known."""
    if len(text) < 4096:
        if none or not any(map(text.__contains__, _CMD_LITERALS)):
            return text, None
        for matcher, literals, _word in _commands():
            if any(map(text.__contains__, literals)):
                text = sub(matcher, text, 0, counter)
        return text, None
    if b is None:
        b = text.encode("utf-8")
    if none or _cmd_any_word()(UNANCHORED, b, 0, len(b))[0][0] < 0:  # no command word at all
        return text, b
    for matcher, _literals, word in _commands():
        n = len(b)
        pieces: list[bytes] = []
        last = pos = 0
        while True:
            ws, we = word(UNANCHORED, b, pos, n)[0]
            if ws < 0:
                break
            ls = b.rfind(b"\n", 0, ws) + 1
            le = b.find(b"\n", we)
            le = n if le == -1 else le
            line = b[ls:le].decode("utf-8")
            red = sub(matcher, line, 0, counter)
            if red is not line:
                pieces.append(b[last:ls])
                pieces.append(red.encode("utf-8"))
                last = le
            pos = le + 1 if le < n else n
            if pos >= n:
                break
        if pieces:
            pieces.append(b[last:])
            b = b"".join(pieces)
            text = b.decode("utf-8")
    return text, b


def redact(text: str) -> str:
    """Replace every credential-shaped value in ``text`` by ``[REDACTED:<kind>]`` (idempotent)."""
    return redact_with_count(text)[0]

