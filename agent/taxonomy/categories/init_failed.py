"""An init container exited non-zero (its state in the pod, or a system message saying so).

Distributed jobs often gate their workers on a dependency in an init container (PyTorchJob/MPIJob workers run
``until nslookup <master>; do echo waiting for master; sleep 2; done``; a data-prep step waits for a dataset
service). When that dependency never comes up the init container fails or loops, and the fix is upstream: the
report names what it waited for, parsed from a system message or the init container's log tail (Tier 2) with the
patterns below, never guessed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.record import Category, ChatWords, RecoContext, SignalRule

RULES = (
    SignalRule("init.message", Kind.INIT_FAILED, on_reason_too=True, exit_code_from_message=True,
               message=r"\bInit:(?:Error|CrashLoopBackOff|ExitCode)\b|\binit container\b.*\b(?:failed|exit(?:ed)? "
                       r"(?:with )?(?:code|status)[:= ]*[1-9])",
               # the pod STATUS values of kubernetes.io "Debug Init Containers" (Init:Error, Init:CrashLoopBackOff)
               true=("Init:Error", ("PodInitializing", "Init:CrashLoopBackOff"),
                     "init container fetch-data exited with code 2", "init container download failed"),
               false=("init container fetch-data exited with code 0", "initializing the trainer",
                      ("Started", "Started init container fetch-data"),
                      # kubeflow/pytorch-operator#352: a worker still waiting for its master (Init:0/1) has not failed
                      "Init:0/1",
                      ("ContainersNotInitialized", "containers with incomplete status: [init-pytorch]"),
                      # kubeflow/pytorch-operator#348: the main container waits while the init container runs
                      'container "pytorch" in pod "jupyter-kernel-jxosi-worker-0" is waiting to start: '
                      'PodInitializing')),
)


@dataclass(frozen=True)
class Wait:
    """One way a log line or message says what an init container waited for: ``pattern``'s first group is the
    dependency, ``how`` says what was seen; true samples give that dependency, false samples give none."""
    pattern: str
    how: str
    true: tuple[tuple[str, str], ...]
    false: tuple[str, ...] = ()

    @property
    def rx(self) -> re.Pattern:
        return re.compile(self.pattern, re.IGNORECASE)


# most specific first: a DNS name or host:port beats a role word ("waiting for master")
WAITS: tuple[Wait, ...] = (
    Wait(r"nslookup: can't resolve '([^'()\s]+)'", "its DNS name did not resolve",
         # kubernetes.io "Debugging DNS Resolution" (busybox nslookup in a pod)
         true=(("nslookup: can't resolve 'kubernetes.default'", "kubernetes.default"),
               ("nslookup: can't resolve 'pytorch-master-0'", "pytorch-master-0")),
         # busybox prints this for the server even when the name resolves (kubernetes-the-hard-way DNS checks)
         false=("nslookup: can't resolve '(null)': Name does not resolve",)),
    Wait(r"server can't find ([^\s:]+): NXDOMAIN", "its DNS name did not resolve (NXDOMAIN)",
         # kubeflow/pytorch-operator#216 (nslookup in the worker's init container)
         true=(("** server can't find katib-suggestion-hyperband.kubeflow.svc.cluster.local: NXDOMAIN",
                "katib-suggestion-hyperband.kubeflow.svc.cluster.local"),)),
    Wait(r"dial tcp: lookup ([\w.-]+)(?: on [\d.:]+)?: no such host", "its DNS name did not resolve",
         true=(("dial tcp: lookup dataset-svc.data.svc on 10.96.0.10:53: no such host", "dataset-svc.data.svc"),)),
    Wait(r"Could not resolve host: ([\w.-]+)", "its DNS name did not resolve",
         # dask/dask-kubernetes#205 (a pod that cannot resolve the host it needs)
         true=(("fatal: unable to access 'https://github.com/dask/distributed/': Could not resolve host: github.com",
                "github.com"),)),
    Wait(r"wait-for-it(?:\.sh)?: timeout occurred after waiting \d+ seconds for ([\w.-]+:\d+)",
         "it never accepted connections before the timeout",
         # vishnubob/wait-for-it (wait-for-it.sh); chainguard-images wait-for-it README
         true=(("wait-for-it: timeout occurred after waiting 5 seconds for fake.doesnotexist:80",
                "fake.doesnotexist:80"),
               ("wait-for-it.sh: timeout occurred after waiting 120 seconds for dataset-svc:8080", "dataset-svc:8080")),
         false=("wait-for-it: fake.doesnotexist:80 is available after 0 seconds",)),
    Wait(r"Failed to connect to ([\w.-]+ port \d+)", "it refused or dropped the connection",
         true=(("curl: (7) Failed to connect to dataset-svc port 8080: Connection refused", "dataset-svc port 8080"),)),
    Wait(r"nc: bad address '([^'\s]+)'", "its DNS name did not resolve",
         true=(("nc: bad address 'pytorch-master-0'", "pytorch-master-0"),)),
    Wait(r"\bwaiting for (?!the condition\b)(?:the )?([A-Za-z][\w.-]*(?::\d+)?)", "the init container kept waiting for it",
         # kubeflow/pytorch-operator#333: until nslookup {{.MasterAddr}}; do echo waiting for master; sleep 2; done
         # kubernetes.io "Init Containers": until nslookup myservice...; do echo waiting for myservice; sleep 2; done
         true=(("waiting for master", "master"), ("waiting for myservice", "myservice")),
         false=("timed out waiting for the condition", "waiting 15 seconds")),
)


def waited_for(text: str | None) -> tuple[str, str] | None:
    """(the dependency, what was seen) from one log line or message, or None: the first pattern that matches."""
    for w in WAITS:
        m = w.rx.search(text or "")
        if m:
            return m.group(1).rstrip("."), w.how
    return None


def dependency_line(lines: list[str]) -> str | None:
    """The log line that best names what an init container waited for: the most specific pattern's last line."""
    for w in WAITS:
        hits = [ln.strip() for ln in lines if w.rx.search(ln)]
        if hits:
            return hits[-1][:400]
    return None


_BACKOFF = re.compile(r"\brestarting failed container ([a-z0-9][a-z0-9.-]*) in pod ([a-z0-9][a-z0-9.-]*)")
_NAMED = re.compile(r"^Init container ([^\s(]+) \(pod|\binit container ([a-z0-9][a-z0-9.-]*) (?:exited|failed|"
                    r"terminated)\b", re.IGNORECASE)


def init_containers(signals) -> list[str]:
    """The init containers the evidence names: Tier 2 states, system messages naming one, and the container a
    back-off restarts in a pod whose phase is Init:* (its main containers have not started yet)."""
    names: set[str] = set()
    init_pods = {s.obj for s in signals if s.kind == Kind.INIT_FAILED and "k8sPhase: Init:" in s.text}
    for s in signals:
        if s.kind == Kind.INIT_FAILED:
            m = _NAMED.search(s.text)
            if m:
                names.add(m.group(1) or m.group(2))
        else:
            m = _BACKOFF.search(s.text)
            if m and s.kind == Kind.CRASH_LOOP and (s.obj in init_pods or m.group(2) in init_pods):
                names.add(m.group(1))
    return sorted(names)


def recommend(c: RecoContext) -> list[str]:
    names = init_containers(c.signals)
    who = f"init container {', '.join(names)}" if names else "the init container"
    from_init = bool(c.log_line and c.log_source and any(f"-c {n}" in c.log_source for n in names))
    dep = waited_for(c.log_line) if from_init else None
    if dep is None:  # a system message that names the dependency
        dep = next((w for s in c.signals if s.kind == Kind.INIT_FAILED for w in [waited_for(s.text)] if w), None)
    if dep:
        target, how = dep
        return [f"The {who} was waiting for {target} ({how}; the line is cited above) and failed before it came up: "
                f"find out why {target} is not available - for a distributed job's master, the master pod's own "
                "status, events and service; for a data service, its pods and endpoints - and fix that first. "
                "Resubmitting unchanged will wait again."]
    coded = any(s.exit_code or _CODE.search(s.text) for s in c.signals if s.kind == Kind.INIT_FAILED)
    code = " (its exit code is cited above)" if coded else ""
    if from_init:
        return [f"Fix the setup step of {who} that its failing log line (cited above) shows{code}; if it was waiting "
                "for a dependency (the master of a distributed job, a dataset service), fix that dependency first. "
                "Then resubmit."]
    pods = sorted({m.group(1) or m.group(2) for s in c.signals if s.kind == Kind.INIT_FAILED
                   for m in [_POD.search(s.text)] if m})
    pod = pods[0] if len(pods) == 1 else "<pod>"
    logs = f"kubectl logs {pod} -c {names[0] if len(names) == 1 else '<init container>'} --previous"
    return [f"Read the logs of {who} ({logs}) and fix the failing setup step{code}; if it was waiting for a "
            "dependency (the master of a distributed job, a dataset service), fix that dependency first. Then "
            "resubmit."]


_CODE = re.compile(r"\bexit ?code\W{0,3}[1-9]", re.IGNORECASE)
_POD = re.compile(r"^Pod ([^\s;]+) k8sPhase: Init:|\(pod ([^\s)]+)\)")


CATEGORY = Category(
    "INIT_FAILED", 30, "an init container exited non-zero", recommend, pod_failure=True, rules=RULES,
    tier2_reason=lambda v: "the init container's state and logs",
    words=ChatWords(r"\binit", ("why not init?", "an initialisation error"), ("why not the image",)))
