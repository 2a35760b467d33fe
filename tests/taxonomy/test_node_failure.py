"""The node-failure record on real cluster wording: GPU hardware faults explain the application's exit, an
admission rejection is never an OOM kill, evictions carry the kubelet's resource and figures, and the near-misses
(application-class Xids, monitor self-failures, a CUDA OOM alone) leave the verdict where it was."""
from __future__ import annotations

import pytest

from workload_diagnose.agent.evidence.common import make_signals
from workload_diagnose.agent.evidence.rules import kinds_from_reason_message
from workload_diagnose.agent.taxonomy import RecoContext, classify
from workload_diagnose.agent.taxonomy import hardware as hw
from workload_diagnose.agent.taxonomy.categories.node_failure import CATEGORY, GPU_FAULT, REJECTED
from workload_diagnose.agent.model.signals import Kind


def signals(reason, message, source="get_workload_status", obj=None):
    return make_signals(kinds_from_reason_message(reason, message, []), source=source,
                        text=f"{reason}: {message}", at=None, obj=obj, origin="status")


APP_EXIT_CUDA_OOM = ("Error", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB; exit code 1")
NCCL = ("Error", "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, "
                 "Timeout(ms)=600000) ran for 600321 milliseconds before timing out. Container terminated with exit "
                 "code 1")


@pytest.mark.parametrize("fault", [
    ("", "NVRM: Xid (PCI:0000:a1:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."),
    ("", "RuntimeError: CUDA error: uncorrectable ECC error encountered"),
    ("NvidiaXID48Error", "detected XID-48 on the instance, review kernel logs for additional information."),
])
@pytest.mark.parametrize("exit_line", [APP_EXIT_CUDA_OOM, NCCL, ("Error", "Container trainer terminated with exit code 1")])
def test_a_gpu_fault_explains_the_applications_exit(fault, exit_line):
    sigs = signals(*exit_line) + signals(*fault, source="get_workload_history")
    assert classify(signals(*exit_line)).category == "CRASH_APP_ERROR"
    v = classify(sigs)
    assert v.category == "NODE_FAILURE" and {s.kind for s in v.supporting} == {GPU_FAULT}


def test_the_kernel_oom_kill_still_beats_a_gpu_fault():
    sigs = signals("OOMKilled", "Container trainer was OOM killed") + signals("", "NVRM: Xid (PCI:0000:a1:00): 79")
    assert classify(sigs).category == "OOM_KILLED"


@pytest.mark.parametrize("near_miss", [
    "NVRM: Xid (PCI:0000:00:05): 43, pid=1045242, name=pt_main_thread, Ch 00000008",
    "NVRM: Xid (PCI:0000:00:07): 31, pid=2512125, name=python3.10, Ch 00000008, intr 00000000. MMU Fault",
    "NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception",
    "kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001",
    "kernel: NVRM: Xid (PCI:...): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 11 (...)",
])
def test_an_application_class_xid_does_not_move_a_crash(near_miss):
    sigs = signals(*APP_EXIT_CUDA_OOM) + signals("", near_miss)
    assert classify(sigs).category == "CRASH_APP_ERROR"
    assert classify(signals("", near_miss)).category == "UNKNOWN"


@pytest.mark.parametrize("reason,message,resource", [
    ("OutOfmemory", "Pod was rejected: Node didn't have enough resource: memory, requested: 2097152000, used: "
                    "65865462583, capacity: 66388008960", "memory"),
    ("OutOfcpu", "Pod was rejected: Node didn't have enough resource: cpu, requested: 150, used: 11388, capacity: "
                 "11500", "cpu"),
    ("OutOfnvidia.com/gpu", "Node didn't have enough resource: nvidia.com/gpu, requested: 1, used: 8, capacity: 8",
     "nvidia.com/gpu"),
])
def test_an_admission_rejection_is_a_node_failure_never_an_oom(reason, message, resource):
    sigs = signals(reason, message)
    v = classify(sigs)
    assert v.category == "NODE_FAILURE" and {s.kind for s in v.supporting} == {REJECTED}
    f = hw.fields(v.supporting[0].detail)
    assert f["resource"] == resource and f["requested"] in message and f["capacity"] in message
    # a real OOM kill on another line still wins
    assert classify(sigs + signals("OOMKilled", "Container trainer was OOM killed")).category == "OOM_KILLED"


def _reco(sigs, **kw) -> list[str]:
    ctx = dict(signals=sigs, memory_limit=None, peak=None, restart_policy="Never", namespace=None, log_line=None)
    return CATEGORY.recommend(RecoContext(**(ctx | kw)))


def test_eviction_figures_come_from_the_kubelets_message_and_match_the_resource():
    mem = signals("Evicted", "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. "
                             "Container trainer was using 30Gi, request is 8Gi, has larger consumption of memory.")
    text = " ".join(_reco(mem, nodes=("gpu-node-7",)))
    assert "node gpu-node-7 was low on memory (threshold 100Mi, available 50Mi)" in text
    assert "using 30Gi against a request of 8Gi" in text and "Guaranteed QoS" in text
    disk = " ".join(_reco(signals("Evicted", "Pod ephemeral local storage usage exceeds the total limit of "
                                             "containers 1Gi.")))
    assert "ephemeral-storage limit of 1Gi" in disk and "volume" in disk and "Guaranteed" not in disk
    older = hw.fields(signals("Evicted", "The node was low on resource: memory. Container citadel was using 43536Ki, "
                                         "which exceeds its request of 0.")[0].detail)
    assert older == {"resource": "memory", "scope": "node", "usage": "43536Ki", "request": "0"}
    assert "threshold" not in older  # never filled in
    pressure = " ".join(_reco(signals("Evicted", "Pod The node had condition: [DiskPressure].")))
    assert "low on disk" in pressure and "clean the node" in pressure


def test_the_gpu_report_names_the_gpu_the_xid_and_the_node():
    sigs = signals("", "NVRM: Xid (PCI:0000:a1:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
                   obj="gpu-node-7") + signals(*APP_EXIT_CUDA_OOM)
    text = " ".join(_reco(sigs, nodes=("gpu-node-7",), restart_policy="OnFailure"))
    assert "Xid 79 (GPU has fallen off the bus) on GPU PCI 0000:a1:00" in text and "node gpu-node-7" in text
    assert "cordon and drain node gpu-node-7" in text and "hardware ticket" in text
    assert text.startswith("Restart policy is OnFailure: retry on a healthy node.")
    assert "symptom of this GPU fault" in text


@pytest.mark.parametrize("message,want", [
    ("I0809 13:32:51.873541 1 health.go:185] XidCriticalError: Xid=94 on Device=GPU-3b6ec030-5adc-1847-e155-"
     "79f635584b4e; marking device as unhealthy.", {"xid": "94", "gpu": "UUID GPU-3b6ec030-5adc-1847-e155-79f635584b4e"}),
    ("NVRM: Xid (PCI:0001:6c:00): 119, pid=10200, name=NvmlTaskRunner, Timeout after 45s of waiting for RPC response "
     "from GPU5 GSP!", {"xid": "119", "gpu": "PCI 0001:6c:00"}),
    ("kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1, name=python3, Ch 00000001 caused by previous Xid 149",
     {"xid": "149", "gpu": "PCI 0000:dc:00"}),
    ("RuntimeError: CUDA error: uncorrectable ECC error encountered", {"what": "uncorrectable ECC error"}),
    ("dcgm-exporter on node n1: GPU 0 (UUID GPU-5d0c5d7e-8a53-4a0e-9d59-3b8f4bce2a10), pod ns/p-0 "
     "DCGM_FI_DEV_XID_ERRORS (last Xid) = 79", {"xid": "79", "gpu": "UUID GPU-5d0c5d7e-8a53-4a0e-9d59-3b8f4bce2a10"}),
    ("Node condition XidCriticalError=True; reason: {48:true}; message: 6e43a052-e544-467b-a972-63d7cd2ce80a",
     {"xid": "48", "gpu": "UUID 6e43a052-e544-467b-a972-63d7cd2ce80a"}),
])
def test_gpu_detail(message, want):
    f = hw.fields(hw.gpu_detail(message))
    assert {k: f.get(k) for k in want} == want


def test_kinds_are_the_categorys():
    assert CATEGORY.kinds == {Kind.NODE_FAILURE, GPU_FAULT, REJECTED}
