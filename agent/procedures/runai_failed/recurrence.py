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

Inside one episode, each distinct kill or crash of a restart loop is one occurrence: three OOM kills between
container restarts within one run count 3, not 1. An event of the episode's category after a restart (a progress
event such as "Started container", a crash-loop back-off, a non-terminal phase update) is a new kill; the records of
one termination without a restart between them (the event, its re-emission, the phase update) stay one.

The kubelet counts them too (Tier 2): a container's ``restartCount`` is how many times it terminated and was
started again in that pod, and its ``lastState`` says how the last of them ended. When that last termination (or the
container's final terminated state) is of the verdict's category, the restarts are that many kills of it: a restart
loop repeats one failure, and the kubelet keeps only the last reason (``kubectl get pod``'s "OOMKilled  4" is 4 kills).
These are the same kills the history and the status's events may list, so the kubelet is one more source of the
kills since the pod started: against the others the larger count wins, never their sum; containers and pods add up.

The most recent episode is the current failure; its signals join the status/pods/Tier-2 signals.
"""
from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel, Field

from workload_diagnose.agent.model.signals import Kind, Signal
from workload_diagnose.agent.model.time import parse_time
from workload_diagnose.agent.model import phases
from workload_diagnose.agent.evidence.common import event_signals
from workload_diagnose.agent.procedures.kit.evidence import S_STATUS, HistoryItem
from workload_diagnose.agent.taxonomy.classifier import classify
from workload_diagnose.agent.taxonomy.registry import BY_NAME

GAP = timedelta(minutes=30)


# a record of one of these kinds shows a container (re)starting: the next kill is a new one
RESTART_KINDS = frozenset({Kind.POD_SCHEDULED, Kind.CRASH_LOOP})


class Mark(BaseModel):
    """One event of an episode, in time order, for counting its kills: the kinds it showed, and whether it shows a
    restart (a container started again or backing off to restart, or a new run of the workload)."""
    at: str | None
    kinds: list[Kind] = Field(default_factory=list)
    restart: bool = False


def kills(marks: list[Mark], kinds: frozenset[Kind]) -> int:
    """Distinct kills or crashes of ``kinds``: a record of one after a restart is a new one; records of one
    termination without a restart between them (an event, its re-emission) are one."""
    n, restarted = 0, False
    for m in marks:
        if kinds.intersection(m.kinds):
            if n == 0 or restarted:
                n += 1
            restarted = False
        elif m.restart and n:
            restarted = True
    return n


def event_marks(sigs_by_event: list[tuple[str | None, list[Signal]]]) -> list[Mark]:
    """Events (their time and signals) → marks, in the order given."""
    return [Mark(at=at, kinds=[s.kind for s in sigs], restart=any(s.kind in RESTART_KINDS for s in sigs))
            for at, sigs in sigs_by_event]


class Episode(BaseModel):
    start: str | None
    end: str | None
    phase_update: str | None = None  # the terminal phase that closed it, if any
    signals: list[Signal]
    marks: list[Mark] = Field(default_factory=list)  # its events (and new runs) in time order

    def category(self) -> str:
        return classify(self.signals).category

    def occurrences(self, category: str) -> int:
        """How many failures of ``category`` this episode holds: its distinct kills, at least one."""
        return max(1, kills(self.marks, BY_NAME[category].kinds))


def episodes(items: list[HistoryItem]) -> list[Episode]:
    out: list[Episode] = []
    open_sigs: list[Signal] = []
    open_marks: list[Mark] = []
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
                out.append(Episode(start=open_start or it.at, end=it.at, phase_update=it.phase, signals=sigs,
                                   marks=open_marks))
                open_sigs, open_marks, open_start, open_last, closed_at = [], [], None, None, t
            elif (it.phase or "").strip():
                closed_at = None  # a new run started (Running, Pending, ...): later failures are new occurrences
                if open_sigs:  # ... and inside an open episode, a later kill is a new one
                    open_marks.append(Mark(at=it.at, restart=True))
            continue
        if not it.signals:
            continue
        mark = event_marks([(it.at, it.signals)])[0]
        if closed_at is not None and t is not None and t - closed_at <= GAP and not open_sigs:
            # the event describing the termination just recorded, even when re-emitted minutes later: without a
            # new run in between (no non-terminal phase update) it cannot be a new failure
            out[-1].signals.extend(it.signals)
            out[-1].marks.append(mark)
            continue
        if open_sigs and t is not None and open_last is not None and t - open_last > GAP:
            out.append(Episode(start=open_start, end=_iso_or(open_last, open_start), signals=open_sigs,
                               marks=open_marks))
            open_sigs, open_marks, open_start = [], [], None
        if not open_sigs:
            open_start = it.at
        open_sigs.extend(it.signals)
        open_marks.append(mark)
        open_last = t or open_last
        closed_at = None
    if open_sigs:
        out.append(Episode(start=open_start, end=None, signals=open_sigs, marks=open_marks))
    return out


def _iso_or(t, fallback):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ") if t is not None else fallback


class Recurrence(BaseModel):
    count: int
    lookback: str
    recurring: bool
    current_in_window: bool = True  # False: the diagnosed failure is older than the lookback window


class Restarts(BaseModel):
    """A container's restart loop as the kubelet counts it (Tier 2): ``count`` restarts (restartCount), the kinds of
    its last termination (lastState) and of its current one (a final terminated state), since the pod started."""
    container: str
    count: int
    last: list[Kind] = Field(default_factory=list)
    current: list[Kind] = Field(default_factory=list)
    since: str | None = None  # the pod's start (ISO 8601)


def kubelet_kills(loops: list[Restarts], kinds: frozenset[Kind]) -> int:
    """The kills of ``kinds`` the kubelet counts: each restart of a container whose last termination was one, and a
    final terminated state that is one; containers add up (their kills are distinct)."""
    return sum((r.count if kinds.intersection(r.last) else 0) + (1 if kinds.intersection(r.current) else 0)
               for r in loops)


def count_recurrence(category: str, past: list[Episode], lookback: str, *, current_in_window: bool = True,
                     current: list[list[Mark]] = (), kubelet: list[Restarts] = (),
                     window_start=None) -> Recurrence:
    """Distinct occurrences of ``category`` in the window: the current failure's distinct kills (when it is inside
    the window; at least one) plus those of the matching past episodes. ``current``: the current failure's events as
    each source holds them (its history episode, the status's recent events): the same kills seen twice, so the
    larger count of one source, never their sum. ``kubelet``: the restart loops Tier 2 read; their kills since the
    earliest pod start are the same kills as the current failure's and the past episodes ending after that start,
    so the larger of the two counts stands for that stretch. A pod that started before ``window_start`` (the lookback's
    start) is left out: its restarts cannot be placed inside the window."""
    kinds = BY_NAME[category].kinds
    now = max([1] + [kills(m, kinds) for m in current]) if current_in_window else 0
    mine = [ep for ep in past if ep.category() == category]
    kubelet = [r for r in kubelet if window_start is None or ((t := parse_time(r.since)) is not None
                                                              and t >= window_start)]
    by_kubelet = kubelet_kills(kubelet, kinds) if current_in_window else 0
    starts = [t for t in (parse_time(r.since) for r in kubelet) if t is not None]
    since = min(starts) if starts and by_kubelet else None
    recent = [ep for ep in mine if since is not None and (end := parse_time(ep.end)) is not None and end >= since]
    older = [ep for ep in mine if ep not in recent]
    n = sum(ep.occurrences(category) for ep in older) + max(now + sum(ep.occurrences(category) for ep in recent),
                                                            by_kubelet)
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


def status_marks(events: list | None, names: list[str], since: str | None) -> list[Mark]:
    """The status's recent events as marks (time order), from ``since`` (the current episode's start) on; an event
    without a usable time cannot be placed against a restart and is left out."""
    start = parse_time(since)
    rows = []
    for e in events or []:
        t = parse_time(e.createdAt)
        if t is None or (start is not None and t < start):
            continue
        obj = e.involvedObject
        sigs = event_signals(e.reason, e.message, e.createdAt, obj.name if obj else None, names, S_STATUS, "status",
                             event_type=e.type, emitter=e.source, object_kind=obj.kind if obj else None)
        if sigs:
            rows.append((t, e.createdAt, sigs))
    rows.sort(key=lambda r: r[0])
    return event_marks([(at, sigs) for _, at, sigs in rows])
