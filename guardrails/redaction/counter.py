"""What one redaction call carries through its rescans: the markers inserted so far, its matchers, and the scan
itself (``sub``), so that the handlers and the PEM pass rescan a part without importing the engine that calls
them."""
from __future__ import annotations

from typing import Any, Callable


class CounterBase:
    __slots__ = ("n", "full", "known", "tail", "sub")

    def __init__(self, full: Any, known: Any, tail: Any, sub: Callable[..., str]) -> None:
        self.n = 0
        self.full, self.known, self.tail = full, known, tail
        self.sub = sub  # engine.sub(matcher, text, depth, counter): the scan a handler rescans a part with
