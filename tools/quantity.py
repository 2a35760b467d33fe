"""Kubernetes resource quantities ("32Gi", "2G", "500M", "34359738368") ↔ bytes, and human formatting."""
from __future__ import annotations

import re

_Q = re.compile(r"^\s*([+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*([KMGTPE]i?|k|m|B)?\s*$")
_MULT = {None: 1, "B": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
         "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60, "m": 1e-3}


# No memory quantity of a real workload comes near this (1 EiB): a larger one (1e300, 1e400 = inf) is invalid data.
MAX_BYTES = float(2**60)


def parse_bytes(value) -> float | None:
    """Parse a quantity into bytes; None when absent, unparsable, negative, not finite or implausibly large."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        n = float(value)
    else:
        m = _Q.match(str(value))
        if not m:
            return None
        n = float(m.group(1)) * _MULT[m.group(2)]
    return n if 0 <= n <= MAX_BYTES else None  # NaN fails both comparisons


def invalid_quantity(value) -> bool:
    """A value was given but is not a usable quantity (as opposed to absent)."""
    return value is not None and value != "" and parse_bytes(value) is None


def fmt_bytes(n: float | None) -> str:
    """Binary units, shortest faithful form: 34359738368 → '32 GiB', 1.5*2**30 → '1.5 GiB'."""
    if n is None:
        return "not available"
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            v = n / size
            s = f"{v:.2f}".rstrip("0").rstrip(".")
            return f"{s} {unit}"
    return f"{int(n)} B"
