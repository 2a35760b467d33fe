"""Messages written by system components → signal kinds. Pure functions; no I/O. Shared by every procedure.

Only *structured* fields and messages written by system components (Run:ai control plane, kubelet, scheduler)
can produce a signal. Free text an attacker controls never does: container logs, termination messages, submit
commands and annotations are quoted in reports but never matched here, and before a system message is
matched, every quoted segment ("image refs", names) and every known user-chosen name (workload, project, pods,
containers) is scrubbed out of it, so a workload named ``oomkilled-preempted-by-x`` cannot steer the verdict.
"""
from __future__ import annotations

import re
from typing import Iterable

from agent.model.signals import Kind


# ------------------------------------------------------------------------------------------------ text rules
_QUOTED = re.compile(r'"[^"]{0,2000}"|\'[^\']{0,2000}\'|`[^`]{0,2000}`')

_R = lambda p: re.compile(p, re.IGNORECASE)  # noqa: E731

OOM_REASONS = {"oomkilled", "oomkilling", "oomkill", "outofmemory"}
# The kernel OOM killer as system components word it, never a mention of it in prose ("worker was OOMKilled earlier"):
# the bare reason token as the whole message, "(OOMKilled)" / "reason: OOMKilled" after an exit code, Run:ai's
# "Container <name> was OOM killed", and the kernel's own lines.
OOM_MSG = _R(r"^\W*OOM[ -]?Kill(?:ed|ing)\W*$|\(\s*(?:reason\W{0,3})?OOM[ -]?Killed\s*\)|\breason\W{0,3}OOM[ -]?Killed\b|"
             r"\bcontainer\s+\S+\s+was\s+OOM[ -]?killed\b|\bmemory cgroup out of memory\b|"
             r"\bOut of memory: Kill(?:ed)? process\b|\bSystem OOM encountered\b")
# An out-of-memory EXCEPTION raised by the application (CUDA/GPU or a runtime heap): an application error with its
# own recommendation, never a kernel OOM kill of the CPU-memory limit.
APP_OOM_MSG = _R(r"\bCUDA out of memory\b|\bCUDA error: out of memory\b|\bOutOfMemoryError\b|"
                 r"\bcudaErrorMemoryAllocation\b|\bCUDA_ERROR_OUT_OF_MEMORY\b|\bHIP out of memory\b|"
                 r"\bRESOURCE_EXHAUSTED: OOM\b|\bout of memory on (?:GPU|device)\b")
GPU_WORDS = _R(r"\bCUDA\b|\bGPU\b|\bHIP\b|\bcuda|\bdevice\b")
# Reasons of events that report progress (bound to a node, image pulled, container started). They never carry a
# failure, whatever their message says ("Successfully assigned ns/pod to spot-preempted-pool-7"); they do show that
# the pod is past scheduling.
PROGRESS_REASONS = {"scheduled", "pulling", "pulled", "created", "started", "successfulcreate",
                    "successfulattachvolume", "containersnotready"}
IMAGE_REASONS = {"errimagepull", "imagepullbackoff", "invalidimagename", "errimageneverpull", "imageinspecterror",
                 "registryunavailable"}
IMAGE_MSG = _R(r"\bErrImagePull\b|\bImagePullBackOff\b|\bfailed to pull (?:and unpack )?image\b|"
               r"\bback-off pulling image\b|\bInvalidImageName\b")
MOUNT_REASONS = {"failedmount", "failedattachvolume", "failedmapvolume", "volumemismatch"}
MOUNT_MSG = _R(r"\bFailedMount\b|\bFailedAttachVolume\b|\bMountVolume\.\w+ failed\b|\bunable to attach or mount\b|"
               r"persistentvolumeclaim \S* ?not found|\bpersistentvolumeclaim\b.*\bnot found\b|"
               r"\bsecret\b.*\bnot found\b.*\bmount|\bcouldn't find key\b|\bfailed to mount\b")
CONFIG_ERR_MSG = _R(r"\b(?:secret|configmap|persistentvolumeclaim)s? \S* ?not found\b|\bnot found\b")
INIT_MSG = _R(r"\bInit:(?:Error|CrashLoopBackOff|ExitCode)\b|\binit container\b.*\b(?:failed|exit(?:ed)? "
              r"(?:with )?(?:code|status)[:= ]*[1-9])")
CRASHLOOP_REASONS = {"crashloopbackoff"}
CRASHLOOP_MSG = _R(r"\bCrashLoopBackOff\b|\bback-off restarting failed container\b|\brestarting failed container\b")
NODE_REASONS = {"evicted", "taintmanagereviction", "nodenotready", "nodelost", "nodeshutdown", "nodenotschedulable",
                "nodeunreachable", "deletingnode", "removingnode", "terminatedbynodeshutdown"}
NODE_MSG = _R(r"\bnode\b.{0,80}\b(?:not ?ready|notready|unreachable|lost|shut ?down|was terminated)\b|"
              r"\bNodeNotReady\b|\bTaintManagerEviction\b|\bevict(?:ed|ing)\b.{0,60}\bnode\b|"
              r"\bnode\b.{0,60}\bevict|\bwas low on resource\b")
PREEMPT_REASONS = {"preempted", "preempting", "preemptionbyscheduler", "preemptionbykubescheduler",
                   "preemptedbyscheduler", "inclusterqueue", "incohortreclamation", "incohortfairsharing",
                   "incohortreclaimwhileborrowing"}
# "Preempted" / "preempted by" (the skill's words). The bare noun "preemption" is NOT a preemption: kube-scheduler's
# FailedScheduling message says "preemption: 0/12 nodes are available: No preemption victims found ...".
# ... and never a word inside a name ("spot-preempted-pool-7").
PREEMPT_MSG = _R(r"\bpreempted by\b|\bwas preempted\b|\bpreempted to\b|(?<![-./\w])preempted(?![-./\w])")
SCHED_REASONS = {"failedscheduling", "unschedulable", "nottriggerscaleup", "nonpreemptibleoverquota", "overlimit",
                 "insufficientresources", "notenoughresources", "pending"}
SCHED_MSG = _R(r"\bUnschedulable\b|\bFailedScheduling\b|\bInsufficient \S+|\bnot enough\b|\bquota\b|"
               r"\bno nodes? (?:are )?available\b|\bnodes are available\b|\bwaiting for resources\b")
POLICY_RULES = [
    ("idle timeout", _R(r"\bidle\b")),
    ("maximum duration", _R(r"\bmax(?:imum)?[ _-]?(?:duration|runtime)\b|\bMaxDuration|\bruntime limit\b|"
                            r"\bactiveDeadlineSeconds\b|\bDeadlineExceeded\b|\bwas active longer than\b|"
                            r"\btime ?limit\b")),
    ("manual stop", _R(r"\bstopped by\b|\bmanual(?:ly)? stop|\bstop(?:ped)? (?:was )?requested\b|"
                       r"\bStopRequested\b|\bUserStop|\buser[- ](?:initiated|requested) stop\b|\bstop command\b")),
    ("scheduling policy", _R(r"\bpolicy\b|\bPolicyViolation\b|\bWorkloadPolicy\b")),
]
EXIT_CODE_MSG = _R(r"\bexit(?:ed)?[ _]?(?:with )?(?:code|status)\b\W{0,3}(\d{1,3})\b|\bexitCode\W{0,3}(\d{1,3})\b")


def scrub(text: str | None, names: Iterable[str]) -> str:
    """Remove quoted segments and user-chosen names from a system message before it is matched."""
    if not text:
        return ""
    out = _QUOTED.sub(" ", text)
    # Case-sensitive: a name appears in a message exactly as it was written, and Kubernetes / Run:ai names are
    # lower-case, while the reason tokens systems write are not ("OOMKilled"). Ignoring case would let a workload
    # named "oomkilled" erase Run:ai's own phase message "OOMKilled" (scenario names/named-exactly-oomkilled).
    for n in sorted({n for n in names if n and len(n) >= 3}, key=len, reverse=True):
        out = re.sub(re.escape(n) + r"[\w./:-]*", " <name> ", out)
    return out


def image_pull_class(message: str) -> str:
    """Classify a registry error message (already scrubbed) into the recommendation it needs."""
    m = message.lower()
    if re.search(r"toomanyrequests|too many requests|rate limit|\b429\b", m):
        return "rate_limit"
    if re.search(r"repository does not exist or may require", m):
        return "missing_or_unauthorized"
    if re.search(r"unauthorized|authentication required|\bdenied\b|forbidden|\b401\b|\b403\b|"
                 r"no basic auth credentials|invalid username/password", m):
        return "authorization"
    if re.search(r"no such host|i/o timeout|connection refused|dial tcp|network is unreachable|tls handshake|"
                 r"connection reset|server misbehaving|context deadline exceeded|temporary failure in name", m):
        return "network"
    if re.search(r"manifest unknown|manifest for \S* ?not found|not found|name unknown|does not exist", m):
        return "missing_manifest"
    if re.search(r"invalidimagename|invalid reference format", m):
        return "invalid_name"
    return "unspecified"


def exit_code_from(message: str) -> int | None:
    m = EXIT_CODE_MSG.search(message or "")
    if not m:
        return None
    return int(m.group(1) or m.group(2))


def policy_kind(text: str) -> str | None:
    for name, rx in POLICY_RULES:
        if rx.search(text):
            return name
    return None


def kinds_from_reason_message(reason: str | None, message: str | None, names: Iterable[str]) -> list[tuple[Kind, str | None, int | None]]:
    """Map one (reason, message) pair written by a system component to signal kinds.

    Returns (kind, detail, exit_code) triples. The reason is a machine token; the message is scrubbed first.
    """
    r = (reason or "").strip().lower().replace(" ", "")
    if r in PROGRESS_REASONS:
        return [(Kind.POD_SCHEDULED, r, None)]
    msg = scrub(message, names)
    both = f"{reason or ''} {msg}"
    out: list[tuple[Kind, str | None, int | None]] = []
    if r in PREEMPT_REASONS or PREEMPT_MSG.search(msg):
        out.append((Kind.PREEMPTED, None, None))
        return out  # a preemption notice is about preemption, whatever else it mentions
    app_oom = APP_OOM_MSG.search(msg)
    if r in OOM_REASONS or (OOM_MSG.search(msg) and not app_oom):
        out.append((Kind.OOM, None, 137))
    if r in IMAGE_REASONS or IMAGE_MSG.search(both) or (r in {"failed", "backoff"} and "pull" in msg.lower()):
        out.append((Kind.IMAGE_PULL, image_pull_class(msg), None))
    if r in MOUNT_REASONS or MOUNT_MSG.search(both):
        out.append((Kind.MOUNT_FAILED, None, None))
    elif r == "createcontainerconfigerror" and CONFIG_ERR_MSG.search(msg) and re.search(
            r"secret|persistentvolumeclaim|configmap", msg, re.IGNORECASE):
        out.append((Kind.MOUNT_FAILED, "config", None))
    if INIT_MSG.search(both):
        out.append((Kind.INIT_FAILED, None, exit_code_from(msg)))
    if r in CRASHLOOP_REASONS or CRASHLOOP_MSG.search(both):
        out.append((Kind.CRASH_LOOP, None, None))
    if r in NODE_REASONS or NODE_MSG.search(both):
        out.append((Kind.NODE_FAILURE, r or None, None))
    if r in SCHED_REASONS or SCHED_MSG.search(both):
        out.append((Kind.SCHEDULING_WAIT, None, None))
    pk = policy_kind(both)
    if pk and not any(k == Kind.SCHEDULING_WAIT for k, _, _ in out):
        out.append((Kind.POLICY_STOP, pk, None))
    code = exit_code_from(msg)
    if code is not None and not any(k in (Kind.INIT_FAILED,) for k, _, _ in out):
        kinds = exit_code_kinds(code, is_init=False, oom=any(k == Kind.OOM for k, _, _ in out))
        if app_oom:  # the detail says which application OOM, for the recommendation
            oom = "gpu_oom" if GPU_WORDS.search(app_oom.group(0)) or GPU_WORDS.search(msg) else "app_oom"
            kinds = [(k, oom if k == Kind.APP_EXIT else d, c) for k, d, c in kinds]
        out.extend(kinds)
    return _dedupe(out)


def exit_code_kinds(code: int, *, is_init: bool, oom: bool) -> list[tuple[Kind, str | None, int | None]]:
    if code == 0:
        return []
    if is_init:
        return [(Kind.INIT_FAILED, None, code)]
    if code == 137:
        return [] if oom else [(Kind.EXIT_137, None, 137)]
    if code == 143:
        return [(Kind.SIGTERM, None, 143)]
    return [(Kind.APP_EXIT, signal_name(code), code)]


def signal_name(code: int) -> str | None:
    names = {129: "SIGHUP", 130: "SIGINT", 131: "SIGQUIT", 132: "SIGILL", 134: "SIGABRT", 135: "SIGBUS",
             136: "SIGFPE", 137: "SIGKILL", 139: "SIGSEGV", 141: "SIGPIPE", 143: "SIGTERM"}
    return names.get(code)


def _dedupe(items):
    seen, out = set(), []
    for it in items:
        if (it[0], it[1]) not in seen:
            seen.add((it[0], it[1]))
            out.append(it)
    return out


# ------------------------------------------------------------------------------------------------ provenance
# Events are evidence only when a system component emitted them about an object whose failure they can describe.
# An event from an application ("trainer-sidecar") or about a ConfigMap cannot decide a verdict. A missing source
# is accepted (several APIs omit it); a source that is present must be one of these components.
SYSTEM_SOURCES = re.compile(
    r"^(?:kubelet|default-scheduler|kube-scheduler|[\w-]*scheduler|runai(?:-[\w-]+)?|node-controller|"
    r"taint-eviction-controller|taint-controller|kernel-monitor|node-problem-detector|kube-controller-manager|"
    r"[\w-]+-controller|kueue(?:-[\w-]+)?|kuberay-operator|ray-operator|cluster-autoscaler|karpenter|"
    r"nvidia-[\w-]+|gpu-operator|attachdetach-controller|persistentvolume-controller|csi-[\w.-]+|[\w.-]+\.csi\.[\w.-]+)"
    r"(?:[/,][\w./-]*)?$", re.IGNORECASE)
_WORKLOAD_KINDS = re.compile(r"^(?:Pod|PodGroup|\w*Workload|\w*Job|RayCluster|ReplicaSet|Deployment|StatefulSet|"
                             r"LeaderWorkerSet|InferenceService)$")
# kinds an event about a Node or a PersistentVolumeClaim may support
_NODE_KINDS = frozenset({Kind.NODE_FAILURE, Kind.OOM, Kind.POD_SCHEDULED})  # node-problem-detector reports kernel OOM kills on the Node
_CLAIM_KINDS = frozenset({Kind.MOUNT_FAILED, Kind.SCHEDULING_WAIT})


def from_system(emitter: str | None) -> bool:
    return not (emitter or "").strip() or bool(SYSTEM_SOURCES.match(emitter.strip()))


def kinds_for_object(kinds: list[tuple[Kind, str | None, int | None]], object_kind: str | None):
    """Keep only the signal kinds an event about ``object_kind`` can support (None: the workload's own object)."""
    k = (object_kind or "").strip()
    if not k or _WORKLOAD_KINDS.match(k):
        return kinds
    allowed = _NODE_KINDS if k == "Node" else _CLAIM_KINDS if k in ("PersistentVolumeClaim", "PersistentVolume") \
        else frozenset()
    return [t for t in kinds if t[0] in allowed]
