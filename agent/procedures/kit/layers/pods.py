"""The pod-level rules: scheduling, image pull, init containers, container start and readiness."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from workload_diagnose.agent.model import lifecycle as lc
from workload_diagnose.agent.model.lifecycle import Phase
from workload_diagnose.agent.model.result import EvidenceLine
from workload_diagnose.agent.procedures.kit.layers.common import (Snapshot, _assigned, _cond, _containers, _ev, _events_cmd,
                                                      _events_of, _job_condition_true, _last_term, _one_line, _phase,
                                                      _pod_cmd, _pod_name, _reason_text, _st, _state, _torn_down,
                                                      _true, _unreadable, run_succeeded)

IMAGE_PULL_FAILURES = frozenset({"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull",
                                 "RegistryUnavailable"})
CONTAINER_FAILURES = frozenset({"CrashLoopBackOff", "CreateContainerConfigError", "CreateContainerError",
                                "RunContainerError", "Error", "StartError", "ContainerCannotRun"})
NOT_STARTED = frozenset({"ContainerCreating", "PodInitializing"})


def _without_pods(s: Snapshot, name: str, owner: str = "researcher", waiting: str = "waiting for pods",
                  **pending: str) -> Phase:
    """A pod-level phase when no pods are listed: done/skipped once the run ended and its pods were removed,
    else pending (``pending`` carries the pending phase's hint/next_action)."""
    td = _torn_down(s)
    if td:
        return _phase(name, "done" if run_succeeded(s) else "skipped", td, owner)
    return _phase(name, "pending", waiting, owner, **pending)


@dataclass(frozen=True)
class _Container:
    """One container of one pod, with its current state (``waiting``/``running``/``terminated``) and its body."""

    pod: str
    name: object
    status: dict | None
    state: str | None
    body: dict

    @property
    def reason(self) -> str:
        return str(self.body.get("reason") or "")

    @property
    def last(self) -> dict | None:
        return _last_term(self.status)

    @property
    def failed_before(self) -> bool:
        """Its last termination was a non-zero exit."""
        last = self.last
        return bool(last) and last.get("exitCode") not in (None, 0)

    @property
    def exited_ok(self) -> bool:
        return self.state == "terminated" and self.body.get("exitCode") == 0

    @property
    def crashing(self) -> bool:
        """Terminated (when not :attr:`exited_ok`) or waiting after a container failure."""
        return self.state == "terminated" or (self.state == "waiting" and self.reason in CONTAINER_FAILURES)

    @property
    def restarts(self) -> object:
        return (self.status or {}).get("restartCount", 0)

    @property
    def waiting_text(self) -> str:
        return f"{self.name} {self.reason or self.state or 'not started'}"


def _each_container(s: Snapshot, init: bool) -> Iterator[_Container]:
    """The (init or main) containers of every pod, pod by pod, in spec order."""
    for p in s.pods or []:
        pn = _pod_name(p)
        for spec, cs in _containers(p, init):
            state, body = _state(cs)
            yield _Container(pn, spec.get("name"), cs, state, body)


class _Crashes:
    """The failing containers one rule found: an evidence line each, the first one's text and where it runs."""

    def __init__(self) -> None:
        self.evidence: list[EvidenceLine] = []
        self.first = ""
        self.where: tuple[str, str] | None = None

    def add(self, s: Snapshot, c: _Container, what: str, text: str) -> None:
        text += f", restarts={c.restarts}"
        self.evidence.append(_ev(_pod_cmd(s, c.pod), f"{what} {text}"))
        self.first = self.first or text
        self.where = self.where or (c.pod, str(c.name))

    def warning(self, s: Snapshot, name: str, detail: str, hint: str, fix: str) -> Phase:
        """The warning phase that sends the researcher to the first failing container's previous log."""
        pn, cn = self.where or ("?", "?")
        return _phase(name, "warning", f"{detail} reason={self.first}", "researcher", hint=hint,
                      next_action=f"kubectl logs {pn} -n {s.namespace} -c {cn} --previous; {fix}",
                      evidence=self.evidence)


def pod_scheduling(s: Snapshot) -> Phase:
    name = lc.SCHEDULING
    if s.kind is None:
        return _phase(name, "pending", "no run", "node-pool-owner")
    if s.pods is None:
        return _unreadable(name, "node-pool-owner", "pods", "pods")
    if not s.pods:
        return _without_pods(s, name, "node-pool-owner", "no pods observed yet",
                             hint="pods are created after admission (a suspended Job or RayJob has none)",
                             next_action="re-check the layers above; if they are done, check the job controller / "
                                         "KubeRay")
    assigned = [p for p in s.pods if _assigned(p)]
    detail = f"{len(assigned)}/{len(s.pods)} assigned to nodes"
    if len(assigned) == len(s.pods):
        nodes = sorted({(p.get("spec") or {}).get("nodeName") for p in s.pods})
        return _phase(name, "done", detail, "node-pool-owner",
                      evidence=[_ev(_pod_cmd(s, _pod_name(p)), f"node={(p.get('spec') or {}).get('nodeName')}")
                                for p in s.pods[:3]] if nodes else [])
    reason = ""
    evidence: list[EvidenceLine] = []
    for p in s.pods:
        if _assigned(p):
            continue
        pn = _pod_name(p)
        c = _cond(p, "PodScheduled")
        if c and str(c.get("status")) == "False":
            t = _reason_text(c.get("reason"), c.get("message"))
            evidence.append(_ev(_pod_cmd(s, pn), f"condition PodScheduled=False {t}"))
            reason = reason or t
        for e in _events_of(s, "Pod", pn):
            if str(e.get("reason")) in ("FailedScheduling", "SchedulingFailed", "FailedPreemption"):
                t = _reason_text(e.get("reason"), e.get("message"))
                evidence.append(_ev(_events_cmd(s, pn), t))
                reason = reason or t
    if reason:
        return _phase(name, "warning", f"{detail} reason={reason}", "node-pool-owner",
                      hint="node selector/affinity or taint mismatch, or no free GPU in the pool; if Kueue admission "
                           "is not done, re-check it first",
                      next_action="check node selectors, tolerations and free GPUs of the node pool (kubectl "
                                  f"describe pod {_pod_name(next(p for p in s.pods if not _assigned(p)))} -n "
                                  f"{s.namespace})", evidence=evidence)
    return _phase(name, "active", f"{detail}; the scheduler has not reported a reason yet", "node-pool-owner",
                  next_action="wait a little; if pods stay unassigned, check the scheduler and node pool capacity",
                  evidence=evidence)


def image_pull(s: Snapshot) -> Phase:
    name = lc.IMAGE_PULL
    if not s.pods:
        return _without_pods(s, name)
    assigned = [p for p in s.pods if _assigned(p)]
    if not assigned:
        return _phase(name, "pending", "waiting for pod scheduling", "researcher")
    evidence: list[EvidenceLine] = []
    failure = ""
    waiting_pull = 0
    pulled: set[str] = set()
    for p in assigned:
        pn = _pod_name(p)
        init_pending = False
        for is_init in (True, False):
            for spec, cs in _containers(p, is_init):
                state, body = _state(cs)
                reason = str(body.get("reason") or "")
                img = spec.get("image") or (cs or {}).get("image") or "?"
                if state == "waiting" and reason in IMAGE_PULL_FAILURES:
                    t = f"{spec.get('name')}={_reason_text(reason, body.get('message'))}"
                    evidence.append(_ev(_pod_cmd(s, pn), f"container {t} image={img}"))
                    failure = failure or t
                elif state in ("running", "terminated") or (state == "waiting" and reason not in NOT_STARTED
                                                            and reason):
                    pulled.add(str(img))  # the container has run (or is failing after its image was pulled)
                elif is_init or not init_pending:
                    # ContainerCreating / no status yet. A main container waiting on init (PodInitializing) is
                    # not an image-pull wait: it pulls after init completes.
                    if not (state == "waiting" and reason == "PodInitializing"):
                        waiting_pull += 1
                if is_init and not (state == "terminated" and body.get("exitCode") == 0):
                    init_pending = True
        for e in _events_of(s, "Pod", pn):
            if str(e.get("reason")) in ("Failed", "ErrImagePull", "ImagePullBackOff") and \
                    ("image" in str(e.get("message") or "").lower() or str(e.get("reason")) != "Failed"):
                evidence.append(_ev(_events_cmd(s, pn), _reason_text(e.get("reason"), e.get("message"))))
    if failure:
        return _phase(name, "warning", failure, "researcher",
                      hint="ErrImagePull/ImagePullBackOff: wrong image name or tag, registry credentials, or node "
                           "egress",
                      next_action="verify the image name and tag, the registry credentials (imagePullSecrets) and "
                                  "node egress to the registry; a wrong pinned tag is the researcher's, a broken "
                                  "shared image its owning team's", evidence=evidence)
    if waiting_pull:
        pulling = [e for p in assigned for e in _events_of(s, "Pod", _pod_name(p)) if e.get("reason") == "Pulling"]
        detail = _one_line(pulling[-1].get("message")) if pulling else "waiting for the kubelet to pull images"
        return _phase(name, "active", detail, "researcher", hint="byte-level pull progress is not exposed by the "
                                                                 "kubelet", evidence=evidence,
                      next_action="wait for the pull; if it does not progress, check the image size and node egress")
    imgs = sorted(pulled)
    detail = "available: " + (", ".join(imgs[:2]) + (f", +{len(imgs) - 2} more" if len(imgs) > 2 else "")
                              if imgs else "(none reported)")
    return _phase(name, "done", detail, "researcher", evidence=evidence)


def _exit_text(body: dict | None) -> str:
    if not body:
        return ""
    return f"exit {body.get('exitCode')} ({body.get('reason') or 'no reason'})"


def init_containers(s: Snapshot) -> Phase:
    name = lc.INIT
    if not s.pods:
        return _without_pods(s, name)
    total = done = 0
    waiting = ""
    crashes = _Crashes()
    for c in _each_container(s, init=True):
        total += 1
        if c.exited_ok:
            done += 1
            continue
        if c.crashing or c.failed_before:
            last = c.last
            crashes.add(s, c, "init container", f"{c.name} {c.reason or c.state}" + (
                f", last {_exit_text(last)}" if last else f" {_exit_text(c.body)}" if c.state == "terminated" else ""))
        elif not waiting:
            waiting = c.waiting_text
    if total == 0:
        return _phase(name, "skipped", "no init containers", "researcher")
    detail = f"{done}/{total} complete"
    if done == total:
        return _phase(name, "done", detail, "researcher")
    if crashes.first:
        return crashes.warning(s, name, detail, "the init step is crashing before the main container can start: an "
                                                "application problem, not an infrastructure one", "fix the init step")
    return _phase(name, "active", f"{detail} reason={waiting}" if waiting else detail, "researcher",
                  hint="storage mounts or a slow init step keep init running" if "mount" in waiting.lower() else None,
                  next_action="wait for init to finish; if it does not, read the init container's log",
                  evidence=crashes.evidence)


def container_start(s: Snapshot) -> Phase:
    name = lc.CONTAINER_START
    if not s.pods:
        failed = _job_condition_true(s.job, "Failed") if s.kind == "Job" else None
        if failed and _torn_down(s):  # a failed Job has no RayJob status phase: its failure must show on a listed phase
            return _phase(name, "warning", f"Job failed {_reason_text(failed.get('reason'), failed.get('message'))}; "
                                           "pods removed, so the container's own exit is not observable", "researcher",
                          next_action=f"kubectl describe job {s.name} -n {s.namespace}; read the logs of the next "
                                      "attempt before resubmitting",
                          evidence=[_ev(f"kubectl get job {s.name} -n {s.namespace} -o yaml",
                                        f"condition Failed=True {_reason_text(failed.get('reason'), failed.get('message'))}")])
        return _without_pods(s, name)
    total = started = 0
    blocked = ""
    crashes = _Crashes()
    for c in _each_container(s, init=False):
        total += 1
        last = c.last
        if c.state == "running" or c.exited_ok:
            started += 1
            if c.failed_before:
                crashes.evidence.append(_ev(_pod_cmd(s, c.pod), f"container {c.name} restarted after "
                                                                f"{_exit_text(last)}, restarts={c.restarts}"))
            continue
        if c.crashing:
            t = f"{c.name} {c.reason or c.state}" + (f", last {_exit_text(last)}" if last and c.state == "waiting"
                                                     else f" {_exit_text(c.body)}" if c.state == "terminated" else "")
            if c.state == "waiting" and c.body.get("message"):
                t += f": {_one_line(c.body.get('message'), 160)}"
            crashes.add(s, c, "container", t)
        elif not blocked and c.reason not in IMAGE_PULL_FAILURES:
            blocked = c.waiting_text
    if total == 0:
        return _phase(name, "pending", "container statuses not available", "researcher")
    detail = f"{started}/{total} started"
    if started == total:
        return _phase(name, "done", detail, "researcher", evidence=crashes.evidence)
    if crashes.first:
        return crashes.warning(s, name, detail, "the application is crashing before it becomes ready: an application "
                                                "problem, not an infrastructure one",
                               "fix the application or its configuration")
    return _phase(name, "active", f"{detail} reason={blocked}" if blocked else detail, "researcher",
                  hint="container startup is still waiting on image, volume, init or runtime setup"
                  if any(r in blocked for r in NOT_STARTED) else None,
                  next_action="wait for the containers to start; re-check the phases above if this does not move",
                  evidence=crashes.evidence)


def _pod_ready(p: dict) -> bool:
    return _st(p).get("phase") == "Succeeded" or _true(_cond(p, "Ready"))


def ready(s: Snapshot) -> Phase:
    name = lc.READY
    if not s.pods:
        return _without_pods(s, name)
    n_ready = sum(1 for p in s.pods if _pod_ready(p))
    detail = f"{n_ready}/{len(s.pods)} pods ready"
    if n_ready == len(s.pods):
        return _phase(name, "done", detail, "researcher")
    evidence: list[EvidenceLine] = []
    failed = ""
    for p in s.pods:
        if _pod_ready(p):
            continue
        pn = _pod_name(p)
        if _st(p).get("phase") == "Failed":
            failed = failed or f"{pn} Failed {_one_line(_st(p).get('reason'), 60)}".strip()
        c = _cond(p, "Ready")
        if c:
            evidence.append(_ev(_pod_cmd(s, pn), f"condition Ready={c.get('status')} "
                                                 f"{_reason_text(c.get('reason'), c.get('message'))}".strip()))
    if failed:
        return _phase(name, "warning", f"{detail} reason={failed}", "researcher",
                      next_action=f"kubectl describe pod {failed.split()[0]} -n {s.namespace}; read its logs",
                      evidence=evidence)
    running_unready = [p for p in s.pods if _st(p).get("phase") == "Running" and not _pod_ready(p)]
    hint = "containers are running but the readiness probe is not passing" if running_unready else None
    target = _pod_name(running_unready[0] if running_unready else next(p for p in s.pods if not _pod_ready(p)))
    return _phase(name, "active", detail, "researcher", hint=hint,
                  next_action=f"check the readiness probe and the application log (kubectl logs {target} -n "
                              f"{s.namespace})", evidence=evidence)

