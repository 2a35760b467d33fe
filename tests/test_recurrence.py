"""Recurrence: distinct occurrences inside the lookback; a phase update and an event for one termination count once."""
from __future__ import annotations

from workload_diagnose.agent.procedures.kit.evidence import history_items
from workload_diagnose.agent.procedures.runai_failed.recurrence import count_recurrence, episodes, split_current
from workload_diagnose.tools.runai import History, HistoryRecord, PhaseUpdate, Event


def pu(phase, msg, at):
    return HistoryRecord(at=at, type="PhaseUpdate", phase_update=PhaseUpdate(phase=phase, phaseMessage=msg))


def evt(reason, msg, at):
    return HistoryRecord(at=at, type="Event", event=Event(createdAt=at, reason=reason, message=msg, type="Warning"))


def run(records, category="OOM_KILLED", phase_updated_at=None):
    items = history_items(History(records=records, pages=1, reached_cutoff=False), ["job-a"])
    eps = episodes(items)
    _current, past = split_current(eps, phase_updated_at)
    return count_recurrence(category, past, "7 days"), eps


def test_phase_update_and_event_of_one_termination_count_once():
    rec, eps = run([pu("Failed", "OOMKilled", "2026-11-20T10:00:00Z"),
                    evt("OOMKilled", "Container was OOM killed", "2026-11-20T09:59:58Z")],
                   phase_updated_at="2026-11-20T10:00:00Z")
    assert len(eps) == 1 and rec.count == 1 and not rec.recurring


def test_event_arriving_after_the_phase_update_is_absorbed():
    rec, eps = run([evt("OOMKilled", "OOM killed", "2026-11-20T10:00:40Z"),
                    pu("Failed", "OOMKilled", "2026-11-20T10:00:00Z")], phase_updated_at="2026-11-20T10:00:00Z")
    assert len(eps) == 1 and rec.count == 1


def test_three_terminations_are_recurring():
    recs = []
    for day in (14, 17, 20):
        recs += [pu("Failed", "OOMKilled", f"2026-11-{day}T10:00:00Z"),
                 evt("OOMKilled", "OOM killed", f"2026-11-{day}T09:59:59Z"),
                 pu("Running", "", f"2026-11-{day}T08:00:00Z")]
    rec, eps = run(recs, phase_updated_at="2026-11-20T10:00:00Z")
    assert len(eps) == 3 and rec.count == 3 and rec.recurring


def test_other_categories_are_not_counted():
    recs = [pu("Failed", "OOMKilled", "2026-11-20T10:00:00Z"),
            pu("Failed", "Container trainer terminated with exit code 1", "2026-11-18T10:00:00Z"),
            pu("Failed", "Container trainer terminated with exit code 1", "2026-11-16T10:00:00Z")]
    rec, _ = run(recs, phase_updated_at="2026-11-20T10:00:00Z")
    assert rec.count == 1
    rec, _ = run(recs, category="CRASH_APP_ERROR", phase_updated_at="2026-11-16T10:00:00Z")
    assert rec.count >= 2


def test_events_only_history_separates_distinct_failures():
    rec, eps = run([evt("OOMKilled", "OOM killed", "2026-11-18T10:00:00Z"),
                    evt("OOMKilled", "OOM killed", "2026-11-18T10:05:00Z"),  # same failure, repeated event
                    evt("OOMKilled", "OOM killed", "2026-11-20T10:00:00Z")])
    assert len(eps) == 2 and rec.count == 2


def test_duplicate_phase_updates_count_once():
    rec, eps = run([pu("Failed", "OOMKilled", "2026-11-20T10:00:00Z"),
                    pu("Failed", "OOMKilled", "2026-11-20T10:00:30Z")], phase_updated_at="2026-11-20T10:00:30Z")
    assert len(eps) == 1 and rec.count == 1


def started(at):
    return HistoryRecord(at=at, type="Event", event=Event(createdAt=at, reason="Started", message="Started container "
                                                          "trainer", type="Normal", source="kubelet"))


def backoff(at):
    return HistoryRecord(at=at, type="Event", event=Event(createdAt=at, reason="BackOff", message="Back-off restarting "
                                                          "failed container trainer", type="Warning", source="kubelet"))


def test_each_kill_of_a_restart_loop_is_one_occurrence():
    kill = "Container trainer was OOM killed"
    recs = [pu("Running", "", "2026-11-20T09:00:00Z"),
            evt("OOMKilled", kill, "2026-11-20T09:30:00Z"), backoff("2026-11-20T09:30:10Z"),
            started("2026-11-20T09:30:40Z"),
            evt("OOMKilled", kill, "2026-11-20T09:50:00Z"), backoff("2026-11-20T09:50:10Z"),
            started("2026-11-20T09:51:20Z"),
            evt("OOMKilled", kill, "2026-11-20T10:14:58Z"), pu("Failed", "OOMKilled", "2026-11-20T10:15:00Z")]
    items = history_items(History(records=recs, pages=1, reached_cutoff=False), ["job-a"])
    eps = episodes(items)
    current, past = split_current(eps, "2026-11-20T10:15:00Z")
    assert len(eps) == 1 and current is eps[0] and not past
    rec = count_recurrence("OOM_KILLED", past, "7 days", current=[current.marks])
    assert rec.count == 3 and rec.recurring
    # the same records of one kill without a restart between them (re-emitted events, the phase update) stay one
    recs = [pu("Running", "", "2026-11-20T09:00:00Z"), evt("OOMKilled", kill, "2026-11-20T10:10:00Z"),
            evt("OOMKilled", kill, "2026-11-20T10:12:00Z"), evt("OOMKilled", kill, "2026-11-20T10:14:58Z"),
            pu("Failed", "OOMKilled", "2026-11-20T10:15:00Z")]
    eps = episodes(history_items(History(records=recs, pages=1, reached_cutoff=False), ["job-a"]))
    current, past = split_current(eps, "2026-11-20T10:15:00Z")
    assert count_recurrence("OOM_KILLED", past, "7 days", current=[current.marks]).count == 1


def test_kills_in_a_past_episode_count_and_sources_of_one_failure_are_not_summed():
    from workload_diagnose.agent.model.signals import Kind
    from workload_diagnose.agent.procedures.runai_failed.recurrence import Mark, kills

    oom = frozenset({Kind.OOM})
    marks = [Mark(at="t1", kinds=[Kind.OOM]), Mark(at="t2", kinds=[Kind.CRASH_LOOP], restart=True),
             Mark(at="t3", kinds=[Kind.OOM]), Mark(at="t4", restart=True), Mark(at="t5", kinds=[Kind.OOM])]
    assert kills(marks, oom) == 3
    assert kills(marks[:1] + marks[2:3], oom) == 1  # no restart between: one kill
    assert kills([Mark(at="t0", restart=True)] + marks[:1], oom) == 1  # a start before the first kill adds none
    # history and the status's events hold the same kills: the larger, never the sum
    rec = count_recurrence("OOM_KILLED", [], "7 days", current=[marks, marks[:3]])
    assert rec.count == 3
    assert count_recurrence("OOM_KILLED", [], "7 days", current=[marks], current_in_window=False).count == 0


def test_the_kubelets_restart_count_is_one_more_source_of_the_same_kills():
    """restartCount N with lastState of the verdict's category is N kills (+1 for a final terminated state of it);
    against the history's and the status's own lists of the same kills since the pod started, the larger count,
    never their sum; containers add up; a past episode before the pod started still counts on its own."""
    from workload_diagnose.agent.model.signals import Kind, Signal
    from workload_diagnose.agent.procedures.runai_failed.recurrence import Episode, Mark, Restarts

    oom = [Kind.OOM]
    loop = Restarts(container="p/main", count=4, last=oom, since="2026-11-20T09:00:00Z")
    assert count_recurrence("OOM_KILLED", [], "7 days", kubelet=[loop]).count == 4  # history listed none of them
    three = [Mark(at="a", kinds=oom), Mark(at="b", restart=True), Mark(at="c", kinds=oom), Mark(at="d", restart=True),
             Mark(at="e", kinds=oom)]
    assert count_recurrence("OOM_KILLED", [], "7 days", current=[three], kubelet=[loop]).count == 4  # not 3 + 4
    assert count_recurrence("OOM_KILLED", [], "7 days", current=[three],
                            kubelet=[loop.model_copy(update={"count": 2})]).count == 3  # history knows more
    final = Restarts(container="p/main", count=2, last=oom, current=oom, since="2026-11-20T09:00:00Z")
    other = Restarts(container="q/main", count=1, last=oom, since="2026-11-20T09:30:00Z")
    assert count_recurrence("OOM_KILLED", [], "7 days", kubelet=[final, other]).count == 4
    # a restart loop of another kind is not this category's
    crash = Restarts(container="p/main", count=5, last=[Kind.APP_EXIT], since="2026-11-20T09:00:00Z")
    assert count_recurrence("OOM_KILLED", [], "7 days", kubelet=[crash]).count == 1
    # past episodes: one before the pod started counts on its own; one after it is among the kubelet's kills
    old = Episode(start="2026-11-19T08:00:00Z", end="2026-11-19T08:05:00Z", signals=[], marks=[])
    new = Episode(start="2026-11-20T09:10:00Z", end="2026-11-20T09:12:00Z", signals=[], marks=[])
    for ep in (old, new):
        ep.signals.append(Signal(
            kind=Kind.OOM, source="get_workload_history", text="OOMKilled", at=ep.end))
    assert count_recurrence("OOM_KILLED", [old, new], "7 days", kubelet=[loop]).count == 1 + 4
    assert count_recurrence("OOM_KILLED", [old, new], "7 days").count == 3  # without Tier 2: as before
    assert count_recurrence("OOM_KILLED", [], "7 days", kubelet=[loop], current_in_window=False).count == 0
    # a pod that started before the lookback window: its restarts cannot be placed inside it
    from datetime import datetime, timezone
    assert count_recurrence("OOM_KILLED", [], "7 days", kubelet=[loop],
                            window_start=datetime(2026, 11, 20, 10, tzinfo=timezone.utc)).count == 1
    assert count_recurrence("OOM_KILLED", [], "7 days", kubelet=[loop],
                            window_start=datetime(2026, 11, 13, 10, tzinfo=timezone.utc)).count == 4
