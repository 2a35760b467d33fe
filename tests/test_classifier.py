"""The deterministic classifier: precedence, 137 handling, name scrubbing, never from phase/spec alone."""
from __future__ import annotations

import itertools

import pytest

from workload_diagnose.agent.taxonomy import CATEGORIES, NAMES
from workload_diagnose.agent.taxonomy import classify
from workload_diagnose.agent.evidence.rules import kinds_from_reason_message
from workload_diagnose.agent.taxonomy.categories.image_pull_failed import image_pull_class
from workload_diagnose.agent.model.signals import Kind, Signal


def sig(kind, **kw):
    return Signal(kind=kind, source="test", text=kind.value, **kw)


ORDER = [(Kind.OOM, "OOM_KILLED"), (Kind.IMAGE_PULL, "IMAGE_PULL_FAILED"), (Kind.INIT_FAILED, "INIT_FAILED"),
         (Kind.MOUNT_FAILED, "DATASOURCE_MOUNT_FAILED"), (Kind.APP_EXIT, "CRASH_APP_ERROR"),
         (Kind.NODE_FAILURE, "NODE_FAILURE"), (Kind.POLICY_STOP, "SCHEDULING_POLICY_TERMINATED")]


def test_eight_categories_in_skill_order():
    assert NAMES == ["OOM_KILLED", "IMAGE_PULL_FAILED", "INIT_FAILED", "DATASOURCE_MOUNT_FAILED", "CRASH_APP_ERROR",
                     "NODE_FAILURE", "SCHEDULING_POLICY_TERMINATED", "UNKNOWN"]
    assert CATEGORIES[-1].kinds == frozenset()


@pytest.mark.parametrize("i,j", [(i, j) for i, j in itertools.combinations(range(len(ORDER)), 2)])
def test_precedence_every_pair(i, j):
    (hi, hi_cat), (lo, _) = ORDER[i], ORDER[j]
    assert classify([sig(lo), sig(hi)]).category == hi_cat
    assert classify([sig(hi), sig(lo)]).category == hi_cat


@pytest.mark.parametrize("kind,cat", ORDER)
def test_each_signal_alone(kind, cat):
    assert classify([sig(kind)]).category == cat


def test_no_signal_is_unknown():
    assert classify([]).category == "UNKNOWN"
    for k in (Kind.CRASH_LOOP, Kind.POD_ERROR, Kind.SCHEDULING_WAIT, Kind.SIGTERM):
        assert classify([sig(k)]).category == "UNKNOWN"


def test_exit_137_without_oom_stays_unresolved():
    v = classify([sig(Kind.EXIT_137, exit_code=137)])
    assert v.category == "UNKNOWN" and v.unresolved_137
    assert classify([sig(Kind.EXIT_137), sig(Kind.NODE_FAILURE)]).category == "NODE_FAILURE"
    assert classify([sig(Kind.EXIT_137), sig(Kind.POLICY_STOP)]).category == "SCHEDULING_POLICY_TERMINATED"
    assert classify([sig(Kind.EXIT_137), sig(Kind.OOM)]).category == "OOM_KILLED"


def test_node_failure_not_with_preemption():
    assert classify([sig(Kind.NODE_FAILURE), sig(Kind.PREEMPTED)]).category == "UNKNOWN"


@pytest.mark.parametrize("reason,message,kind,detail", [
    ("OOMKilled", "Container trainer was OOM killed", Kind.OOM, None),
    ("OOMKilling", "Memory cgroup out of memory: Killed process 4242 (python)", Kind.OOM, None),
    ("Failed", 'Failed to pull image "r.io/a:b": manifest unknown', Kind.IMAGE_PULL, "missing_manifest"),
    ("Failed", 'Failed to pull image "r.io/a:b": dial tcp: lookup r.io: no such host', Kind.IMAGE_PULL, "network"),
    ("Failed", 'Failed to pull image "r.io/a:b": 401 Unauthorized: authentication required', Kind.IMAGE_PULL,
     "authorization"),
    ("Failed", 'Failed to pull image "docker.io/a:b": toomanyrequests: You have reached your pull rate limit',
     Kind.IMAGE_PULL, "rate_limit"),
    ("FailedMount", 'MountVolume.SetUp failed for volume "d" : secret "s3-creds" not found', Kind.MOUNT_FAILED, None),
    ("NodeNotReady", "Node gpu-1 status is now: NodeNotReady", Kind.NODE_FAILURE, None),
    ("Evicted", "The node was low on resource: memory.", Kind.NODE_FAILURE, "evicted; resource=memory; scope=node"),
    ("Preempted", "Pod was preempted by workload x", Kind.PREEMPTED, None),
    ("BackOff", "Back-off restarting failed container trainer", Kind.CRASH_LOOP, None),
    ("Stopped", "Workload stopped: exceeded maximum duration of 24h", Kind.POLICY_STOP, "maximum duration"),
])
def test_reason_message_rules(reason, message, kind, detail):
    got = kinds_from_reason_message(reason, message, names=["job-a"])
    assert (kind, detail) in [(k, d) for k, d, _ in got]


def test_user_chosen_names_and_quoted_text_cannot_steer():
    # a workload / image / pod name full of trigger words produces nothing once scrubbed
    evil = "oomkilled-preempted-by-idle-policy-notready"
    got = kinds_from_reason_message("Started", f"Started container in pod {evil}-0-0", names=[evil])
    assert [k for k, _, _ in got] == [Kind.POD_SCHEDULED]  # progress only, never a failure
    got = kinds_from_reason_message("Pulling", 'Pulling image "r.io/oomkilled:toomanyrequests-evicted"', names=[])
    assert [k for k, _, _ in got] == [Kind.POD_SCHEDULED]
    # the registry error class comes from the error text, not from the quoted image reference
    cls = image_pull_class('Failed to pull image "r.io/toomanyrequests:unauthorized": manifest unknown'
                           .replace('"r.io/toomanyrequests:unauthorized"', " "))
    assert cls == "missing_manifest"


def test_exit_codes_from_system_messages():
    got = {(k, c) for k, _, c in kinds_from_reason_message(None, "Container x terminated with exit code 1", [])}
    assert (Kind.APP_EXIT, 1) in got
    got = {(k, c) for k, _, c in kinds_from_reason_message(None, "terminated with exit code 137", [])}
    assert (Kind.EXIT_137, 137) in got
    got = {(k, c) for k, _, c in kinds_from_reason_message(None, "terminated with exit code 143", [])}
    assert (Kind.SIGTERM, 143) in got
    got = {(k, c) for k, _, c in kinds_from_reason_message(None, "terminated with exit code 0", [])}
    assert got == set()


def test_phase_name_alone_is_never_a_signal():
    for phase in ("Failed", "Crashed", "Stopped", "Error"):
        assert kinds_from_reason_message(None, phase, []) == []


def _kinds(reason, message):
    return {k for k, _, _ in kinds_from_reason_message(reason, message, [])}


def test_oom_only_from_the_killer_not_from_prose_or_an_application_exception():
    # system wordings of a kernel OOM kill
    for reason, msg in ((None, "OOMKilled"), ("OOMKilled", "anything"), (None, "Container trainer was OOM killed"),
                        (None, "terminated with exit code 137 (OOMKilled)"),
                        ("OOMKilling", "Memory cgroup out of memory: Killed process 4 (python)"),
                        (None, "Memory cgroup out of memory: Killed process 4 (python)")):
        assert Kind.OOM in _kinds(reason, msg), (reason, msg)
    # prose that mentions it, and application out-of-memory exceptions
    for msg in ("worker was OOMKilled earlier, retrying shard", "the OOMKilled pods were cleaned up",
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB; exit code 1",
                "java.lang.OutOfMemoryError: Java heap space; exit code 1"):
        assert Kind.OOM not in _kinds("PodFailed", msg), msg
    got = kinds_from_reason_message(None, "torch.OutOfMemoryError: CUDA out of memory; exit code 1", [])
    assert (Kind.APP_EXIT, "gpu_oom", 1) in got
    got = kinds_from_reason_message(None, "java.lang.OutOfMemoryError: Java heap space; exit code 1", [])
    assert (Kind.APP_EXIT, "app_oom", 1) in got


def test_preemption_never_from_a_word_inside_a_name_or_a_progress_event():
    assert _kinds("Scheduled", "Successfully assigned ns/p to spot-preempted-pool-7") == {Kind.POD_SCHEDULED}
    assert Kind.PREEMPTED not in _kinds("FailedScheduling", "0/3 nodes available; node pool spot-preempted-pool")
    assert Kind.PREEMPTED in _kinds(None, "Workload was preempted by a higher-priority workload")
    assert Kind.PREEMPTED in _kinds("Preempted", "")


def test_preempted_means_this_workload_not_others_nor_a_possibility():
    # a scheduler saying what it may reclaim, a condition listing preemption as possible, the preemptor's notes
    for reason, msg in (("Unschedulable", "Over-quota workloads may be preempted"),
                        (None, "This can happen if the node was preempted, had a hardware failure"),
                        ("PreemptedWorkload", "Preempted workload default/low (UID: u) in ClusterQueue cq"),
                        ("Pending", "couldn't assign flavors to pod set main. Pending the preemption of 1 workload(s)"),
                        (None, "The scheduler preempted 2 pods of lower priority")):
        assert Kind.PREEMPTED not in _kinds(reason, msg), (reason, msg)
    # this workload's own preemption, whatever else the message says
    assert Kind.PREEMPTED in _kinds("Evict", "Pod ns/p was preempted by higher priority workload ns/q")
    assert Kind.PREEMPTED in _kinds("Preempted", "Pods may be preempted again")  # the reason token decides


def test_the_kernels_word_beats_the_exit_code():
    # OOMKilled with exit code 0, or none: an OOM kill carrying the stated code, never an assumed 137
    assert kinds_from_reason_message("OOMKilled", "Container t in pod p terminated with exit code 0", []) == \
        [(Kind.OOM, None, 0)]
    assert kinds_from_reason_message(None, "State:  Terminated\n  Reason:       OOMKilled\n  Exit Code:    0", []) == \
        [(Kind.OOM, None, 0)]
    assert kinds_from_reason_message("OOMKilled", "", []) == [(Kind.OOM, None, None)]
    # Ray's list of potential causes names the OOM killer as a possibility: no signal at all
    assert kinds_from_reason_message(None, "There are some potential root causes. (1) The process is killed by "
                                           "SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is "
                                           "called.", []) == []


def test_event_provenance_source_and_object():
    from workload_diagnose.agent.evidence.common import event_signals

    def kinds(**kw):
        return {s.kind for s in event_signals("OOMKilled", "OOMKilled", None, "p", [], "get_workload_status",
                                              "status", **kw)}

    assert kinds(emitter="kubelet", object_kind="Pod") == {Kind.OOM}
    assert kinds(emitter=None, object_kind=None) == {Kind.OOM}  # a missing source or object is accepted
    assert kinds(emitter="trainer-sidecar", object_kind="Pod") == set()  # an application's own event
    assert kinds(emitter="kubelet", object_kind="ConfigMap") == set()  # not about the workload's pod
    assert kinds(emitter="kernel-monitor", object_kind="Node") == {Kind.OOM}  # node-problem-detector
