"""Run a scenario suite: replay (default) or re-record cassettes from the simulator, and score the verdicts."""
from __future__ import annotations

import time

from evals.runner import record, replay
from evals.scenarios import all_scenarios


def run(suites: list[str] | None = None, *, do_record: bool = False, echo=print) -> int:
    scs = [s for s in all_scenarios(suites or None) if not s.tier2]
    if not scs:
        echo("no scenarios matched")
        return 2
    bad = 0
    times = []
    for sc in scs:
        t = time.perf_counter()
        res = record(sc) if do_record else replay(sc)
        times.append(time.perf_counter() - t)
        got = (res.outcome, res.category, res.route)
        exp = (sc.expected.outcome, sc.expected.category, sc.expected.route)
        ok = got == exp
        bad += not ok
        echo(f"{'ok  ' if ok else 'FAIL'} {sc.id:45s} {res.outcome:12s} {res.category or res.route}"
             + ("" if ok else f"   expected {exp}"))
    times.sort()
    echo(f"{len(scs) - bad} passed, {bad} failed; median {times[len(times) // 2] * 1000:.1f} ms per diagnosis")
    return 1 if bad else 0
