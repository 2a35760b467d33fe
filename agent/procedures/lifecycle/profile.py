"""``--run-profile``: current GPU evidence for the run's pods from dcgm-exporter, attributed by pod labels.

Missing exporter, labels, samples or permissions are ``unavailable`` with the reason, never 0. A sample counts for
the run only when both its namespace and its pod label match one of the run's pods.
"""
from __future__ import annotations

from workload_diagnose.agent.model.findings import Call, Limitation
from workload_diagnose.agent.procedures.kit import layers as ph
from workload_diagnose.agent.procedures.lifecycle.context import Context
from workload_diagnose.agent.procedures.lifecycle.state import State, Step
from workload_diagnose.tools.kube import KubeError

UTIL, FB_USED = "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED"
CUDA_REASON = ("dcgm-exporter's supported scalar metrics expose only aggregate device utilization, not compute "
               "PIDs or CUDA contexts, so utilization alone cannot identify a process or context")


def unavailable(reason: str) -> dict:
    return {"status": "unavailable", "reason": reason}


def _allocation(state: State) -> dict:
    claims = {n: c for n, c in state.claims.items() if c is not None}
    if not claims:
        return unavailable("the run references no DRA ResourceClaim (GPUs through the device plugin, or no pods)")
    out = []
    for n, c in sorted(claims.items()):
        alloc = (c.get("status") or {}).get("allocation") or {}
        results = (alloc.get("devices") or {}).get("results") or []
        out.append({"claim": n, "allocated": bool(alloc),
                    "devices": [f"{r.get('driver') or '?'}/{r.get('pool') or '?'}/{r.get('device') or '?'}"
                                for r in results]})
    return {"status": "observed", "claims": out}


def _stats(values: list[float], scale: float = 1.0, digits: int = 1) -> dict:
    vals = [v * scale for v in values]
    return {"status": "observed", "avg": round(sum(vals) / len(vals), digits), "max": round(max(vals), digits),
            "samples": len(vals)}


def run_profile(state: State, ctx: Context) -> dict:
    from workload_diagnose import guardrails

    from workload_diagnose.tools.kube.metrics import parse_prometheus, sample_pod

    m = ctx.metrics
    prof: dict = {"gpu_allocation": _allocation(state)}
    tele = ["gpu_devices", "gpu_utilization", "gpu_memory", "gpu_activity"]
    calls_before = len(ctx.kube.calls)
    lims: list[Limitation] = []

    def finish(reason: str | None, samples=None) -> dict:
        if reason:
            for k in tele:
                prof[k] = unavailable(reason)
        prof["cuda_compute_process"] = unavailable(CUDA_REASON)
        prof["requests"] = dict(m.requests) if m is not None else {"discovery": 0, "metrics": 0}
        clean, findings = guardrails.sanitize_value(prof)
        new_calls = [Call(step=Step.PROFILE, tool="kubernetes", request=c.request, status=c.status)
                     for c in ctx.kube.calls[calls_before:]]
        return {"run_profile": clean, "calls": new_calls, "injections": findings, "limitations": lims}

    if m is None:
        return finish("no metrics reader")
    m.requests.update(discovery=0, metrics=0)  # the bound is per refresh
    snap_ended = ph.run_ended(_snap(state))
    if snap_ended:
        return finish("the run has ended: no live GPU telemetry (allocation identity kept when still present)")
    pods = [p for p in state.pods or [] if (p.get("spec") or {}).get("nodeName")
            and (p.get("status") or {}).get("phase") == "Running"]
    if not pods:
        return finish("no running workload pod on a node")
    exporters, why = m.discover()
    if not exporters:
        lims.append(Limitation(step=Step.PROFILE, text=f"run profile: {why}"))
        return finish(why or "no dcgm-exporter pods found")
    by_node = {}
    for e in exporters:
        by_node.setdefault((e.get("spec") or {}).get("nodeName"), e)
    ns = state.request.namespace
    names = {(p.get("metadata") or {}).get("name") for p in pods}
    samples = []
    problems = []
    for node in sorted({(p.get("spec") or {}).get("nodeName") for p in pods}):
        exp = by_node.get(node)
        if exp is None:
            problems.append(f"no dcgm-exporter pod on node {node}")
            continue
        try:
            text = m.metrics(exp)
        except KubeError as e:
            problems.append(f"metrics from node {node} unavailable ({e.message})")
            continue
        for s in parse_prometheus(text, frozenset({UTIL, FB_USED})):
            sns, spod, _ = sample_pod(s)
            if sns == ns and spod in names:
                samples.append((node, s))
    lims += [Limitation(step=Step.PROFILE, text=f"run profile: {p}") for p in problems]
    util = [s for _, s in samples if s.name == UTIL]
    fb = [s for _, s in samples if s.name == FB_USED]
    if not samples:
        reason = "; ".join(problems) if problems else ("no dcgm-exporter sample carries this run's namespace and pod "
                                                       "labels (pod attribution needs DCGM_EXPORTER_KUBERNETES=true)")
        return finish(reason)
    devices = {}
    for node, s in samples:
        _, spod, cont = sample_pod(s)
        key = (spod, cont, s.labels.get("gpu"), s.labels.get("UUID"))
        devices[key] = {"pod": spod, "container": cont, "gpu": s.labels.get("gpu"), "uuid": s.labels.get("UUID"),
                        "node": node, "model": s.labels.get("modelName")}
    prof["gpu_devices"] = {"status": "observed", "devices": [devices[k] for k in sorted(devices, key=str)]}
    prof["gpu_utilization"] = _stats([s.value for s in util]) if util else unavailable(f"no {UTIL} sample")
    prof["gpu_memory"] = (_stats([s.value for s in fb], 1 / 1024, 2) | {"unit": "GiB"}) if fb \
        else unavailable(f"no {FB_USED} sample")
    if util:
        if any(s.value > 0 for s in util):
            activity = "active"
        elif fb and any(s.value > 0 for s in fb):
            activity = "idle now"
        else:
            activity = "idle" if fb else None
        prof["gpu_activity"] = {"status": "observed", "value": activity} if activity else unavailable(
            f"no {FB_USED} sample to tell idle from idle now")
    else:
        prof["gpu_activity"] = unavailable(f"no {UTIL} sample")
    return finish(None)


def _snap(state: State) -> ph.Snapshot:
    return ph.Snapshot(name=state.request.name, namespace=state.request.namespace, now=state.request.now,
                       kind=state.kind, job=state.job, rayjob=state.rayjob)
