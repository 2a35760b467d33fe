"""PEM private-key blocks (``-----BEGIN … PRIVATE KEY-----`` … ``-----END …-----``), the first stage of
``redact``: found with ``str.find`` inside windows bounded by the next BEGIN and 64 KiB, so many
unterminated headers cannot make the scan quadratic (a run of identical blocks is decided once).  A block
whose END is missing (truncated output) ends with its base64 body."""

from __future__ import annotations

from typing import TYPE_CHECKING

import re2

from .periodic import PERIOD_MAX, copies
from .re2util import UNANCHORED, marker
from .rules import PEM, PEM_BODY, PEM_END

if TYPE_CHECKING:
    from .counter import CounterBase as Counter

_PEM_BEGIN = re2.compile(PEM.pattern)
_PEM_END = re2.compile(PEM_END)
_PEM_BODY = re2.compile(PEM_BODY)
_PEM_WINDOW = 64 * 1024


def _pem_end(text: str, be: int, limit: int) -> int:
    """End of the block whose BEGIN header ends at ``be`` (the next BEGIN or 64 KiB is ``limit``)."""
    j = text.find("-----END", be, limit)
    while j != -1:
        mm = _PEM_END.search(text[j: j + 80])
        if mm:
            return j + mm.end()
        j = text.find("-----END", j + 8, limit)
    window = text[be:limit]
    body = _PEM_BODY.search(window)
    bend = body.end() if body else 0
    if bend < len(window) and window[bend] not in "\r\n\\ \t\"',;}":
        # the last "word" continues into non-base64 text (a log line after a truncated key):
        # it was not a body line, give it back
        cut = max(window.rfind("\n", 0, bend), window.rfind("\\n", 0, bend))
        bend = cut if cut > 0 else bend
    return be + bend


def redact_pem(text: str, counter: Counter) -> str:
    if "PRIVATE KEY" not in text:
        return text
    n = len(text)
    if text.isascii():
        subject = text.encode("ascii")
        search = _PEM_BEGIN._regexp.Match

        def next_begin(frm: int) -> tuple[int, int]:
            return search(UNANCHORED, subject, frm, n)[0]
    else:
        spans = [m.span() for m in _PEM_BEGIN.finditer(text)]
        it = iter(spans)

        def next_begin(frm: int) -> tuple[int, int]:  # the next header starting at or after frm
            for sp in it:
                if sp[0] >= frm:
                    return sp
            return (-1, -1)
    bs, be = next_begin(0)
    if bs < 0:
        return text
    out: list[str] = []
    pos = 0
    mark = marker("private_key")
    while bs >= 0:
        nbs, nbe = next_begin(be)
        limit = min(nbs if nbs >= 0 else n, be + _PEM_WINDOW)
        end = _pem_end(text, be, limit)
        out.append(text[pos:bs])
        out.append(mark)
        counter.n += 1
        pos = end
        if (nbs >= 0 and nbs == limit and end <= nbs and nbs - bs <= PERIOD_MAX
                and text.startswith(text[bs:nbs], nbs)):
            # repeated blocks (hostile: the same unterminated header thousands of times): a copy is
            # decided like this one when everything its decision reads (its header, the text up to the
            # next header and 80 characters more) lies inside the repetition
            period = nbs - bs
            m = copies(text, text[bs:nbs], nbs)
            k = m - 1 - 256 // period
            if k > 0:
                out.append((text[end:nbs] + mark) * k)
                counter.n += k
                pos = end + k * period
                nbs, nbe = next_begin(pos)
        if nbs >= 0 and nbs < pos:
            nbs, nbe = next_begin(pos)
        bs, be = nbs, nbe
    out.append(text[pos:])
    return "".join(out)

