"""What every bench item shares: the result row, PASS/MISS/…, percentiles and the run context."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
LLM_AGENT_SECONDS = (27.0, 139.0)
LLM_AGENT_DOLLARS = (0.11, 0.25)
DELAY_MS = 100
MB = 1e6

PASS, MISS, SKIP, INFO, ERROR = "PASS", "MISS", "SKIP", "INFO", "ERROR"


def row(target: str, measured: str, status: str, note: str = "", **values: Any) -> dict:
    return {"target": target, "measured": measured, "status": status, "note": note, "values": values}


def judge(ok: bool) -> str:
    return PASS if ok else MISS


def percentile(xs: list[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100)."""
    s = sorted(xs)
    if not s:
        return float("nan")
    k = (len(s) - 1) * q / 100.0
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def ms(x: float) -> str:
    return f"{x * 1000:.1f} ms"


class Ctx:
    def __init__(self, quick: bool, echo: Callable[[str], None]):
        self.quick = quick
        self.echo = echo
