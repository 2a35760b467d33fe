"""A distributed workload's ranks run in several pods on several nodes. When a rank's exit was set aside as the
symptom of an earlier node failure (``agent.taxonomy.classifier.yielded``), the report says which pod ran on the
failed node and which rank exited after it: a peer's lost node, not the rank's code, ended the run.

Pure functions over the signals and the pods read (``get_workload_pods``: each pod's node). A name is linked only
when the pods read reports it; nothing is guessed.
"""
from __future__ import annotations

import re
from datetime import timedelta
from typing import Any, Iterable

from workload_diagnose.agent.model.signals import Signal
from workload_diagnose.agent.model.time import parse_time
from workload_diagnose.agent.taxonomy.classifier import yielded
from workload_diagnose.agent.taxonomy.registry import YIELD_WINDOW, YIELDS_TO_EARLIER

SOURCE = "get_workload_pods"


def _named(sig: Signal, names: Iterable[str]) -> str | None:
    """The known name a signal is about: its object, else the longest known name its text mentions."""
    names = sorted({n for n in names if n}, key=len, reverse=True)
    if sig.obj in names:
        return sig.obj
    return next((n for n in names if re.search(r"(?<![\w.-])" + re.escape(n) + r"(?![\w.-])", sig.text)), None)


def peer_lines(failures: list[Signal], exits: list[Signal], pod_nodes: dict[str, str | None],
               window: timedelta | None = None) -> list[tuple[str, str]]:
    """(source, text) lines linking each rank exit set aside to the earliest failure of the node or pod it followed
    within ``window`` (the exit's rule's ``yields_within``: a failure longer before the exit did not end that run).

    ``failures``: the verdict's node-failure signals; ``exits``: the exits set aside as their symptoms;
    ``pod_nodes``: pod name -> node name, as the pods read reports them."""
    nodes = {n for n in pod_nodes.values() if n}
    failed: dict[tuple[str, str], list[Signal]] = {}  # (pod, node) -> its failure signals, earliest first
    for f in sorted(failures, key=lambda s: (parse_time(s.at) is None, parse_time(s.at) or 0, s.text)):
        node = _named(f, nodes)
        pods = [p for p, n in sorted(pod_nodes.items()) if node and n == node]
        if not pods:  # the failure names a pod (an eviction) rather than its node
            pod = _named(f, pod_nodes)
            if pod and pod_nodes.get(pod):
                pods, node = [pod], pod_nodes[pod]
        for pod in pods:
            failed.setdefault((pod, node), []).append(f)
    out: list[tuple[str, str]] = []
    for (pod, node), fs in failed.items():
        f, after = next(((f, a) for f in fs if (a := _after(f, exits, window))), (None, []))
        if not after:
            continue
        # the first exit after the failure, one whose pod is known first
        e = min(after, key=lambda x: (_named(x, pod_nodes) is None, parse_time(x.at), x.text))
        rank = _named(e, pod_nodes)
        # the times and the exit code are cited on their own lines (from the reads that hold them); this line
        # states only what the pods read reports (which pod ran on which node) and the order the times give
        head = f"Pod {pod} ran on node {node}, whose failure (cited above, from {f.source}) came before "
        if rank and rank != pod:
            text = (head + f"pod {rank} (node {pod_nodes.get(rank) or 'not reported'}) exited (cited above, from "
                    f"{e.source}): that rank's exit followed the loss of its peer")
        elif rank:
            text = head + f"the pod exited (cited above, from {e.source})"
        else:
            text = head + f"the application's exit (cited above, from {e.source})"
        out.append((SOURCE, text))
    return out


def _after(f: Signal, exits: list[Signal], window: timedelta | None) -> list[Signal]:
    """The exits at or after the failure ``f``, within ``window`` of it."""
    t0 = parse_time(f.at)
    if t0 is None:
        return []
    return [e for e in exits if (te := parse_time(e.at)) is not None and t0 <= te
            and (window is None or te - t0 <= window)]


def peer_evidence(supporting: list[Signal], signals: list[Signal], pods: list[Any] | None) -> list[tuple[str, str]]:
    """The peer lines of a verdict: its signals that the set-aside exits yielded to, linked through the pods read."""
    aside = yielded(signals)
    if not aside:
        return []
    kinds = {k for s in aside for k in YIELDS_TO_EARLIER[s.kind]}
    pod_nodes = {p.name: p.nodeName for p in pods or [] if getattr(p, "name", None)}
    windows = [YIELD_WINDOW[s.kind](signals) for s in aside if s.kind in YIELD_WINDOW]
    return peer_lines([s for s in supporting if s.kind in kinds], aside, pod_nodes,
                      max(windows) if windows else None)
