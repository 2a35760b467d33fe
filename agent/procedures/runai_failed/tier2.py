"""Step 4, Tier 2: read-only Kubernetes evidence (kubectl describe pod / logs --previous / get events /
describe node, the node's events and GPU health: :mod:`tier2_node`) through ``tools.kube.KubeReader``.

Namespace: the one the workload reports; ``runai-<project>`` only when it reports none (stated as a fallback). If
that namespace does not exist the limitation is stated and no other is guessed. A pod is read by name but used only
if it is the pod Run:ai reported (:mod:`pod_identity`: same UID, else created within the workload's lifetime);
a stale same-name pod is a limitation, never evidence.
"""
from __future__ import annotations

from workload_diagnose.agent.evidence import kube as kev
from workload_diagnose.agent.model.limits import Limits
from workload_diagnose.agent.procedures.kit import evidence as ev
from workload_diagnose.agent.procedures.runai_failed import layers, tier2_node
from workload_diagnose.agent.procedures.kit.pod_identity import not_the_workloads_pod
from workload_diagnose.agent.evidence.common import ts
from workload_diagnose.agent.procedures.runai_failed.recurrence import Restarts
from workload_diagnose.agent.procedures.runai_failed.state import KubeEvidence, State
from workload_diagnose.agent.taxonomy import reads_node
from workload_diagnose.agent.taxonomy.signals.collective import RULE as COLLECTIVE_RULE


def collect(kube, limits: Limits, state: State) -> KubeEvidence:
    from workload_diagnose.tools.kube import KubeError

    out = KubeEvidence()
    st = state.status.data
    w = st.workload
    pods = state.pods.data if state.pods and state.pods.ok else []
    names = ev.names_of(st, pods)
    try:
        ns = _resolve_namespace(kube, w, out)
        if ns is None:
            return out
        out.namespace = ns
        reported = {p.name: p for p in pods}
        facts = []
        if not reported:
            found = kube.find_pods(ns, w.name)
            out.calls.append(f"kubectl get pods -n {ns} (workload {w.name})")
            facts = sorted(found, key=lambda p: p.name)[: limits.max_tier2_pods]
            if not facts:
                out.limitations.append(f"No pods of workload {w.name} were found in namespace {ns} (Tier 2).")
        else:
            for name in sorted(reported)[: limits.max_tier2_pods]:
                try:
                    facts.append(kube.get_pod(ns, name))
                except KubeError as e:
                    if e.kind != "not_found":
                        raise
                    out.limitations.append(f"Pod {name} no longer exists in namespace {ns}: kubectl describe pod "
                                           "evidence is missing for it.")
        facts = _the_workloads_pods(facts, reported, w, out)
        events = {pf.name: _collect_pod(kube, limits, pf, ns, names, out) for pf in facts}
        all_sigs = list(state.signals) + out.signals
        if facts and layers.applies(w.phase, all_sigs):
            out.layers = layers.walk(w.name, ns, state.request.now, facts, events)
        # node evidence: when the taxonomy says so (evidence of a category that reads the node, a verdict that
        # does: the termination is still unexplained and node conditions are one of the causes the skill names, or
        # a verdict whose signal a node fault would explain: an application's exit and the node's GPU), or when a
        # rank failed in a distributed collective (its peers' nodes may be why)
        if reads_node(all_sigs) or (out.log_line is not None and COLLECTIVE_RULE.rx.search(out.log_line)):
            read = {pf.name for pf in facts}
            placements = [(pf.node_name, ns, pf.name) for pf in facts]
            placements += [(p.nodeName, ns, p.name) for p in pods if p.nodeName and p.name not in read]
            tier2_node.collect(kube, placements, names, out)
    except KubeError as e:
        out.limitations.append(f"Tier 2 Kubernetes evidence unavailable ({e.kind}): {e.message}. Tier 1 evidence "
                               "only; no more specific category is inferred.")
    return out


def _resolve_namespace(kube, w, out: KubeEvidence) -> str | None:
    """The workload's reported namespace; ``runai-<project>`` only when it reports none (and then said so)."""
    if w.namespace:
        ns, why = w.namespace, "the namespace the workload reports"
    elif w.projectName:
        ns, why = f"runai-{w.projectName}", "runai-<project>: the workload reports no namespace"
    else:
        out.limitations.append("The workload reports neither a namespace nor a project; Tier 2 evidence was not "
                               "collected.")
        return None
    out.calls.append(f"kubectl get namespace {ns}")
    if not kube.namespace_exists(ns):
        out.limitations.append(f"Namespace {ns} ({why}) does not exist; Tier 2 evidence was not collected (no "
                               "other namespace is guessed).")
        return None
    if not w.namespace:
        out.lines.append(("kubectl get namespace", f"The workload reports no namespace; used {ns} "
                                                   "(runai-<project>, the Run:ai default)"))
    return ns


def _the_workloads_pods(facts: list, reported: dict, w, out: KubeEvidence) -> list:
    """Only the pods that are the ones Run:ai reported; each other one is a limitation (and read no further)."""
    kept = []
    for pf in facts:
        why = not_the_workloads_pod(pf, reported.get(pf.name), w)
        if why:
            out.calls.append(pf.source)
            out.limitations.append(why)
        else:
            kept.append(pf)
    return kept


def _collect_pod(kube, limits: Limits, pf, ns: str, names: list[str], out: KubeEvidence) -> list:
    """Describe one pod, its events and (when it crashed) its previous logs into ``out``; returns its events."""
    out.calls.append(pf.source)
    out.injections += list(getattr(pf, "injections", []) or [])
    psigs = kev.kube_pod_signals(pf, pf.source, names)
    out.signals += psigs
    for c in list(pf.init_containers or []) + list(pf.containers or []):
        mine = [s for s in psigs if s.obj == c.name and " terminated: " in s.text]
        if c.restart_count:
            out.restarts.append(Restarts(
                container=f"{pf.name}/{c.name}", count=c.restart_count, since=ts(pf.start_time or pf.created_at),
                last=[s.kind for s in mine if " last state terminated: " in s.text],
                current=[s.kind for s in mine if " state terminated: " in s.text and "last state" not in s.text]))
    for c in list(pf.init_containers or []) + list(pf.containers or []):
        req, lim = (c.requests or {}).get("memory"), (c.limits or {}).get("memory")
        if req or lim:
            out.lines.append((pf.source, f"Container {c.name} (pod {pf.name}) memory request/limit: "
                                         f"{req or 'not set'} / {lim or 'not set'}"))
    for c in list(pf.init_containers or []) + list(pf.containers or []):  # a termination message is its log's tail
        for msg in (c.terminated_message, c.last_terminated_message):
            out.signals += kev.log_fault_signals((msg or "").splitlines(), source=pf.source, node=pf.node_name,
                                                 what=f"The termination message of {c.name}")
    events = kube.pod_events(ns, pf.name)
    src_events = f"kubectl get events -n {ns} --field-selector involvedObject.name={pf.name}"
    out.calls.append(src_events)
    out.signals += kev.kube_event_signals(events, src_events, names)
    for e in events:
        out.injections += list(getattr(e, "injections", []) or [])
    # previous logs of the containers that crashed (never more than the configured bound)
    crashed = []
    for c in list(pf.init_containers or []) + list(pf.containers or []):
        code = c.last_exit_code if c.last_exit_code is not None else c.exit_code
        reason = (c.last_terminated_reason or c.terminated_reason or "").lower()
        if (code not in (None, 0) and reason != "oomkilled" and code not in (137, 143)) or \
                (c.waiting_reason or "") == "CrashLoopBackOff":
            crashed.append(c)
    for c in crashed[:2]:
        previous = c.last_exit_code is not None or c.state != "terminated"
        try:
            log = kube.previous_log(ns, pf.name, c.name, tail_lines=limits.log_tail_lines,
                                    limit_bytes=limits.log_limit_bytes, previous=previous)
        except Exception as e:  # KubeError or a missing previous container: a limitation, not a crash
            out.limitations.append(f"kubectl logs {pf.name} -n {ns} -c {c.name}{' --previous' if previous else ''} "
                                   f"failed: {getattr(e, 'message', e)}")
            continue
        out.calls.append(log.source)
        out.injections += list(getattr(log, "injections", []) or [])
        # a GPU hardware fault the container's own output reports (strict words only) is the node's: a signal
        out.signals += kev.log_fault_signals(log.lines, source=log.source, what=f"The log of {c.name}",
                                             node=pf.node_name)
        line = kev.failing_line(log.lines, is_init=bool(getattr(c, "is_init", False)))
        trunc = (f" (read {log.bytes_read} bytes: the log was cut at the configured bound of "
                 f"{limits.log_limit_bytes} bytes)") if log.truncated else ""
        if line:
            if out.log_line is None:
                out.log_line, out.log_source = line, log.source
            out.lines.append((log.source, f"Failing log line of {c.name}: \"{line}\"{trunc}"))
        elif log.lines:
            out.lines.append((log.source, f"Previous log of {c.name}: no error line in the last {len(log.lines)} "
                                          f"lines{trunc}"))
        else:
            out.lines.append((log.source, f"Previous log of {c.name} is empty"))
    return events
