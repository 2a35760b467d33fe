"""Strings already proved to pass every filter unchanged, so the next body that repeats them costs nothing.

API bodies repeat most of their strings: keys (``createdAt``, ``phase``), enum values (``Running``, ``Warning``),
ids and names of the same workload, read again by the next diagnosis. A string is remembered only when every
stage was the identity on it: normalisation left it as it was, the text redactor inserted no marker, and the
injection scan found nothing. Those are pure functions of the string alone (the key-aware rules of
``redaction.structured`` still run on every value: they look at the key, not here), so skipping them for a
remembered string gives exactly what running them gives. Nothing that was redacted, altered or flagged is ever
kept, so the memo holds no secret. Bounded: short strings only, and it starts over when full.
"""
from __future__ import annotations

MAX_LEN = 256  # longer strings are rare in bodies and rarely repeat
MAX_ENTRIES = 50_000  # ~ a few MB at most


class Remembered(set):
    """A set of strings that keeps only short ones and starts over when full."""

    def remember(self, s: str) -> None:
        if len(s) <= MAX_LEN:
            if len(self) >= MAX_ENTRIES:
                self.clear()
            self.add(s)


REDACTION_CLEAN = Remembered()  # redact_with_count(s) == (s, 0)
FULLY_CLEAN = Remembered()  # and normalise(s) == s and no injection finding


def forget() -> None:
    """Start over (tests that measure the filters themselves)."""
    REDACTION_CLEAN.clear()
    FULLY_CLEAN.clear()
