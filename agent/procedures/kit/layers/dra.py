"""The DRA rule: whether the ResourceClaims the run's pods reference are allocated."""
from __future__ import annotations

from datetime import timedelta

from workload_diagnose.agent.model import lifecycle as lc
from workload_diagnose.agent.model.lifecycle import Phase
from workload_diagnose.agent.model.result import EvidenceLine
from workload_diagnose.agent.model.time import parse_time
from workload_diagnose.agent.procedures.kit.layers.common import (Snapshot, _containers, _ev, _events_cmd, _events_of, _md,
                                                      _phase, _pod_name, _reason_text, _st, _torn_down, _unreadable)

DRA_STUCK_AFTER = timedelta(seconds=30)


def claim_refs(s: Snapshot) -> list[str]:
    """ResourceClaim names the run's pods reference (pod ``spec.resourceClaims``; template-generated names from
    ``status.resourceClaimStatuses``), sorted and unique."""
    names: set[str] = set()
    for p in s.pods or []:
        generated = {c.get("name"): c.get("resourceClaimName") for c in _st(p).get("resourceClaimStatuses") or []}
        for rc in (p.get("spec") or {}).get("resourceClaims") or []:
            n = rc.get("resourceClaimName") or (rc.get("source") or {}).get("resourceClaimName") \
                or generated.get(rc.get("name"))
            if n:
                names.add(str(n))
            elif rc.get("resourceClaimTemplateName") or (rc.get("source") or {}).get("resourceClaimTemplateName"):
                names.add(f"(from template, for {_pod_name(p)}/{rc.get('name')})")
    return sorted(names)


def _device_plugin_gpus(s: Snapshot) -> bool:
    for p in s.pods or []:
        for c, _ in _containers(p, False):
            res = c.get("resources") or {}
            if any(str(k).endswith("/gpu") for k in {**(res.get("limits") or {}), **(res.get("requests") or {})}):
                return True
    return False


def _allocation_text(claim: dict) -> str:
    alloc = _st(claim).get("allocation") or {}
    results = ((alloc.get("devices") or {}).get("results")) or []
    devs = [f"{r.get('pool') or '?'}/{r.get('device') or '?'}" for r in results]
    return ",".join(devs) if devs else "allocated"


def dra_allocation(s: Snapshot) -> Phase:
    name = lc.DRA
    if s.kind is None:
        return _phase(name, "pending", "no run", "node-pool-owner")
    if s.pods is None:
        return _unreadable(name, "node-pool-owner", "pods")
    refs = claim_refs(s)
    if not refs:
        if not s.pods:
            td = _torn_down(s)
            if td:
                return _phase(name, "skipped", f"{td}; no ResourceClaims observed", "node-pool-owner")
            return _phase(name, "pending", "waiting for pods", "node-pool-owner")
        why = "GPUs requested through the device plugin, not DRA: expected, not a failure" \
            if _device_plugin_gpus(s) else "no ResourceClaims referenced by the pods"
        return _phase(name, "skipped", f"no ResourceClaims referenced; {why}", "node-pool-owner")
    if s.claims_error:
        return _phase(name, "active", f"{len(refs)} ResourceClaim(s) referenced; allocation not observed "
                                      f"({s.claims_error})", "node-pool-owner",
                      next_action=f"kubectl get resourceclaim -n {s.namespace}")
    allocated = 0
    parts: list[str] = []
    evidence: list[EvidenceLine] = []
    stuck = failing = missing = False
    blocked = ""
    for n in refs:
        claim = s.claims.get(n)
        src = f"kubectl get resourceclaim {n} -n {s.namespace} -o yaml"
        if claim is None:
            parts.append(f"{n}=not found")
            missing = True
            continue
        if _st(claim).get("allocation"):
            allocated += 1
            parts.append(f"{n}={_allocation_text(claim)}")
            evidence.append(_ev(src, f"allocated {_allocation_text(claim)}"))
            continue
        parts.append(f"{n}=allocating")
        created = parse_time(_md(claim).get("creationTimestamp"))
        age = (s.now - created) if created else None
        if age is not None and age > DRA_STUCK_AFTER:
            stuck = True
            evidence.append(_ev(src, f"no allocation {int(age.total_seconds())}s after creation"))
        # only evidence about this claim: its conditions and its own events
        for c in _st(claim).get("conditions") or []:
            if str(c.get("status")) in ("False", "Unknown"):
                t = _reason_text(c.get("reason") or c.get("type"), c.get("message"))
                evidence.append(_ev(src, f"condition {c.get('type')}={c.get('status')} {t}"))
                blocked = blocked or t
                failing = True
        for e in _events_of(s, "ResourceClaim", n):
            if str(e.get("type")) == "Warning":
                t = _reason_text(e.get("reason"), e.get("message"))
                evidence.append(_ev(_events_cmd(s, n), t))
                blocked = blocked or t
                failing = True
    detail = f"{allocated}/{len(refs)} allocated " + ", ".join(parts)
    if allocated == len(refs):
        return _phase(name, "done", detail, "node-pool-owner", evidence=evidence)
    if blocked:
        detail += f" reason={blocked}"
    hint = "allocation stuck past about 30 s usually means no matching GPU device: check ResourceSlices of the pool"
    action = (f"check ResourceSlice availability for the pool and the claim's device class (kubectl get "
              f"resourceclaim -n {s.namespace}; kubectl get resourceslices)")
    if missing:
        return _phase(name, "warning", detail, "node-pool-owner", hint="a referenced ResourceClaim does not exist",
                      next_action=f"kubectl get resourceclaim -n {s.namespace}: create the claim the pod names, or "
                                  "fix the pod's resourceClaims", evidence=evidence)
    if stuck or failing:
        return _phase(name, "warning", detail, "node-pool-owner", hint=hint, next_action=action, evidence=evidence)
    return _phase(name, "active", detail, "node-pool-owner", hint=hint, next_action=action, evidence=evidence)

