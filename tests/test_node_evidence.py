"""What a node says, as evidence (``agent.evidence.kube``): its conditions through the taxonomy's rules, the events
about it, and dcgm-exporter's GPU gauges, with the guards that keep other pods' and other GPUs' troubles out."""
from __future__ import annotations

from datetime import datetime, timezone

from workload_diagnose.agent.evidence import kube as kev
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.categories.node_failure import GPU_FAULT
from workload_diagnose.tools.kube import Condition, KubeEvent, NodeFacts
from workload_diagnose.tools.kube.metrics import NodeGpuHealth, Sample

T = datetime(2026, 11, 20, 9, 58, tzinfo=timezone.utc)
SRC = "kubectl describe node n1"


def node(*conds) -> NodeFacts:
    base = [Condition(type="Ready", status="True", reason="KubeletReady", message="ok", last_transition_time=T),
            Condition(type="MemoryPressure", status="False", reason="KubeletHasSufficientMemory", message="ok")]
    return NodeFacts(name="n1", conditions=base + list(conds), source=SRC)


def test_a_gpu_monitor_condition_is_a_signal_and_its_healthy_state_is_not():
    gke = Condition(type="XidCriticalError", status="True", reason='{"79":true}',
                    message="6e43a052-e544-467b-a972-63d7cd2ce80a", last_transition_time=T)
    sigs = kev.kube_node_signals(node(gke), SRC, [])
    assert [(s.kind, s.obj) for s in sigs] == [(GPU_FAULT, "n1")]
    assert 'reason: {"79":true}' in sigs[0].text and "xid=79" in sigs[0].detail  # quoted as written
    healthy = Condition(type="XidCriticalError", status="False", reason="{}", message="")
    assert kev.kube_node_signals(node(healthy), SRC, []) == []
    eks = Condition(type="AcceleratedHardwareReady", status="False", reason="NvidiaXID79Error",
                    message="detected XID-79 on the instance, review kernel logs for additional information.")
    assert [s.kind for s in kev.kube_node_signals(node(eks), SRC, [])] == [GPU_FAULT]


def test_conditions_no_rule_reads_are_lines_not_signals():
    conds = (Condition(type="MemoryPressure", status="True", reason="KubeletHasInsufficientMemory",
                       message="kubelet has insufficient memory available"),
             Condition(type="AcceleratedHardwareReady", status="False", reason="DCGMError",
                       message="failed to initialize DCGM: Error connecting to nv-hostengine"))
    n = NodeFacts(name="n1", conditions=list(conds), source=SRC)
    assert kev.kube_node_signals(n, SRC, []) == []
    lines = kev.node_condition_lines(n, [])
    assert len(lines) == 2 and "MemoryPressure=True" in lines[0] and "DCGMError" in lines[1]


def test_node_events_carry_only_the_nodes_own_kinds_from_system_components():
    def e(reason, message, component):
        return KubeEvent(type="Warning", reason=reason, message=message, source_component=component,
                         involved_kind="Node", involved_name="n1", last_timestamp=T)

    events = [e("OOMKilling", "Memory cgroup out of memory: Killed process 4242 (python)", "kernel-monitor"),
              e("", "NVRM: Xid (PCI:0000:a1:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
                "kernel-monitor"),
              e("", "NVRM: Xid (PCI:0000:a1:00): 79, GPU has fallen off the bus", "trainer-sidecar"),
              e("NodeNotReady", "Node n1 status is now: NodeNotReady", "node-controller")]
    sigs = kev.node_event_signals(events, "events", [])
    # another pod's OOM kill on the same node is not this workload's; an application's event is not evidence
    assert [s.kind for s in sigs] == [GPU_FAULT, Kind.NODE_FAILURE]


def _health(*samples) -> NodeGpuHealth:
    return NodeGpuHealth("n1", list(samples), None, "kubectl get --raw /api/v1/namespaces/gpu-operator/pods/x:9400/"
                                                    "proxy/metrics")


def xid(gpu, value, pod=None, ns="ns"):
    labels = {"gpu": gpu, "UUID": f"GPU-0000000{gpu}-0000-0000-0000-000000000000"}
    if pod:
        labels |= {"namespace": ns, "pod": pod}
    return Sample("DCGM_FI_DEV_XID_ERRORS", labels, value)


def test_a_hardware_xid_decides_only_on_the_workloads_own_gpu():
    mine = {("ns", "job-0-0")}
    sigs, lines = kev.dcgm_evidence(_health(xid("0", 79, "job-0-0"), xid("1", 0, "other-0")), mine, [])
    assert [s.kind for s in sigs] == [GPU_FAULT] and "GPU 0" in sigs[0].text and "= 79" in sigs[0].text
    assert sigs[0].source.startswith("kubectl get --raw")
    assert lines == ["dcgm-exporter on node n1: DCGM_FI_DEV_XID_ERRORS is 0 on GPU(s) 1 of 2 (no Xid since the "
                     "exporter started)"]
    sigs, lines = kev.dcgm_evidence(_health(xid("0", 0, "job-0-0"), xid("1", 79, "other-0")), mine, [])
    assert sigs == [] and any("GPU 1" in x and "not on a GPU attributed to this workload's pods" in x for x in lines)
    sigs, lines = kev.dcgm_evidence(_health(xid("0", 79), xid("1", 0)), mine, [])
    assert sigs == [] and any("carries no pod labels" in x for x in lines)
    sigs, _ = kev.dcgm_evidence(_health(xid("0", 31, "job-0-0")), mine, [])
    assert sigs == []  # an application-class Xid on its own GPU is not a hardware fault
    remap = Sample("DCGM_FI_DEV_ROW_REMAP_FAILURE", {"gpu": "0", "namespace": "ns", "pod": "job-0-0"}, 1)
    sigs, _ = kev.dcgm_evidence(_health(remap), mine, [])
    assert [s.kind for s in sigs] == [GPU_FAULT]
