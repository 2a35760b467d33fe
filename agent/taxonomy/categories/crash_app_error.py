"""The main container exited non-zero without a system signal: the application's own error."""
from __future__ import annotations

import re
from datetime import timedelta

from workload_diagnose.agent.model.signals import Kind, Signal
from workload_diagnose.agent.taxonomy.record import Category, ChatWords, RecoContext, SignalRule, VerdictLike
from workload_diagnose.agent.taxonomy.signals.collective import COLLECTIVE, RULE as COLLECTIVE_RULE
from workload_diagnose.agent.taxonomy.hardware import gpu_fault_reported
from workload_diagnose.agent.taxonomy.vocabulary import APP_OOM, NONZERO, SIGKILL, SIGTERM, signal_name

_APP_OOM = re.compile(APP_OOM, re.IGNORECASE)
_QUOTED = re.compile(r'"([^"]{1,2000})"')
_STATED_EXIT = re.compile(r"^.{0,300}?\bexit(?:ed)?(?: with)? code \d{1,3}\s*:\s*", re.IGNORECASE)
_GPU_WORDS = re.compile(r"\bCUDA\b|\bGPU\b|\bHIP\b|\bcuda|\bdevice\b", re.IGNORECASE)


def _detail(message: str, code: int | None) -> str | None:
    """Which application out-of-memory error (for the recommendation), else the signal the exit code names."""
    m = _APP_OOM.search(message)
    if m:
        return "gpu_oom" if _GPU_WORDS.search(m.group(0)) or _GPU_WORDS.search(message) else "app_oom"
    return signal_name(code)


# How long after a node failure of the workload a rank's exit may be its symptom: a healthy rank blocks in its next
# collective until the watchdog's timeout aborts it, then exits; Kubernetes says a node is lost up to the node
# monitor's grace period (40 s) plus the not-ready/unreachable taints' default toleration (300 s) after it happened.
# So: the largest collective timeout the evidence states (a watchdog line's "Timeout(ms)=N"), else
# torch.distributed's default process-group timeout (30 min), plus a 10 min margin. A node failure earlier than that,
# or after the exit, did not end this run.
COLLECTIVE_TIMEOUT = timedelta(minutes=30)
DETECTION_MARGIN = timedelta(minutes=10)
_TIMEOUT_MS = re.compile(r"\bTimeout\(ms\)=(\d{1,10})\b")


def peer_window(signals: list[Signal]) -> timedelta:
    stated = [int(n) for s in signals for n in _TIMEOUT_MS.findall(s.text)]
    return (timedelta(milliseconds=max(stated)) if stated else COLLECTIVE_TIMEOUT) + DETECTION_MARGIN


RULES = (
    SignalRule("app_exit.exit_code", Kind.APP_EXIT, exit_codes=NONZERO - {SIGKILL, SIGTERM},
               unless_kinds=frozenset({Kind.INIT_FAILED}), detail=_detail,
               # a rank that exits after a node failure of the workload (its own node, or a peer's: NCCL/Gloo
               # timeouts, a rendezvous error, a connection reset by the lost peer) exits because of it
               yields_to_earlier=frozenset({Kind.NODE_FAILURE}), yields_within=peer_window,
               true=("Container x terminated with exit code 1", "torch.OutOfMemoryError: CUDA out of memory; exit code 1",
                     "java.lang.OutOfMemoryError: Java heap space; exit code 1", ("Error", "exitCode: 139")),
               false=("terminated with exit code 0", "terminated with exit code 137", "terminated with exit code 143",
                      "init container fetch-data exited with code 2", "Failed", "Error")),
)


def _collective_quote(c: RecoContext) -> str | None:
    """The failed collective to quote: the failing log line when it is one, else the words of a system message that
    carried one (never more than the matched statement)."""
    if c.log_line and COLLECTIVE_RULE.rx.search(c.log_line):
        return c.log_line
    for s in c.signals:
        if s.kind != COLLECTIVE:
            continue
        for said in _QUOTED.findall(s.text):  # the system message the signal quotes, from the statement's start
            if COLLECTIVE_RULE.rx.search(said):
                return _STATED_EXIT.sub("", said, count=1).strip()[:400]
    return None


def recommend(c: RecoContext) -> list[str]:
    codes = sorted({s.exit_code for s in c.signals if s.kind == Kind.APP_EXIT and s.exit_code is not None})
    out = []
    collective = _collective_quote(c)
    if collective:
        out.append(f"The rank failed in a distributed collective: \"{collective}\". This is usually the symptom of a "
                   "peer rank that died, hung or lost its node, or of the network between the ranks, not of this "
                   "rank's code: check the other ranks' pods and their nodes first (kubectl get pods -o wide, kubectl "
                   "describe node), then the network (rerun with NCCL_DEBUG=INFO; check NCCL_SOCKET_IFNAME and the "
                   "InfiniBand/RoCE links), and whether the collective timeout (Timeout(ms); init_process_group's "
                   "timeout) is shorter than the slowest step.")
        out.append("Only if every peer, node and the network were healthy: look in the code for a rank that stalls "
                   "or skips a collective (uneven data per rank, a conditional all-reduce), and fix it.")
    elif gpu_fault_reported(c.log_line):
        nodes = f" of node {', '.join(c.nodes)}" if c.nodes else ""
        out.append(f"The failing log line reports a GPU hardware fault ({gpu_fault_reported(c.log_line)}): "
                   f"\"{c.log_line}\". The application cannot cause or fix that. Have the administrator check the "
                   f"GPU{nodes} (the kernel log's NVIDIA Xid lines, nvidia-smi -q for ECC errors and remapped rows, "
                   "dcgm-exporter) and cordon and drain the node if it is faulty; resubmit on a healthy node. No "
                   "node-side evidence confirmed the fault, so the category stays the application's exit.")
        out.append("Only if the GPU is healthy: fix the code or configuration that made the container exit.")
    elif c.log_line:
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


def _limits(v: VerdictLike, c: RecoContext) -> list[str]:
    if c.log_line:
        return []
    return ["The failing log line is not available (needs kubectl logs --previous with Tier 2 access); no log "
            "line is quoted."]


CATEGORY = Category(
    "CRASH_APP_ERROR", 50, "the main container exited non-zero", recommend, pod_failure=True, confirms_crash=True, rules=RULES,
    tier2_reason=lambda v: "the failing log line: kubectl logs --previous",
    spec_lines=("Submitted image", "Submitted command", "Restart policy"), limitations=_limits,
    words=ChatWords(r"crash|app|code|bug|exit", ("why not a crash", "an app bug?", "not the exit code"),
                    ("why not oom",), after_specific=True))
