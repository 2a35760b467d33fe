"""Kubernetes facts (``tools.kube``: pods, events, nodes, logs) → signals. Shared by every procedure."""
from __future__ import annotations

import re
from typing import Any

from workload_diagnose.agent.evidence.common import event_signals, make_signals, quote, ts
from workload_diagnose.agent.evidence.rules import (exit_code_kinds, kinds_from_log_line, kinds_from_reason_message,
                                                    signal_name)
from workload_diagnose.agent.model.signals import Kind, Signal
from workload_diagnose.agent.taxonomy.signals.collective import RULE as COLLECTIVE_RULE
from workload_diagnose.agent.taxonomy.registry import NODE_READ_KINDS

def kube_pod_signals(pod: Any, source: str, names: list[str]) -> list[Signal]:
    """Signals from ``tools.kube.PodFacts`` (container states, exit codes, pod reason)."""
    sigs: list[Signal] = []
    for c in list(getattr(pod, "init_containers", []) or []) + list(getattr(pod, "containers", []) or []):
        is_init = bool(getattr(c, "is_init", False))
        label = f"{'Init container' if is_init else 'Container'} {c.name} (pod {pod.name})"
        for prefix, reason, code, when in (
            ("state terminated", c.terminated_reason, c.exit_code, c.finished_at),
            ("last state terminated", c.last_terminated_reason, c.last_exit_code, c.last_finished_at),
        ):
            if reason is None and code is None:
                continue
            oom = (reason or "").lower() == "oomkilled"
            kinds = [(Kind.OOM, None, code)] if oom else []
            if code is not None:
                kinds += exit_code_kinds(code, is_init=is_init, oom=oom)
            if not kinds and (reason or "").lower() in {"containercannotrun", "startError".lower()}:
                kinds.append((Kind.INIT_FAILED if is_init else Kind.APP_EXIT, reason, code))
            sig = f" ({signal_name(code)})" if code is not None and signal_name(code) else ""
            text = (f"{label} {prefix}: reason {reason or 'none'}, exit code "
                    f"{code if code is not None else 'not reported'}{sig}; restarts: {c.restart_count}")
            sigs += make_signals(kinds, source=source, text=text, at=when, obj=c.name, origin="kube")
        if c.waiting_reason:
            kinds = kinds_from_reason_message(c.waiting_reason, c.waiting_message, names)
            if is_init:
                kinds = [(Kind.INIT_FAILED, None, None) if k == Kind.CRASH_LOOP else (k, d, e) for k, d, e in kinds]
            text = f"{label} waiting: reason {c.waiting_reason}; message: \"{quote(c.waiting_message)}\"; " \
                   f"restarts: {c.restart_count}"
            sigs += make_signals(kinds, source=source, text=text, at=None, obj=c.name, origin="kube")
    reason = getattr(pod, "reason", None)
    if reason:
        kinds = kinds_from_reason_message(reason, getattr(pod, "message", None), names)
        text = f"Pod {pod.name} status reason: {reason}; message: \"{quote(getattr(pod, 'message', None))}\""
        sigs += make_signals(kinds, source=source, text=text, at=None, obj=pod.name, origin="kube")
    for cond in getattr(pod, "conditions", []) or []:
        if (getattr(cond, "type", "") or "") == "DisruptionTarget" and (getattr(cond, "status", "") == "True"):
            kinds = kinds_from_reason_message(cond.reason, cond.message, names)
            text = f"Pod {pod.name} condition DisruptionTarget: reason {cond.reason}; message: \"{quote(cond.message)}\""
            sigs += make_signals(kinds, source=source, text=text, at=None, obj=pod.name, origin="kube")
    return sigs


def kube_event_signals(events: list[Any], source: str, names: list[str]) -> list[Signal]:
    sigs: list[Signal] = []
    for e in events:
        count = f" (x{e.count})" if getattr(e, "count", None) and e.count > 1 else ""
        for s in event_signals(e.reason, e.message, e.last_timestamp or e.first_timestamp, e.involved_name, names,
                               source, "kube", event_type=e.type):
            s.text += count
            sigs.append(s)
    return sigs


def _abnormal(c: Any) -> bool:
    """A node condition in its bad state: a ``...Ready`` type not True, any other type True (pressure, a GPU health
    monitor's ``XidCriticalError`` / ``GpuMemWatch``, ...). ``Ready`` itself is read on its own."""
    t = c.type or ""
    return t != "Ready" and ((c.status != "True") if t.endswith("Ready") else (c.status == "True"))


def _condition_text(node: Any, c: Any) -> str:
    since = ts(c.last_transition_time) or "unknown"
    return (f"Node {node.name} condition {c.type}={c.status}; reason: {c.reason or 'none'}; message: "
            f"\"{quote(c.message)}\"; since {since}")


def _condition_kinds(c: Any, names: list[str]):
    # the message the taxonomy's rules read: type, status, reason (a monitor may write a JSON map there, e.g. GKE's
    # {"79":true}: its quotes would be scrubbed as a quoted name) and message
    reason = (c.reason or "").replace('"', "")
    msg = f"Node condition {c.type}={c.status}; reason: {reason or 'none'}; message: {c.message or ''}"
    return [t for t in kinds_from_reason_message(None, msg, names) if t[0] in NODE_READ_KINDS]


def kube_node_signals(node: Any, source: str, names: list[str] | None = None) -> list[Signal]:
    """Signals of ``kubectl describe node``: Ready False/Unknown, the not-ready/unreachable taints, and any other
    condition in its bad state that a node-read record's rule reads (GPU health monitors' conditions)."""
    sigs: list[Signal] = []
    for c in getattr(node, "conditions", []) or []:
        if _abnormal(c):
            sigs += make_signals(_condition_kinds(c, list(names or [])), source=source, text=_condition_text(node, c),
                                 at=c.last_transition_time, obj=node.name, origin="kube")
        if c.type == "Ready" and c.status in ("False", "Unknown"):
            since = ts(c.last_transition_time) or "unknown"
            text = (f"Node {node.name} condition Ready={c.status}; reason: {c.reason or 'none'}; message: "
                    f"\"{quote(c.message)}\"; since {since}")
            sigs.append(Signal(kind=Kind.NODE_FAILURE, detail="NotReady", source=source, text=text,
                               at=since if since != "unknown" else None, obj=node.name, origin="kube"))
    for t in getattr(node, "taints", []) or []:
        if t.key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"):
            text = f"Node {node.name} taint {t.key}:{t.effect}"
            sigs.append(Signal(kind=Kind.NODE_FAILURE, detail="taint", source=source, text=text, obj=node.name,
                               origin="kube"))
    return sigs


def node_condition_lines(node: Any, names: list[str] | None = None) -> list[str]:
    """The node's other conditions in their bad state that no rule reads (memory/disk pressure, a monitor's own
    failure): context for the report, never a signal."""
    return [_condition_text(node, c) for c in getattr(node, "conditions", []) or []
            if _abnormal(c) and not _condition_kinds(c, list(names or []))]


def node_event_signals(events: list[Any], source: str, names: list[str]) -> list[Signal]:
    """Signals of the events about a Node written by a system component (kubelet, node-problem-detector, a GPU health
    monitor, the device plugin): only the kinds a node-read record owns (an OOM kill of another pod on the same node
    is not this workload's). Events live one hour by default (the apiserver's --event-ttl), so they are recent."""
    sigs: list[Signal] = []
    for e in events:
        count = f" (x{e.count})" if getattr(e, "count", None) and e.count > 1 else ""
        for s in event_signals(e.reason, e.message, e.last_timestamp or e.first_timestamp, e.involved_name, names,
                               source, "kube", event_type=e.type, emitter=e.source_component, object_kind="Node"):
            if s.kind in NODE_READ_KINDS:
                s.text += count
                sigs.append(s)
    return sigs


def dcgm_evidence(health: Any, pods: set[tuple[str, str]], names: list[str]) -> tuple[list[Signal], list[str]]:
    """dcgm-exporter's GPU health gauges of one node (``tools.kube.metrics.NodeGpuHealth``) as (signals, lines).

    A non-zero value is a signal only on a GPU the exporter attributes to one of the workload's own pods (its
    ``namespace``/``pod`` labels), and only when a node-read record's rule reads it (a hardware-class Xid, a failed
    row remap, double-bit ECC errors): ``DCGM_FI_DEV_XID_ERRORS`` keeps the LAST Xid until the exporter restarts,
    so on another GPU, or when the exporter carries no pod labels, it is a line, not a cause."""
    from workload_diagnose.tools.kube.metrics import XID_ERRORS, sample_pod

    sigs: list[Signal] = []
    lines: list[str] = []
    gpus = sorted({s.labels.get("gpu") or s.labels.get("UUID") or "?" for s in health.samples})
    clean: list[str] = []
    for smp in sorted(health.samples, key=lambda x: (x.name, x.labels.get("gpu") or "", x.labels.get("UUID") or "")):
        if smp.value == 0:
            if smp.name == XID_ERRORS:
                clean.append(smp.labels.get("gpu") or smp.labels.get("UUID") or "?")
            continue
        ns, pod, _ = sample_pod(smp)
        mine = (ns, pod) in pods
        value = f"{smp.value:g}"
        what = "(last Xid) " if smp.name == XID_ERRORS else ""
        gpu = smp.labels.get("gpu")
        uuid = smp.labels.get("UUID")
        who = f"GPU {gpu or '?'}" + (f" (UUID {uuid})" if uuid else "") + (f", pod {ns}/{pod}" if pod else "")
        text = f"dcgm-exporter on node {health.node}: {who} {smp.name} {what}= {value}"
        kinds = [t for t in kinds_from_reason_message(None, text, names) if t[0] in NODE_READ_KINDS] if mine else []
        if kinds:
            sigs += make_signals(kinds, source=health.source, text=text, at=None, obj=health.node, origin="kube")
        else:
            why = ("" if mine else " — not on a GPU attributed to this workload's pods" if pod or any(
                sample_pod(x)[1] for x in health.samples) else " — the exporter carries no pod labels, so the GPU "
                "cannot be tied to this workload")
            lines.append(text + why + (" (the gauge keeps the last Xid until the exporter restarts; it is not a "
                                       "cause here)" if smp.name == XID_ERRORS and why else ""))
    if clean:
        lines.append(f"dcgm-exporter on node {health.node}: {XID_ERRORS} is 0 on GPU(s) {', '.join(sorted(clean))} "
                     f"of {len(gpus)} (no Xid since the exporter started)")
    return sigs, lines


def log_fault_signals(lines: list[str], *, source: str, what: str, node: str | None,
                      most: int = 3) -> list[Signal]:
    """Signals of the lines of a container's own output (``what``: its previous log, its termination message) that a
    log rule reads (``SignalRule.reads_log``: a GPU hardware fault in the strict words of the driver, the CUDA
    runtime, NVML or NCCL): at most ``most`` distinct lines, nearest the exit first. A line the guardrails flag as a
    planted instruction is never read. The signal is about the node (``obj``) the container ran on; it carries no
    time (a log line states none the reads can vouch for), so it explains the exit without being ordered against it."""
    from workload_diagnose import guardrails

    out: list[Signal] = []
    seen: set[str] = set()
    for ln in reversed(lines):
        s = " ".join(ln.split())[:400]
        if len(out) >= most or not s or s in seen:
            continue
        kinds = kinds_from_log_line(s)
        if not kinds or guardrails.detect_injection(ln):
            continue
        seen.add(s)
        out += make_signals(kinds, source=source, text=f"{what} reports a GPU hardware fault: \"{s}\"", at=None,
                            obj=node, origin="kube")
    return out


_ERROR_LINE = re.compile(
    r"(?:^|\b)(?:[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)\b(?::|$)|Traceback \(most recent|"
    r"\bFATAL\b|\bERROR\b|\berror:|\bpanic:|\bSegmentation fault\b|\bcommand not found\b|"
    r"\bCUDA error\b|\bKilled\b|\bAborted\b|No such file or directory)")


def failing_line(lines: list[str], *, is_init: bool = False) -> str | None:
    """The log line to quote: for an init container, the line that names what it waited for (the init record's
    patterns: a master's DNS name that did not resolve, a service that never answered) when there is one; else the
    last error line."""
    if is_init:
        from workload_diagnose.agent.taxonomy.categories.init_failed import dependency_line

        line = dependency_line(lines)
        if line:
            return line
    return last_error_line(lines)


def last_error_line(lines: list[str]) -> str | None:
    """The failing log line to quote for an application crash, chosen deterministically: the last line of a failed
    distributed collective when the tail shows one (the watchdog line names the op, SeqNum and timeout; torchrun's
    later ``ChildFailedError`` wrapper says only that a child failed), else the last exception/error line."""
    collective = COLLECTIVE_RULE.rx
    for ln in reversed(lines):
        s = ln.strip()
        if s and collective.search(s):
            return s[:400]
    for ln in reversed(lines):
        s = ln.strip()
        if s and _ERROR_LINE.search(s) and not s.startswith("Traceback (most recent"):
            return s[:400]
    return None
