"""Secrets inside base64: the last stage of ``redact``.

A base64 run holding the encoding of a secret-ish word (rules.BASE64_FRAGMENTS, at any byte alignment) is
decoded; when the decoded text is printable and the redactor finds a secret in it (``password=…``,
``"token": "…"``, a known token format), the whole run is replaced by ``[REDACTED:base64_secret]``.  The
decision is delegated to the other stages, so base64 of ``{"token_type": "Bearer"}`` stays.

The fragments are the last alternatives of the main scan (engine.py): no extra pass over the text.  When
the scan finds one, the run around it is widened with character tests and decided once (the scan goes on
after the run), runs longer than 64 KiB are not decoded, and the decoded text is redacted without this
stage.  Linear.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable

from .re2util import marker
from .rules import BASE64

B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_")
B64_MARK = marker(BASE64.kind)
_RUN_MAX = 64 * 1024
_MIN_DECODED = 8


def _decode(run: str) -> str | None:
    """The printable text ``run`` is the base64 (or base64url) of, trying the four alignments (the run may
    be glued to word characters before it); None if there is none."""
    alt = b"-_" if ("-" in run or "_" in run) else None
    for drop in range(4):
        body = run[drop:]
        if len(body) % 4 == 1:
            continue
        try:
            raw = base64.b64decode(body + "=" * (-len(body) % 4), altchars=alt, validate=True)
            text = raw.decode("utf-8")
        except (binascii.Error, ValueError, UnicodeDecodeError):
            continue
        if len(text) >= _MIN_DECODED and text.replace("\n", " ").replace("\r", " ").replace("\t", " ").isprintable():
            return text
    return None


def secret_run(run: str, redact_plain: Callable[[str], tuple[str, int]]) -> bool:
    """Does the base64 ``run`` encode text in which the redactor finds a secret?"""
    if len(run) > _RUN_MAX:
        return False
    decoded = _decode(run)
    return decoded is not None and redact_plain(decoded)[1] > 0
