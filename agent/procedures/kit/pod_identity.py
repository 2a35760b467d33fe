"""Is this Kubernetes pod the pod Run:ai reported? (Tier 2 reads a pod by name; names are reused.)

A pod named like the workload's may be a stale one from an earlier workload of the same name. It is the
workload's pod only if:

* both sides have a UID (Run:ai's pod ``id``, Kubernetes ``metadata.uid``) and they are the same; else
* its creation time lies inside the workload's lifetime: not before the workload was submitted (``createdAt``)
  and not after it ended (``completedAt``, when it has), allowing ``CLOCK_SKEW`` between the control plane's
  clock and the cluster's.

Anything else is not the workload's pod; the reason is one sentence, stated as a limitation.
"""
from __future__ import annotations

from datetime import timedelta

from workload_diagnose.agent.model.time import iso, parse_time

CLOCK_SKEW = timedelta(minutes=2)


def not_the_workloads_pod(pf, runai_pod, workload) -> str | None:
    """None when ``pf`` (tools.kube PodFacts) is the workload's pod, else why not (one sentence)."""
    where = f"Pod {pf.name} in namespace {pf.namespace} is not the workload's pod"
    unused = "; its Kubernetes evidence was not used."
    rid = (getattr(runai_pod, "id", None) or "").strip().lower() if runai_pod is not None else ""
    if rid and pf.uid:
        if pf.uid.strip().lower() == rid:
            return None
        return f"{where}: its UID {pf.uid} is not the UID Run:ai reports for it ({rid}){unused}"
    submitted, ended = parse_time(workload.createdAt), parse_time(workload.completedAt)
    created = pf.created_at
    if created is None or submitted is None:
        missing = "its creation time" if created is None else "the workload's submission time"
        return (f"Pod {pf.name} in namespace {pf.namespace} could not be confirmed as the workload's pod (no pod UID "
                f"from both Run:ai and Kubernetes, and {missing} is unknown){unused}")
    if created < submitted - CLOCK_SKEW:
        return f"{where}: created {iso(created)}, before the workload was submitted {iso(submitted)}{unused}"
    if ended is not None and created > ended + CLOCK_SKEW:
        return f"{where}: created {iso(created)}, after the workload ended {iso(ended)}{unused}"
    return None

