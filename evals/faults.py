"""Fault injection for the simulator: a world (or a test) lists faults; each matches requests by method and a
path regex and fires a bounded number of times.

    {"path": "/history$", "status": 503, "times": 2}
    {"path": "/metrics$", "status": 429, "retry_after": "0", "times": 1}
    {"path": "/pods$", "kind": "malformed", "times": 1}        # a body that is not JSON
    {"path": "/events$", "kind": "timeout", "seconds": 2.0}    # hold the response past the client timeout
"""
from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field


@dataclass
class Fault:
    path: str
    method: str = "GET"
    status: int = 503
    kind: str = "status"  # status | malformed | timeout
    times: int = 1  # -1 = always
    retry_after: str | None = None
    seconds: float = 0.0
    fired: int = 0
    rx: re.Pattern = field(init=False, repr=False)

    def __post_init__(self):
        self.rx = re.compile(self.path)

    def apply(self, handler) -> None:
        if self.kind == "malformed":
            handler._send(200, None, raw=b'{"truncated": [')
        elif self.kind == "timeout":
            time.sleep(self.seconds)
            handler._send(504, {"code": 504, "message": "gateway timeout"})
        else:
            headers = {"Retry-After": self.retry_after} if self.retry_after is not None else None
            handler._send(self.status, {"code": self.status, "message": "injected fault"}, headers=headers)


class FaultPlan:
    def __init__(self, specs: list[dict]):
        self.faults = [Fault(**{k: v for k, v in s.items() if k in Fault.__dataclass_fields__ and k != "fired"})
                       for s in specs]
        self._lock = threading.Lock()

    def match(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for f in self.faults:
                if f.method.upper() == method.upper() and f.rx.search(path) and (f.times < 0 or f.fired < f.times):
                    f.fired += 1
                    return f
        return None
