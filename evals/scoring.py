"""What every way of scoring a scenario shares (replay in ``evals.suite``, Tier 1 over MCP in ``evals.mcp_eval``):
loading a scenario, warming the process, the result checks, the record's verdict and pass marks, quantiles."""
from __future__ import annotations

from pathlib import Path

from workload_diagnose.evals.scenarios import Scenario, load_scenario


def _load(ref: str) -> Scenario:
    """``ref`` is a scenario id under evals/scenarios, or ``<directory>::<id>`` for a scenario elsewhere."""
    if "::" in ref:
        path, sid = ref.split("::", 1)
        sc = load_scenario(Path(path))
        sc.id = sid
        return sc
    return load_scenario(ref)


_WARM = False


def _warm() -> None:
    """Imports and graph compilation once per process, so timings measure diagnoses, not start-up."""
    global _WARM
    if not _WARM:
        import workload_diagnose.agent.api  # noqa: F401
        import workload_diagnose.evals.cassettes  # noqa: F401
        from workload_diagnose.agent.procedures import graph, specs

        for name, spec in specs().items():
            if spec.eval_cases:
                graph(name)
        _WARM = True


def result_problems(invented: list, leaks: list, cited: int, total: int) -> list[str]:
    """The result checks every scoring shares (replay, MCP): invented values, leaks, uncited evidence."""
    problems = []
    if invented:
        problems.append(f"invented values: {invented}")
    if leaks:
        problems.append(f"secrets leaked: {leaks}")
    if cited != total:
        problems.append(f"{total - cited} evidence line(s) without a known source")
    return problems


def _finish(rec: dict) -> dict:
    ok = not rec["problems"]
    rec["pass"] = ok
    rec["xfail"] = bool(rec.get("known_defect")) and not ok
    rec["xpass"] = bool(rec.get("known_defect")) and ok
    return rec


def _verdict_dict(outcome, category, route, recurrence) -> dict:
    return {"outcome": outcome, "category": category, "route": route, "recurrence": recurrence}


def quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    v = sorted(values)
    k = (len(v) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)
