"""Where a position of a text lands in its redaction.

``redact`` replaces spans by markers and leaves everything else verbatim, so the redacted text is the
original's unchanged pieces, in order, with markers between them.  ``Aligned`` finds those pieces again
(one ``str.find`` each, every search starting where the previous piece ended: linear overall) and maps
an offset of the original to the redacted text; an offset inside a replaced span maps to its marker.

Callers that show part of a text (the excerpt around a detected instruction) cut it from the redacted
text at the mapped offsets: what they show is a substring of the redaction of the WHOLE text, so a cut
can never drop the key name or the ``-----BEGIN … KEY-----`` line the redaction of a value relied on.
(When the pieces are found at the wrong place, which takes a replaced span holding a copy of the text
after it, the excerpt is from a neighbouring place of the redacted text: never from the original.)
"""

from __future__ import annotations

import bisect

import re2

from .engine import redact
from .re2util import UNANCHORED

_MARKER = re2.compile(r"\[REDACTED:[A-Za-z0-9_]*\]")
_MARKER_SEARCH = _MARKER._regexp.Match


class Aligned:
    """Built as far as it is asked (a text with thousands of markers and a finding near its start reads its
    first pieces only): the pieces are found in order, so the result is that of finding them all first."""

    __slots__ = ("text", "red", "_orig", "_reds", "_lens", "_rpos", "_pos", "_bytes", "_iter", "_done")

    def __init__(self, text: str, red: str | None = None) -> None:
        self.text = text
        self.red = redact(text) if red is None else red
        self._orig: list[int] = []  # start of each unchanged piece in text ...
        self._reds: list[int] = []  # ... and in red
        self._lens: list[int] = []
        self._rpos = self._pos = 0  # red[:_rpos] is aligned; the next piece is searched in text from _pos
        self._done = self.red == text
        if self._done:
            self._orig, self._reds, self._lens = [0], [0], [len(text)]
        # the markers: re2's low-level search on ASCII (byte offsets are character offsets), else finditer
        self._bytes = self.red.encode("ascii") if not self._done and self.red.isascii() else None
        self._iter = _MARKER.finditer(self.red) if not self._done and self._bytes is None else None

    def _extend(self) -> None:
        """Align the next piece (the one before the next marker, or the last one)."""
        red, rpos = self.red, self._rpos
        if self._bytes is not None:
            ms, me = _MARKER_SEARCH(UNANCHORED, self._bytes, rpos, len(self._bytes))[0]
        else:
            m = next(self._iter, None)  # type: ignore[arg-type]
            ms, me = m.span() if m is not None else (-1, -1)
        if ms < 0:
            self._piece(red[rpos:], rpos, self._pos, last=True)
            self._done = True
            return
        self._pos = self._piece(red[rpos:ms], rpos, self._pos)
        self._rpos = me

    def _piece(self, piece: str, rpos: int, pos: int, last: bool = False) -> int:
        """Record the unchanged piece red[rpos:rpos+len(piece)], found in text at or after pos; returns
        where the next search starts."""
        if not piece:
            return pos
        if last and self.text.endswith(piece) and len(self.text) - len(piece) >= pos:
            at = len(self.text) - len(piece)  # the text after the last marker ends the text
        else:
            at = self.text.find(piece, pos)
        if at < 0:  # (cannot happen for a redaction of text; stay consistent)
            return pos
        self._orig.append(at)
        self._reds.append(rpos)
        self._lens.append(len(piece))
        return at + len(piece)

    def pos(self, i: int) -> int:
        """The offset in ``red`` of offset ``i`` of ``text``."""
        while not self._done and not (self._orig and self._orig[-1] > i):
            self._extend()  # (until the piece after i is known: i is in a piece or in the span before it)
        k = bisect.bisect_right(self._orig, i) - 1
        if k < 0:
            return 0
        o, r, n = self._orig[k], self._reds[k], self._lens[k]
        if i <= o + n:
            return r + (i - o)
        return r + n  # inside a replaced span: its marker starts here
