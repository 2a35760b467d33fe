"""The pod's lifecycle layers in the Run:ai report (issue 11 item 4): one verdict model with the lifecycle view.

When a Run:ai workload is Pending with a pod-start signal (past scheduling, or a start failure) and Tier 2 read its
pod, the report walks the pod's layers — Pod scheduling, Image pull, Init containers, Container start, Ready — with
the lifecycle view's own phase rules (``agent.procedures.kit.layers``) over the pod Tier 2 already read (no further
request), and names the first layer that is not done, its owner and the next action. It adds to the report; it
never changes the verdict.
"""
from __future__ import annotations

from datetime import datetime

from workload_diagnose.agent.model.lifecycle import PodLayers
from workload_diagnose.agent.model.signals import Kind, Signal
from workload_diagnose.agent.procedures.kit import layers as ph
from workload_diagnose.agent.procedures.kit.layers.text import layer_of, phase_lines

# what says the pod got as far as starting (scheduled / pulling / started) or failed while starting
POD_START_KINDS = frozenset({Kind.POD_SCHEDULED, Kind.IMAGE_PULL, Kind.INIT_FAILED, Kind.MOUNT_FAILED,
                             Kind.CRASH_LOOP})
KIND = "Run:ai workload"  # the Snapshot's kind: neither a Job nor a RayJob (no Kueue / RayJob layers)


def applies(phase: str | None, signals: list[Signal]) -> bool:
    return (phase or "").lower() == "pending" and any(s.kind in POD_START_KINDS for s in signals)


def walk(name: str, namespace: str, now: datetime, pods: list, events: dict[str, list]) -> PodLayers:
    """``pods``: tools.kube PodFacts of the workload's own pods; ``events``: pod name → its KubeEvents."""
    snap = ph.Snapshot(name=name, namespace=namespace, now=now, kind=KIND, pods=[p.manifest for p in pods],
                       events={("Pod", pod): [{"type": e.type, "reason": e.reason, "message": e.message}
                                              for e in evs] for pod, evs in events.items()})
    phases = [ph.pod_scheduling(snap), ph.image_pull(snap), ph.init_containers(snap), ph.container_start(snap),
              ph.ready(snap)]
    first, layer = layer_of(phases)
    return PodLayers(phases=phases, first_incomplete=first.name if first else None, layer=layer)


def report_lines(layers: PodLayers) -> list[str]:
    """The report's section: the first incomplete layer (or all done), the walk, the next action."""
    if layers.layer is not None:
        p = next(x for x in layers.phases if x.name == layers.layer.name)
        head = f"Lifecycle layers of the pod (Tier 2): first incomplete: {p.name} ({p.status}), owner {p.owner}"
    else:
        head = "Lifecycle layers of the pod (Tier 2): every layer done"
    lines = [head + ":"] + phase_lines(layers.phases)
    if layers.layer is not None:
        lines.append(f"  Next action ({layers.layer.owner}): {layers.layer.next_action or 'none stated'}")
    return lines
