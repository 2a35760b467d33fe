"""Step 4, Tier 2: what the workload's nodes say about themselves (``kubectl describe node``: conditions and taints;
the events about the Node; and, on a GPU node where NVIDIA dcgm-exporter runs, its GPU health gauges read through
the metrics-only proxy guard of ``lifecycle --run-profile``). Unavailable is never 0: an exporter that is absent or
unreadable is a limitation that says the GPU figures are unknown."""
from __future__ import annotations

from workload_diagnose.agent.evidence import kube as kev
from workload_diagnose.agent.procedures.runai_failed.state import KubeEvidence


def collect(kube, placements: list[tuple[str, str, str]], names: list[str], out: KubeEvidence) -> None:
    """Read each node the workload's own pods ran on into ``out`` (signals, context lines, calls, limitations).
    ``placements``: (node, namespace, pod) of each pod Tier 2 read or Run:ai reported."""
    from workload_diagnose.tools.kube import KubeError, node_events_cmd

    gpu_nodes = []
    for node in sorted({n for n, _, _ in placements if n}):
        try:
            nf = kube.get_node(node)
        except KubeError as e:
            out.limitations.append(f"kubectl describe node {node} failed: {e.kind}: {e.message}")
            continue
        out.nodes.append(node)
        out.calls.append(nf.source)
        out.signals += kev.kube_node_signals(nf, nf.source, names)
        out.lines += [(nf.source, t) for t in kev.node_condition_lines(nf, names)]
        if nf.ready is True:
            out.lines.append((nf.source, f"Node {nf.name} is Ready now"
                              + (f"; allocatable GPUs: {nf.allocatable_gpus}" if nf.allocatable_gpus is not None
                                 else "")))
        out.injections += list(getattr(nf, "injections", []) or [])
        src = node_events_cmd(node)
        try:
            events = kube.node_events(node)
        except KubeError as e:
            out.limitations.append(f"{src} failed: {e.kind}: {e.message}; the node's own events are missing.")
        else:
            out.calls.append(src)
            out.signals += kev.node_event_signals(events, src, names)
            for e in events:
                out.injections += list(getattr(e, "injections", []) or [])
        if (nf.capacity_gpus or nf.allocatable_gpus or 0) > 0:
            gpu_nodes.append(node)
    if gpu_nodes:
        _gpu_health(kube, gpu_nodes, {(ns, pod) for _, ns, pod in placements}, names, out)


def _gpu_health(kube, nodes: list[str], pods: set[tuple[str, str]], names: list[str], out: KubeEvidence) -> None:
    from workload_diagnose.tools.kube import KubeError
    from workload_diagnose.tools.kube.metrics import read_gpu_health

    # a reader that shares reads between diagnoses (fleet triage) answers it itself, once per node set
    shared = getattr(kube, "gpu_health", None)
    try:
        read = shared(nodes) if shared is not None else read_gpu_health(kube, nodes)
    except KubeError as e:
        out.limitations.append(f"GPU health of node(s) {', '.join(nodes)} from dcgm-exporter is unavailable "
                               f"({e.kind}: {e.message}): their Xid and ECC/row-remap figures are unknown, not 0.")
        return
    out.calls += [request for request, _status in read.calls]
    out.injections += read.injections
    for node in nodes:
        h = read.nodes[node]
        if h.unavailable:
            out.limitations.append(f"GPU health of node {node} from dcgm-exporter is unavailable ({h.unavailable}): "
                                   "its Xid and ECC/row-remap figures are unknown, not 0.")
        sigs, lines = kev.dcgm_evidence(h, pods, names)
        out.signals += sigs
        out.lines += [(h.source, t) for t in lines]
