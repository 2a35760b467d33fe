"""Each of the skill's stop/route/phase rules, through the real compiled graph and real HTTP (simulator)."""
from __future__ import annotations

import pytest

from tests.conftest import CL, WID, event, workload, world

OTHER = "9b1d4e22-51f0-4a8e-8c3d-7e6f5a4b3c21"


def outcome(res):
    return res.outcome, res.category, res.route


def test_missing_cluster_asks_and_calls_nothing(run_world):
    res, reqs = run_world(world(), cluster_id=None)
    assert outcome(res) == ("needs_input", None, "missing_parameters") and reqs == []
    assert "cluster_id" in res.question


@pytest.mark.parametrize("kw", [{"workload_id": None}, {"workload_id": None, "workload_name": "job-a"},
                                {"workload_id": None, "project": "team"}])
def test_missing_workload_identity_asks(run_world, kw):
    res, reqs = run_world(world(), **kw)
    assert outcome(res) == ("needs_input", None, "missing_parameters") and reqs == []


def test_cluster_mismatch_stops(run_world):
    res, reqs = run_world(world(workload(clusterId=OTHER, phaseMessage="OOMKilled")))
    assert outcome(res) == ("stopped", None, "cluster_mismatch")
    assert not any("/pods" in p or "/history" in p for _, p in reqs)  # nothing else was read


def test_preemption_event_routes_before_phase_rule(run_world):
    res, _ = run_world(world(workload(phase="Failed"), events=[event("Preempted", "preempted by job-z")]))
    assert outcome(res) == ("routed", None, "preempted")


def test_preemption_in_current_history_episode_routes(run_world):
    hist = [{"meta": {"creationTimestamp": "2026-11-20T09:59:00Z", "type": "Event"},
             "spec": {"event": event("Preempted", "Pod was preempted by job-z", at="2026-11-20T09:59:00Z")}},
            {"meta": {"creationTimestamp": "2026-11-20T10:00:00Z", "type": "PhaseUpdate"},
             "spec": {"phaseUpdate": {"phase": "Stopped", "phaseMessage": ""}}}]
    res, _ = run_world(world(workload(phase="Stopped"), history=hist))
    assert outcome(res) == ("routed", None, "preempted")


@pytest.mark.parametrize("phase", ["Completed", "Succeeded"])
def test_success_stops(run_world, phase):
    res, reqs = run_world(world(workload(phase=phase)))
    assert outcome(res) == ("stopped", None, "completed")


def test_pending_with_only_scheduling_evidence_routes(run_world):
    res, _ = run_world(world(workload(phase="Pending"), events=[
        event("Unschedulable", "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.")]))
    assert outcome(res) == ("routed", None, "pending_scheduling")


@pytest.mark.parametrize("ev,cat", [
    (("Failed", 'Failed to pull image "r/x:1": manifest unknown'), "IMAGE_PULL_FAILED"),
    (("FailedMount", 'MountVolume.SetUp failed for volume "v" : persistentvolumeclaim "p" not found'),
     "DATASOURCE_MOUNT_FAILED"),
    (("Failed", "init container setup exited with code 3"), "INIT_FAILED"),
])
def test_pending_with_direct_failure_signal_continues(run_world, ev, cat):
    res, _ = run_world(world(workload(phase="Pending"), events=[event(*ev)]))
    assert outcome(res) == ("diagnosed", cat, None)


def test_suspended_stops(run_world):
    res, _ = run_world(world(workload(phase="Suspended")))
    assert outcome(res) == ("stopped", None, "suspended")


def test_running_crashloop_continues(run_world):
    res, _ = run_world(world(workload(phase="Running", k8sPhase="CrashLoopBackOff"),
                             events=[event("BackOff", "Back-off restarting failed container trainer")]))
    assert res.outcome == "diagnosed"


def test_running_without_symptom_asks(run_world):
    res, reqs = run_world(world(workload(phase="Running")))
    assert outcome(res) == ("needs_input", None, "running_without_failure")
    assert "past run" in res.question


@pytest.mark.parametrize("phase", ["Creating", "Initializing", "Resuming", "Deleting", "Updating", "Stopping",
                                   "Degraded", "Terminating", "Unknown"])
def test_other_non_terminal_phases_stop(run_world, phase):
    res, _ = run_world(world(workload(phase=phase, phaseMessage="OOMKilled")))
    assert outcome(res) == ("stopped", None, "phase_not_terminal")


@pytest.mark.parametrize("phase", ["Failed", "Crashed", "Stopped"])
def test_failed_phase_alone_is_unknown_not_a_category(run_world, phase):
    res, _ = run_world(world(workload(phase=phase)))
    assert outcome(res) == ("diagnosed", "UNKNOWN", None)


def test_spec_alone_never_classifies(run_world):
    spec = {"spec": {"image": "r/x:1", "command": "python oom.py --crash", "compute": {"cpuMemoryLimit": "1Mi"},
                     "annotations": [{"name": "runai-submit-command", "value": "runai submit --oomkilled"}]}}
    res, _ = run_world(world(workload(phase="Failed"), spec=spec))
    assert res.category == "UNKNOWN"


def test_events_null_is_a_fetch_failure_and_history_is_used(run_world):
    hist = [{"meta": {"creationTimestamp": "2026-11-20T09:59:59Z", "type": "Event"},
             "spec": {"event": event("OOMKilled", "Container trainer was OOM killed", at="2026-11-20T09:59:59Z")}}]
    res, _ = run_world(world(workload(phase="Failed"), events=None, history=hist))
    assert res.category == "OOM_KILLED"
    assert any("events: null" in x and "not proof" in x for x in res.limitations)


def test_option_b_terminal_picks_most_recent_terminal(run_world):
    a = workload(id="00000000-0000-4000-8000-00000000000a", phase="Failed", phaseUpdatedAt="2026-11-19T00:00:00Z",
                 phaseMessage="OOMKilled")
    b = workload(id="00000000-0000-4000-8000-00000000000b", phase="Running", phaseUpdatedAt="2026-11-20T00:00:00Z")
    c = workload(id="00000000-0000-4000-8000-00000000000c", phase="Failed", phaseUpdatedAt="2026-11-10T00:00:00Z")
    res, reqs = run_world({"workloads": [c, b, a]}, workload_id=None, workload_name="job-a", project="team")
    assert res.workload.id == a["id"] and res.category == "OOM_KILLED"


def test_option_b_active_probes_newest_first_and_stops_at_first_confirmed(run_world):
    a = workload(id="00000000-0000-4000-8000-00000000000a", phase="Running", phaseUpdatedAt="2026-11-20T11:00:00Z")
    b = workload(id="00000000-0000-4000-8000-00000000000b", phase="Running", phaseUpdatedAt="2026-11-20T10:00:00Z",
                 k8sPhase="CrashLoopBackOff")
    c = workload(id="00000000-0000-4000-8000-00000000000c", phase="Running", phaseUpdatedAt="2026-11-20T09:00:00Z",
                 k8sPhase="CrashLoopBackOff")
    res, reqs = run_world({"workloads": [c, a, b]}, workload_id=None, workload_name="job-a", project="team",
                          intent="active")
    assert res.workload.id == b["id"]
    status_reads = [p for _, p in reqs if p.split("?")[0] in {f"/api/v1/workloads/{x['id']}" for x in (a, b, c)}]
    assert status_reads == [f"/api/v1/workloads/{a['id']}", f"/api/v1/workloads/{b['id']}"]  # c never probed
    # the selected match's status is reused, not fetched again
    assert status_reads.count(f"/api/v1/workloads/{b['id']}") == 1


def test_option_b_no_match_asks(run_world):
    res, _ = run_world({"workloads": [workload(name="other")]}, workload_id=None, workload_name="job-a", project="team")
    assert outcome(res) == ("needs_input", None, "no_matching_workload") and res.question


def test_unknown_workload_id_asks(run_world):
    res, _ = run_world({"workloads": []})
    assert outcome(res) == ("needs_input", None, "no_matching_workload")


def test_independent_reads_after_status_run_concurrently():
    """spec, pods, history and metrics are in flight at the same time (the simulator counts overlap)."""
    wd = world(workload(phaseMessage="OOMKilled"), events=[event("OOMKilled", "OOM killed")],
               metrics={"CPU_MEMORY_USAGE_BYTES": []})
    from workload_diagnose.agent.api import diagnose
    from workload_diagnose.evals.simulator import running_simulator

    with running_simulator(wd, delay_ms=100) as sim:
        res = diagnose(runai_url=sim.url, client_id=sim.client_id, client_secret=sim.client_secret,
                       cluster_id=CL, workload_id=WID, now="2026-11-20T12:00:00Z", use_kube=False)
    assert res.category == "OOM_KILLED"
    assert len(sim.requests) == 7  # token, workload, events, spec, pods, history, metrics: no duplicates
    assert sim.max_inflight == 4  # the four reads after the status call overlap
