"""Failure episodes from history, the current episode, and recurrence counting.

A *failure occurrence* is one termination. History holds both phase updates and events, and a phase update and
an event describing the same termination must count once. Episodes are built in ascending time:

* a terminal phase update (Failed / Crashed / Stopped / Error) closes the open episode; failure events (and
  duplicate terminal phase updates) up to ``GAP`` after it are absorbed into it while no new run has started (the
  event and the phase update may arrive in either order, and events are re-emitted); a non-terminal phase update
  (Running, Pending, ...) starts a new run, after which a failure is a new occurrence however soon it comes;
* a failure event more than ``GAP`` after the previous one (with no phase update in between) starts a new
  episode, so a history holding only events still separates distinct failures;
* every episode is classified by the same deterministic classifier.

The most recent episode is the current failure; its signals join the status/pods/Tier-2 signals.
"""
from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel

from workload_diagnose.agent.model.signals import Signal
from workload_diagnose.agent.model.time import parse_time
from workload_diagnose.agent.model import phases
from workload_diagnose.agent.procedures.kit.evidence import HistoryItem
from workload_diagnose.agent.taxonomy.classifier import classify

GAP = timedelta(minutes=30)


class Episode(BaseModel):
    start: str | None
    end: str | None
    phase_update: str | None = None  # the terminal phase that closed it, if any
    signals: list[Signal]

    def category(self) -> str:
        return classify(self.signals).category


def episodes(items: list[HistoryItem]) -> list[Episode]:
    out: list[Episode] = []
    open_sigs: list[Signal] = []
    open_start = open_last = None
    closed_at = None  # time of the last terminal phase update (its late records are absorbed, see above)

    def _t(x):
        return parse_time(x)

    for it in items:
        t = _t(it.at)
        if it.is_phase_update:
            if phases.norm(it.phase) in phases.FAILED:
                if closed_at is not None and t is not None and t - closed_at <= GAP and not open_sigs and out:
                    out[-1].signals.extend(it.signals)  # a duplicate phase update of the same termination
                    continue
                sigs = open_sigs + it.signals
                out.append(Episode(start=open_start or it.at, end=it.at, phase_update=it.phase, signals=sigs))
                open_sigs, open_start, open_last, closed_at = [], None, None, t
            elif (it.phase or "").strip():
                closed_at = None  # a new run started (Running, Pending, ...): later failures are new occurrences
            continue
        if not it.signals:
            continue
        if closed_at is not None and t is not None and t - closed_at <= GAP and not open_sigs:
            # the event describing the termination just recorded, even when re-emitted minutes later: without a
            # new run in between (no non-terminal phase update) it cannot be a new failure
            out[-1].signals.extend(it.signals)
            continue
        if open_sigs and t is not None and open_last is not None and t - open_last > GAP:
            out.append(Episode(start=open_start, end=_iso_or(open_last, open_start), signals=open_sigs))
            open_sigs, open_start = [], None
        if not open_sigs:
            open_start = it.at
        open_sigs.extend(it.signals)
        open_last = t or open_last
        closed_at = None
    if open_sigs:
        out.append(Episode(start=open_start, end=None, signals=open_sigs))
    return out


def _iso_or(t, fallback):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ") if t is not None else fallback


class Recurrence(BaseModel):
    count: int
    lookback: str
    recurring: bool
    current_in_window: bool = True  # False: the diagnosed failure is older than the lookback window


def count_recurrence(category: str, past: list[Episode], lookback: str, *,
                     current_in_window: bool = True) -> Recurrence:
    """Distinct occurrences of ``category`` in the window: the current failure (when it is inside the window) plus
    matching past episodes."""
    n = sum(1 for ep in past if ep.category() == category) + (1 if current_in_window else 0)
    return Recurrence(count=n, lookback=lookback, recurring=n >= 2, current_in_window=current_in_window)


def split_current(eps: list[Episode], phase_updated_at: str | None) -> tuple[Episode | None, list[Episode]]:
    """The last episode is the current failure when it is open or ends near the workload's phase update."""
    if not eps:
        return None, []
    last = eps[-1]
    pu = parse_time(phase_updated_at)
    end = parse_time(last.end)
    if last.end is None or pu is None or end is None or abs(end - pu) <= GAP or end > pu:
        return last, eps[:-1]
    return None, eps
