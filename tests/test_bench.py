"""The benchmark script runs and writes valid JSON with every item (issue 6).

No assertion on timings: performance claims come from ``./dev bench``, not from tests. The request-count oracle's
arithmetic (history pages to the lookback cutoff, retries vs duplicates) is checked here because it is exact.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from workload_diagnose.evals.bench import ITEMS, percentile
from workload_diagnose.evals.bench_requests import classify_repeats, history_pages

REPO = Path(__file__).resolve().parents[1]
STATUSES = {"PASS", "MISS", "SKIP", "INFO"}  # ERROR would mean the bench itself broke


def _rec(ts: str) -> dict:
    return {"meta": {"creationTimestamp": ts, "type": "Event"}, "spec": {"event": {"createdAt": ts}}}


def test_quick_bench_writes_every_item(tmp_path):
    out = tmp_path / "bench.json"
    p = subprocess.run([sys.executable, "-m", "workload_diagnose.evals.bench", "--quick", "--out", str(out)], cwd=str(REPO),
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, (p.stdout[-3000:], p.stderr[-3000:])
    data = json.loads(out.read_text())
    assert data["quick"] is True
    assert list(data["items"]) == [key for key, _, _ in ITEMS]
    for key, item in data["items"].items():
        assert item["rows"], key
        for r in item["rows"]:
            assert r["status"] in STATUSES, (key, r)
            assert r["target"] and r["measured"], (key, r)
            if r["status"] in ("MISS", "SKIP"):
                assert r["note"], f"{key}: a {r['status']} must say why: {r}"
    s = data["summary"]
    assert s["PASS"] + s["MISS"] + s["SKIP"] + s["INFO"] == sum(len(i["rows"]) for i in data["items"].values())
    assert len(s["missed"]) == s["MISS"]
    assert "PASS" in p.stdout or "MISS" in p.stdout  # the table was printed


def test_history_pages_stop_at_the_lookback_cutoff():
    from datetime import datetime, timezone

    cutoff = datetime(2026, 11, 10, tzinfo=timezone.utc).timestamp()
    newer = [_rec(f"2026-11-{d:02d}T00:00:00Z") for d in (20, 19, 18)]
    assert history_pages([], cutoff) == (1, 0)
    assert history_pages(newer, cutoff) == (1, 3)
    # 60 records in the window and older ones behind them: the second page holds the first old record
    recs = [_rec(f"2026-11-15T00:{m // 60:02d}:{m % 60:02d}Z") for m in range(60)]
    recs += [_rec(f"2026-11-0{d}T00:00:00Z") for d in range(1, 10)] * 20
    assert history_pages(recs, cutoff) == (2, 60)
    # exactly 50 in the window, more behind: page 2 is needed to see that the rest is older
    assert history_pages(recs[:50] + recs[60:], cutoff) == (2, 50)
    # everything in the window: as many pages as there are records
    assert history_pages(recs[:60], cutoff) == (2, 60)


def test_retries_after_server_errors_are_not_duplicates():
    reqs = [("POST", "/api/v1/token", 200), ("GET", "/w/1/events", 500), ("GET", "/w/1/events", 500),
            ("GET", "/w/1", 200), ("GET", "/w/1", 200)]
    retries, dups = classify_repeats(reqs)
    assert retries == 1 and dups == ["GET /w/1"]


def test_percentile_interpolates():
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([5.0], 95) == 5.0
