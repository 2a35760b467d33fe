"""The Run:ai domain models every source returns (REST, the official MCP server, any registered one).

Field names follow Run:ai's API (``shared/reference/runai-api.md``); ``extra="allow"`` keeps fields this project
does not model yet. Every string in them has already passed the guardrails when a source builds them.
"""
from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["OOM_METRICS", "Condition", "InvolvedObject", "Event", "Workload", "WorkloadStatus", "Pod",
           "PhaseUpdate", "HistoryRecord", "History", "MetricSample", "MetricSeries", "SubmittedSpec",
           "parse_items", "parse_lenient", "Skips", "skipped_note", "field_problem"]

# The metric types the OOM procedure reads (the default of ``get_workload_metrics``).
OOM_METRICS = ("CPU_MEMORY_USAGE_BYTES", "CPU_MEMORY_LIMIT_BYTES", "CPU_MEMORY_REQUEST_BYTES")


class _M(BaseModel):
    model_config = ConfigDict(extra="allow")


class Condition(_M):
    type: str | None = None
    status: str | None = None
    reason: str | None = None
    message: str | None = None
    lastTransitionTime: str | None = None


class InvolvedObject(_M):
    kind: str | None = None
    name: str | None = None
    namespace: str | None = None


class Event(_M):
    createdAt: str | None = None
    type: str | None = None
    reason: str | None = None
    message: str | None = None
    source: str | None = None
    involvedObject: InvolvedObject | None = None


class Workload(_M):
    id: str
    name: str | None = None  # None only when the server sent something that is not a string (stated)
    type: str | None = None
    clusterId: str | None = None
    projectName: str | None = None
    namespace: str | None = None
    phase: str | None = None
    phaseMessage: str | None = None
    phaseReason: str | None = None
    k8sPhase: str | None = None
    phaseUpdatedAt: str | None = None
    createdAt: str | None = None
    completedAt: str | None = None
    conditions: list[Condition] = Field(default_factory=list)
    podsRequestedResources: dict | None = None
    allocatedResources: dict | None = None


class WorkloadStatus(BaseModel):
    """The skill's ``get_workload_status``: the workload plus its recent events.

    ``events is None`` means the events fetch failed: not proof that no events occurred.
    """

    workload: Workload
    events: list[Event] | None = None
    events_error: str | None = None


class Pod(_M):
    name: str
    id: str | None = None
    nodeName: str | None = None
    k8sPhase: str | None = None
    createdAt: str | None = None
    completedAt: str | None = None
    containers: list[dict] = Field(default_factory=list)
    requestedResources: dict | None = None
    allocatedResources: dict | None = None


class PhaseUpdate(_M):
    phase: str | None = None
    phaseMessage: str | None = None


class HistoryRecord(BaseModel):
    at: str | None
    type: str | None
    event: Event | None = None
    phase_update: PhaseUpdate | None = None


class History(BaseModel):
    records: list[HistoryRecord]  # newest first, only those inside the lookback window
    pages: int
    reached_cutoff: bool


class MetricSample(BaseModel):
    timestamp: str | None
    value: float


class MetricSeries(BaseModel):
    type: str
    samples: list[MetricSample]
    unparsable: int = 0  # values that were not numbers (reported, never coerced to zero)


class SubmittedSpec(BaseModel):
    kind: str
    body: dict



# ----------------------------------------------------------------------------------- tolerant parsing
# One malformed item never drops the good ones: list items are validated one by one (a bad one is skipped and
# counted), and a single object keeps its good fields (a bad optional field is left out and named). The wording is
# one line per list or object, naming the field, never a pydantic dump.
M = TypeVar("M", bound=BaseModel)

_TYPE_WORDS = {
    "string_type": "is not a string", "int_type": "is not an integer", "int_parsing": "is not an integer",
    "float_type": "is not a number", "float_parsing": "is not a number", "bool_type": "is not a boolean",
    "bool_parsing": "is not a boolean", "list_type": "is not a list", "dict_type": "is not an object",
    "model_type": "is not an object", "model_attributes_type": "is not an object", "missing": "is missing",
    "recursion_loop": "is nested too deeply",
}


def field_problem(err: dict) -> str:
    """``field 'involvedObject.kind' is not a string`` for one pydantic error."""
    loc = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p))
                  for i, p in enumerate(err.get("loc") or ()))
    words = _TYPE_WORDS.get(err.get("type", ""), "has an unusable value")
    return f"field '{loc}' {words}" if loc else f"the item {words}"


def skipped_note(skipped: list[str], total: int, what: str) -> str | None:
    """``1 of 12 events skipped: field 'type' is not a string`` (None when nothing was skipped)."""
    if not skipped:
        return None
    reasons = list(dict.fromkeys(skipped))
    shown = "; ".join(reasons[:2]) + ("; …" if len(reasons) > 2 else "")
    return f"{len(skipped)} of {total} {what} skipped: {shown}"


def parse_items(model: type[M], raw: list[Any]) -> tuple[list[M], list[str]]:
    """Each item of ``raw`` as ``model``; an item that is not an object or does not validate is skipped, with the
    reason it was skipped (one per skipped item; :func:`skipped_note` words them)."""
    out: list[M] = []
    skipped: list[str] = []
    for item in raw:
        if not isinstance(item, dict):
            skipped.append("an item is not an object")
            continue
        try:
            out.append(model.model_validate(item))
        except ValidationError as e:
            skipped.append(field_problem(e.errors()[0]))
        except RecursionError:
            skipped.append("an item is nested too deeply")
    return out, skipped


class Skips:
    """Items of one list (across its pages) parsed one by one: the good ones kept, the bad ones counted."""

    def __init__(self, what: str):
        self.what, self.reasons, self.total = what, [], 0

    def parse(self, model: type[M], raw: list[Any]) -> list[M]:
        good, why = parse_items(model, raw)
        self.reasons += why
        self.total += len(raw)
        return good

    def skip(self, reason: str) -> None:
        self.reasons.append(reason)
        self.total += 1

    def keep(self, n: int = 1) -> None:
        self.total += n

    def note(self) -> list[str]:
        n = skipped_note(self.reasons, self.total, self.what)
        return [n] if n else []


def parse_lenient(model: type[M], raw: dict, what: str) -> tuple[M, list[str]]:
    """``raw`` as ``model``, keeping what is usable: a bad item of a list field is dropped (counted in one line per
    field), a bad optional field is left at its default (named). Raises ValidationError when a required field is
    unusable."""
    data = dict(raw)
    dropped: dict[str, list[str]] = {}
    totals: dict[str, int] = {}
    left_out: list[str] = []
    for _ in range(200):  # each round removes one bad value; a body has few fields
        try:
            obj = model.model_validate(data)
            break
        except ValidationError as e:
            err = e.errors()[0]
            loc = err.get("loc") or ()
            field = loc[0] if loc else None
            info = model.model_fields.get(field) if isinstance(field, str) else None
            if info is None or info.is_required() and not (len(loc) > 1 and isinstance(loc[1], int)):
                raise
            value = data.get(field)
            if len(loc) > 1 and isinstance(loc[1], int) and isinstance(value, list):
                totals.setdefault(field, len(value))
                dropped.setdefault(field, []).append(field_problem({**err, "loc": loc[2:]}) if len(loc) > 2
                                                     else "an item is not an object")
                data[field] = value[: loc[1]] + value[loc[1] + 1:]
            else:
                left_out.append(f"{what}: {field_problem(err)}; it was left out")
                data.pop(field, None)
    else:  # pragma: no cover - a model with more than 200 bad values
        raise ValueError(f"{what}: too many unusable fields")
    notes = left_out + [n for f, why in dropped.items()
                        if (n := skipped_note(why, totals[f], f"{what} {f}")) is not None]
    return obj, notes
