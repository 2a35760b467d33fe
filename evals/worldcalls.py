"""What the minimum-call checks of every procedure share: a world's timestamps and its history pages."""
from __future__ import annotations

import math
from datetime import datetime, timezone


def when(v: str | None) -> datetime:
    """A world's timestamp (unusable ones sort first)."""
    from workload_diagnose.agent.model.time import parse_time

    return parse_time(v) or datetime.min.replace(tzinfo=timezone.utc)


def history_pages(world: dict, wid: str, cutoff: datetime) -> int:
    """History pages (limit 50, newest first) until a page reaches the cutoff, or every page."""
    recs = sorted(((world.get("history") or {}).get(wid) or []),
                  key=lambda r: when((r.get("meta") or {}).get("creationTimestamp")), reverse=True)
    first_old = next((i for i, r in enumerate(recs) if when((r.get("meta") or {}).get("creationTimestamp")) < cutoff),
                     None)
    return first_old // 50 + 1 if first_old is not None else max(1, math.ceil(len(recs) / 50))
