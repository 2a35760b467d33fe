"""Fault injection for the simulator: a world (or a test) lists faults; each matches requests by method, a path
regex and (optionally) a query regex, and fires a bounded number of times (``times``; -1 = always).

    {"path": "/history$", "status": 503, "times": 2}
    {"path": "/metrics$", "status": 429, "retry_after": "0", "times": 1}
    {"path": "/pods$", "kind": "malformed", "times": 1}        # a body that is not JSON
    {"path": "/events$", "kind": "timeout", "seconds": 2.0}    # hold the response past the client timeout
    {"path": "/pods$", "kind": "short_read"}                   # Content-Length promises more than is sent
    {"path": "/pods$", "kind": "wrong_shape"}                  # valid JSON, not the documented shape
    {"path": "/history$", "kind": "next_endless", "times": -1} # every page repeats page one, next grows forever
    {"path": "/history$", "kind": "next_repeats", "times": -1} # next names the same offset again and again
    {"path": "/history$", "query": "offset=50", "kind": "truncate"}  # that page's body is cut off mid-record
    {"path": "/metrics$", "kind": "garbage"}                   # metric values replaced by strings that are not numbers

``status``/``malformed``/``timeout``/``short_read``/``wrong_shape`` answer instead of the endpoint; the other kinds
let the endpoint compute its real answer and then damage it.
"""
from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field

PRE_KINDS = ("status", "malformed", "timeout", "short_read", "wrong_shape")
POST_KINDS = ("next_endless", "next_repeats", "truncate", "garbage")

# Metric values a broken metrics backend might return. None of them is a number a diagnosis may use: unicode digits
# and digit-group underscores are accepted by Python's float() but are not how the API writes a number.
GARBAGE_VALUES = ["NaN", "n/a", "", "Infinity", "-1", "9e999", "0x7fffffff", "12.5GB", "\uff11\uff12\uff13\uff14\uff15",
                  "1_000_000_000_000", "\u0661\u0662\u0663", "true", None, {"bytes": 5}, ["3"], "1e3e3"]


@dataclass
class Fault:
    path: str
    method: str = "GET"
    status: int = 503
    kind: str = "status"  # see PRE_KINDS / POST_KINDS
    times: int = 1  # -1 = always
    retry_after: str | None = None
    seconds: float = 0.0
    query: str | None = None  # regex over the raw query string
    fired: int = 0
    rx: re.Pattern = field(init=False, repr=False)
    qrx: re.Pattern | None = field(init=False, repr=False, default=None)

    def __post_init__(self):
        if self.kind not in PRE_KINDS + POST_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}")
        self.rx = re.compile(self.path)
        self.qrx = re.compile(self.query) if self.query else None

    @property
    def is_post(self) -> bool:
        return self.kind in POST_KINDS

    def apply(self, handler) -> None:
        if self.kind == "malformed":
            handler._send(200, None, raw=b'{"truncated": [')
        elif self.kind == "timeout":
            time.sleep(self.seconds)
            handler._send(504, {"code": 504, "message": "gateway timeout"})
        elif self.kind == "short_read":
            handler._send(200, None, raw=b'{"records": [', declared_length=4096)
        elif self.kind == "wrong_shape":
            handler._send(200, {"data": "unexpected", "items": 3})
        else:
            headers = {"Retry-After": self.retry_after} if self.retry_after is not None else None
            handler._send(self.status, {"code": self.status, "message": "injected fault"}, headers=headers)

    def transform(self, handler, status: int, body) -> None:
        """Damage a real 2xx answer (POST_KINDS)."""
        if self.kind == "truncate":
            data = json.dumps(body).encode()
            return handler._send(status, None, raw=data[: max(1, len(data) // 2)])
        if self.kind == "garbage" and isinstance(body, dict) and isinstance(body.get("measurements"), list):
            out = []
            for m in body["measurements"]:
                vals = m.get("values") or []
                stamps = [v.get("timestamp") for v in vals if isinstance(v, dict)] or ["2026-11-20T10:00:00Z"]
                out.append({**m, "values": [{"value": g, "timestamp": stamps[i % len(stamps)]}
                                            for i, g in enumerate(GARBAGE_VALUES)]})
            out.append({"type": "CPU_MEMORY_USAGE_BYTES", "labels": None, "values": 137})  # not even a list
            out.append({"type": 7, "values": [{"value": "1", "timestamp": None}]})
            return handler._send(status, {"measurements": out})
        return handler._send(status, body)  # a page fault on an endpoint without pages: nothing to damage


class FaultPlan:
    def __init__(self, specs: list[dict]):
        self.faults = [Fault(**{k: v for k, v in s.items() if k in Fault.__dataclass_fields__
                                and k not in ("fired", "rx", "qrx")}) for s in specs]
        self._lock = threading.Lock()

    def match(self, method: str, path: str, query: str = "") -> Fault | None:
        """The fault that answers this request: one that replaces the answer (a status, a timeout, a broken body)
        before one that damages a real answer (POST_KINDS): a server that fails a request sends no page to damage.
        Otherwise the first that matches, in the plan's order."""
        with self._lock:
            for f in sorted(self.faults, key=lambda f: f.kind in POST_KINDS):
                if f.method.upper() == method.upper() and f.rx.search(path) and \
                        (f.qrx is None or f.qrx.search(query or "")) and (f.times < 0 or f.fired < f.times):
                    f.fired += 1
                    return f
        return None

    @property
    def fired(self) -> int:
        return sum(f.fired for f in self.faults)
