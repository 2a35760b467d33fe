"""Distributed jobs fail on their peers: a rank's exit after a node failure of the workload is that failure's symptom;
without peer or node evidence it stays the application's exit, advised and quoted as a failed collective."""
from __future__ import annotations

from datetime import timedelta

from workload_diagnose.agent.evidence.kube import last_error_line
from workload_diagnose.agent.model.signals import Kind, Signal
from workload_diagnose.agent.procedures.kit.peers import peer_evidence, peer_lines
from workload_diagnose.agent.taxonomy import BY_NAME, RecoContext, classify
from workload_diagnose.agent.taxonomy.classifier import yielded
from workload_diagnose.agent.taxonomy.signals.collective import COLLECTIVE

WATCHDOG = ("[rank1]:[E1103 07:34:57.462234381 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 1] Process "
            "group watchdog thread terminated with exception: [Rank 1] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=1, OpType=COALESCED, NumelIn=18446744073709551615, NumelOut=18446744073709551615, "
            "Timeout(ms)=1800000) ran for 1800014 milliseconds before timing out.")


def node_down(at, obj="gpu-2", text="Node gpu-2 status is now: NodeNotReady"):
    return Signal(kind=Kind.NODE_FAILURE, source="get_workload_status", text=text, at=at, obj=obj, detail="nodenotready")


def app_exit(at, text="Container pytorch in pod job-worker-0 terminated with exit code 1", obj="job"):
    return Signal(kind=Kind.APP_EXIT, source="get_workload_status", text=text, at=at, obj=obj, exit_code=1)


def test_a_node_failure_before_the_exit_explains_it_after_does_not():
    before = [node_down("2026-11-20T09:44:00Z"), app_exit("2026-11-20T10:15:00Z")]
    v = classify(before)
    assert v.category == "NODE_FAILURE" and [s.kind for s in v.supporting] == [Kind.NODE_FAILURE]
    assert yielded(before) == [before[1]]
    assert classify([node_down("2026-11-20T10:15:00Z"), app_exit("2026-11-20T10:15:00Z")]).category == "NODE_FAILURE"
    assert classify([node_down("2026-11-20T10:40:00Z"), app_exit("2026-11-20T10:15:00Z")]).category == "CRASH_APP_ERROR"
    # without a time on either side the order is unknown: the exit stays the application's
    assert classify([node_down(None), app_exit("2026-11-20T10:15:00Z")]).category == "CRASH_APP_ERROR"
    assert classify([node_down("2026-11-20T09:44:00Z"), app_exit(None)]).category == "CRASH_APP_ERROR"
    # other kinds never yield: an OOM kill after a node event is still the OOM
    oom = Signal(kind=Kind.OOM, source="t", text="OOMKilled", at="2026-11-20T10:15:00Z")
    assert classify([node_down("2026-11-20T09:44:00Z"), oom]).category == "OOM_KILLED"


def test_the_report_names_the_peer_pod_and_node():
    pods = {"job-worker-0": "gpu-1", "job-worker-1": "gpu-2", "job-worker-2": "gpu-3"}
    lines = peer_lines([node_down("2026-11-20T09:44:00Z")], [app_exit("2026-11-20T10:15:00Z")], pods)
    assert lines == [("get_workload_pods", "Pod job-worker-1 ran on node gpu-2, whose failure (cited above, from get_workload_status) "
                                           "came before pod job-worker-0 (node gpu-1) exited (cited above, from get_workload_status): "
                                           "that rank's exit followed the loss of its peer")]
    # an eviction names the pod, not the node: the pods read places it
    evicted = node_down("2026-11-20T09:49:00Z", obj="job-worker-2", text="Marking for deletion Pod ns/job-worker-2")
    [(_, text)] = peer_lines([evicted], [app_exit("2026-11-20T10:15:00Z")], pods)
    assert text.startswith("Pod job-worker-2 ran on node gpu-3")
    # a node name inside another is not that node
    assert peer_lines([node_down("2026-11-20T09:44:00Z", obj=None, text="Node gpu-20 status is now: NodeNotReady")],
                      [app_exit("2026-11-20T10:15:00Z")], pods) == []
    # no line when the failure came after the exit, or when nothing was set aside
    assert peer_lines([node_down("2026-11-20T10:40:00Z")], [app_exit("2026-11-20T10:15:00Z")], pods) == []
    assert peer_evidence([], [app_exit("2026-11-20T10:15:00Z")], []) == []


def test_the_failing_line_of_a_rank_is_the_collective_not_torchruns_wrapper():
    lines = ["step 100 loss=2.31", WATCHDOG,
             "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most "
             "recent call first):", "Traceback (most recent call last):",
             "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:"]
    assert last_error_line(lines) == WATCHDOG
    assert last_error_line(["Traceback (most recent call last):", "KeyError: 'CONFIG_PATH'"]) == "KeyError: 'CONFIG_PATH'"
    # a download's connection reset is not a collective: the last error line as before
    assert last_error_line(["ConnectionResetError: [Errno 104] Connection reset by peer", "ValueError: bad shard"]) == \
        "ValueError: bad shard"


def _reco(log_line=None, signals=()):
    return RecoContext(signals=list(signals), memory_limit=None, peak=None, restart_policy=None, namespace=None,
                       log_line=log_line)


def test_the_advice_points_at_the_collective_and_quotes_it():
    crash = BY_NAME["CRASH_APP_ERROR"]
    out = crash.recommend(_reco(WATCHDOG))
    assert WATCHDOG in out[0] and "NCCL_DEBUG=INFO" in out[0] and "peer" in out[0] and "timeout" in out[0]
    assert not out[0].startswith("Fix the code")
    # the collective as a system message carried it (no log): quoted from the statement, not the exit prefix
    msg = Signal(kind=COLLECTIVE, source="get_workload_status",
                 text=f'Condition Failed=True; reason: PodFailed; message: "Container pytorch in pod p terminated with '
                      f'exit code 1: {WATCHDOG}"')
    out = crash.recommend(_reco(None, [msg]))
    assert f'"{WATCHDOG}"' in out[0]
    # an ordinary error keeps the ordinary advice
    assert crash.recommend(_reco("KeyError: 'CONFIG_PATH'"))[0].startswith("Fix the code or configuration")


def test_a_peer_failure_explains_an_exit_only_within_the_collective_window():
    """The window: the largest collective timeout the evidence states (Timeout(ms)=N), else torch's default 30 min,
    plus 10 min for Kubernetes to say the node is lost (crash_app_error.peer_window)."""
    exit_at = "2026-11-20T10:15:00Z"
    assert classify([node_down("2026-11-20T09:36:00Z"), app_exit(exit_at)]).category == "NODE_FAILURE"  # 39'
    assert classify([node_down("2026-11-20T09:34:00Z"), app_exit(exit_at)]).category == "CRASH_APP_ERROR"  # 41'
    assert classify([node_down("2026-11-20T07:15:00Z"), app_exit(exit_at)]).category == "CRASH_APP_ERROR"  # 3 h
    # a stated two-hour timeout widens it; the same failure 2 h 5 min before the exit then explains it
    two_h = Signal(kind=COLLECTIVE, source="get_workload_status", at=exit_at,
                   text="Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, "
                        "Timeout(ms)=7200000) ran for 7200100 milliseconds before timing out.")
    assert classify([node_down("2026-11-20T08:10:00Z"), app_exit(exit_at), two_h]).category == "NODE_FAILURE"
    # an earlier, out-of-window failure of the same node does not hide a later in-window one
    sigs = [node_down("2026-11-20T06:00:00Z"), node_down("2026-11-20T10:00:00Z"), app_exit(exit_at)]
    assert classify(sigs).category == "NODE_FAILURE"
    pods = {"job-worker-0": "gpu-1", "job-worker-1": "gpu-2"}
    lines = peer_lines(sigs[:2], [sigs[2]], pods, window=timedelta(minutes=40))
    assert len(lines) == 1 and "Pod job-worker-1 ran on node gpu-2" in lines[0][1]
    assert peer_lines(sigs[:1], [sigs[2]], pods, window=timedelta(minutes=40)) == []
