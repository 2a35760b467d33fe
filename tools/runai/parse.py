"""Run:ai bodies to typed results, shared by every source (REST, MCP, any other): what a body means does not
depend on how it was fetched. Nothing here reads the network.

* :func:`load_json` — bytes to JSON, every way they are not usable JSON one MALFORMED line (depth capped).
* :func:`spec_kind_path` — a workload ``type`` to its submitted-spec kind (``trainings``, ``workspaces``, ...).
* :func:`history_record` / :func:`history_page` — history records, the unusable ones counted, the lookback cut.
* :func:`metric_series` — metrics measurements, a value counted only when it was a plain number as served.
"""
from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from workload_diagnose.tools.base import ErrorKind, ToolFailure
from workload_diagnose.tools.runai.models import Event, HistoryRecord, MetricSample, MetricSeries, PhaseUpdate, Skips, field_problem
from workload_diagnose.tools.timeutil import parse_time

__all__ = ["SPEC_PATH_BY_KIND", "spec_kind_path", "MAX_JSON_DEPTH", "load_json", "json_kind", "metric_series",
           "history_record", "history_page"]

SPEC_PATH_BY_KIND = {"training": "trainings", "workspace": "workspaces", "inference": "inferences",
                     "distributed": "distributed"}


def spec_kind_path(workload_type: str | None) -> str | None:
    """Map a workload ``type`` onto the per-kind spec endpoint; None when the kind has no spec endpoint."""
    t = (workload_type or "").strip().lower()
    for key, path in SPEC_PATH_BY_KIND.items():
        if key in t:
            return path
    if t in {"interactive", "interactiveworkload"}:
        return "workspaces"
    return None


MAX_JSON_DEPTH = 100  # deeper nesting is not a Run:ai body: refused before anything recurses over it


def _json_depth_ok(body: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """Iterative (never recursive) check that ``body`` nests at most ``limit`` levels."""
    stack = [(body, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (dict, list)):
            if d > limit:
                return False
            stack.extend((c, d + 1) for c in (v.values() if isinstance(v, dict) else v))
    return True



def load_json(content: bytes | str, what: str, status_code: int | None = None, content_type: str = "") -> Any:
    """The JSON of a body; every way it is not usable JSON is one MALFORMED line naming what came instead."""
    ctype = (content_type or "").split(";")[0].strip().lower()
    try:
        body = json.loads(content)
    except UnicodeDecodeError:
        raise ToolFailure(ErrorKind.MALFORMED, f"{what} returned a body that is not valid UTF-8 JSON",
                          status_code) from None
    except RecursionError:
        raise ToolFailure(ErrorKind.MALFORMED, f"{what} returned JSON nested too deeply to read",
                          status_code) from None
    except ValueError:
        got = f" ({ctype})" if ctype and ctype != "application/json" else ""
        raise ToolFailure(ErrorKind.MALFORMED, f"{what} returned a body that is not valid JSON{got}",
                          status_code) from None
    if not _json_depth_ok(body):
        raise ToolFailure(ErrorKind.MALFORMED, f"{what} returned JSON nested deeper than {MAX_JSON_DEPTH} levels",
                          status_code)
    return body


def json_kind(v: Any) -> str:
    """What a JSON value is, in words (for a MALFORMED line: "a JSON array where a workload object was expected")."""
    return {str: "a JSON string", bool: "a JSON boolean", int: "a JSON number", float: "a JSON number",
            list: "a JSON array", type(None): "JSON null"}.get(type(v), "a JSON value")


def metric_series(measurements: list, raw: Any, skips: Skips | None = None) -> list[MetricSeries]:
    """The series of a metrics body's (sanitised) ``measurements``; ``raw`` is the body as served, before
    normalisation: a value counts only if it was a plain number as served (shared by every source). A series that
    is not usable is counted in ``skips`` (when given) and left out; the others are kept."""
    skips = skips or Skips("metric series")
    raw_ms = raw.get("measurements") if isinstance(raw, dict) else None
    out: list[MetricSeries] = []
    for idx, m in enumerate(measurements):
        if not isinstance(m, dict) or not isinstance(m.get("type"), str):
            skips.skip("field 'type' is not a string" if isinstance(m, dict) else "an item is not an object")
            continue
        skips.keep()
        raw_m = raw_ms[idx] if isinstance(raw_ms, list) and idx < len(raw_ms) else None
        served_vals = raw_m.get("values") if isinstance(raw_m, dict) else None
        samples_: list[MetricSample] = []
        bad = 0
        values_ = m.get("values")
        if values_ is not None and not isinstance(values_, list):
            values_, bad = [], 1  # not a list of samples: one unusable value, never iterated
        for j, v in enumerate(values_ or []):
            val = _parse_metric_value(v.get("value") if isinstance(v, dict) else None)
            rv = served_vals[j] if isinstance(served_vals, list) and j < len(served_vals) else None
            if val is not None and (not isinstance(rv, dict) or _parse_metric_value(rv.get("value")) != val):
                val = None  # the value as served was not a plain number (it only became one when normalised)
            if val is None:
                bad += 1
                continue
            ts = v.get("timestamp")
            samples_.append(MetricSample(timestamp=ts if isinstance(ts, str) else None, value=val))
        out.append(MetricSeries(type=m["type"], samples=samples_, unparsable=bad))
    return out


_DECIMAL = re.compile(r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$", re.ASCII)


def _parse_metric_value(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        f = float(v)
    elif isinstance(v, str):
        # Only a plain ASCII decimal: float() would also accept "1_000", full-width or Arabic-Indic digits.
        if not _DECIMAL.match(v.strip()):
            return None
        f = float(v.strip())
    else:
        return None
    if f != f or f in (float("inf"), float("-inf")) or f < 0:
        return None
    return f


def history_record(raw: Any) -> tuple[HistoryRecord | None, str]:
    """One history record, or None with the reason it cannot be used (shared by every source)."""
    if not isinstance(raw, dict):
        return None, "an item is not an object"
    meta = raw.get("meta") if isinstance(raw.get("meta"), dict) else {}
    spec = raw.get("spec") if isinstance(raw.get("spec"), dict) else {}
    ev = spec.get("event")
    pu = spec.get("phaseUpdate")
    try:
        event = Event.model_validate(ev) if isinstance(ev, dict) else None
        phase = PhaseUpdate.model_validate(pu) if isinstance(pu, dict) else None
    except ValidationError as e:
        part = "spec.event" if isinstance(ev, dict) and _fails(Event, ev) else "spec.phaseUpdate"
        return None, field_problem({**e.errors()[0], "loc": (part, *e.errors()[0]["loc"])})
    at = meta.get("creationTimestamp") or (event.createdAt if event else None)
    typ = meta.get("type")
    return HistoryRecord(at=at if isinstance(at, str) else None, type=typ if isinstance(typ, str) else None,
                         event=event, phase_update=phase), ""


def history_page(raws: list, cutoff: datetime, skips: Skips) -> tuple[list[HistoryRecord], bool]:
    """One page of history records (shared by every source): the usable ones newer than ``cutoff``, the bad ones
    counted in ``skips``, and whether the page reached the cutoff."""
    out: list[HistoryRecord] = []
    reached = False
    for raw in raws:
        rec, why = history_record(raw)
        if rec is None:
            skips.skip(why)
            continue
        skips.keep()
        at = parse_time(rec.at)
        if at is not None and at < cutoff:
            reached = True
            continue
        out.append(rec)
    return out, reached


def _fails(model, value: dict) -> bool:
    try:
        model.model_validate(value)
        return False
    except ValidationError:
        return True

