"""What each category recommends, from the evidence that produced it (``RecoContext``). Pure functions."""
from __future__ import annotations

from dataclasses import dataclass

from agent.model.signals import Kind, Signal
from tools.quantity import fmt_bytes


@dataclass(frozen=True)
class RecoContext:
    signals: list[Signal]
    memory_limit: float | None
    peak: float | None
    restart_policy: str | None
    namespace: str | None
    log_line: str | None


def oom(c: RecoContext) -> list[str]:
    lim = fmt_bytes(c.memory_limit) if c.memory_limit is not None else "current"
    first = f"Profile memory and raise the {lim} limit with sufficient headroom before rerunning"
    if c.peak is not None:
        first += f" (observed peak {fmt_bytes(c.peak)})"
    return [first + ".", "Investigate batch size and dataloader growth; consider reducing batch size or using "
            "gradient checkpointing."]


_PULL = {
    "missing_manifest": "The registry reports the image or tag does not exist: fix the image name/tag (check it "
                        "was pushed) and resubmit.",
    "network": "The registry could not be reached (DNS/network): check registry DNS resolution, connectivity and "
               "proxy settings from the cluster nodes.",
    "authorization": "The registry refused access: correct the registry authentication (image pull secret or "
                     "credentials attached to the project) for this image.",
    "rate_limit": "The registry is rate limiting pulls (toomanyrequests): use an authenticated pull, a mirror or a "
                  "pull-through cache, or retry after the limit resets.",
    "missing_or_unauthorized": "The registry says the repository does not exist or needs authorization: first "
                               "verify the image name, then the registry credentials.",
    "invalid_name": "The image reference is not valid: fix the image name format.",
    "unspecified": "The registry error text was not available: read the pull error (kubectl describe pod) before "
                   "changing anything; do not assume a credential problem from ImagePullBackOff alone.",
}


def image_pull(c: RecoContext) -> list[str]:
    order = ["missing_manifest", "network", "authorization", "rate_limit", "missing_or_unauthorized",
             "invalid_name", "unspecified"]
    found = {s.detail for s in c.signals if s.kind == Kind.IMAGE_PULL and s.detail}
    specific = [k for k in order if k in found and k != "unspecified"]
    return [_PULL[k] for k in (specific or ["unspecified"])]


def init(c: RecoContext) -> list[str]:
    names = sorted({s.obj for s in c.signals if s.kind == Kind.INIT_FAILED and s.obj})
    who = f"init container {', '.join(names)}" if names else "the init container"
    return [f"Read the previous logs of {who} and fix the failing setup step (its exit code is cited above) "
            "before resubmitting."]


def mount(c: RecoContext) -> list[str]:
    ns = f" in namespace {c.namespace}" if c.namespace else ""
    return [f"Verify that the referenced PVC / secret / data source exists{ns}, is bound and accessible, and that "
            "the workload's data source definition names it correctly; then resubmit."]


def crash(c: RecoContext) -> list[str]:
    codes = sorted({s.exit_code for s in c.signals if s.kind == Kind.APP_EXIT and s.exit_code is not None})
    out = []
    if c.log_line:
        out.append(f"Fix the code or configuration indicated by the failing log line: \"{c.log_line}\".")
    else:
        out.append("Fix the application error that made the container exit; the failing log line was not "
                   "available (read kubectl logs --previous).")
    ooms = {s.detail for s in c.signals if s.kind == Kind.APP_EXIT and s.detail in ("gpu_oom", "app_oom")}
    if "gpu_oom" in ooms:
        out.append("The application ran out of GPU memory (a CUDA out-of-memory error, not a kernel OOM kill of the "
                   "CPU-memory limit): reduce the batch size or sequence length, enable activation checkpointing or "
                   "mixed precision, or request a GPU with more memory. Raising the CPU-memory limit will not help.")
    elif "app_oom" in ooms:
        out.append("The application raised an out-of-memory exception (not a kernel OOM kill): reduce its memory "
                   "use or raise its runtime heap limit.")
    if 127 in codes:
        out.append("Exit 127 means the command was not found: check the submitted command and the image's "
                   "PATH/entrypoint.")
    if 126 in codes:
        out.append("Exit 126 means the command is not executable: check file permissions in the image.")
    return out


def node(c: RecoContext) -> list[str]:
    nodes = sorted({s.obj for s in c.signals if s.kind == Kind.NODE_FAILURE and s.obj
                    and s.source.startswith("kubectl describe node")})
    out = []
    if (c.restart_policy or "").lower() == "onfailure":
        out.append("Restart policy is OnFailure: retry on a healthy node.")
    else:
        out.append("Resubmit the workload so it is placed on a healthy node.")
    out.append("Report the node failure" + (f" on {', '.join(nodes)}" if nodes else "")
               + " to the cluster administrator.")
    return out


def policy(c: RecoContext) -> list[str]:
    kinds = sorted({s.detail for s in c.signals if s.kind == Kind.POLICY_STOP and s.detail})
    pol = ", ".join(kinds) if kinds else "a scheduling policy"
    return [f"The workload was terminated by {pol}. If that was unintended, ask the administrator to review the "
            "policy; otherwise adjust the workload to fit it."]


def unknown(c: RecoContext) -> list[str]:
    return ["No direct failure signal was found. Collect container-level evidence (kubectl describe pod, kubectl "
            "logs --previous, kubectl get events) with read-only Kubernetes access and rerun the diagnosis."]
