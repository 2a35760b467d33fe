"""Killed by the kernel's out-of-memory killer (the CPU-memory limit): OOMKilled / OOMKilling."""
from __future__ import annotations

from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.vocabulary import APP_OOM
from workload_diagnose.agent.taxonomy.record import Category, ChatWords, RecoContext, SignalRule
from workload_diagnose.tools.quantity import fmt_bytes

# The kernel OOM killer as system components word it, never a mention of it in prose ("worker was OOMKilled earlier"):
# the bare reason token as the whole message, "(OOMKilled)" / "reason: OOMKilled" after an exit code, Run:ai's
# "Container <name> was OOM killed", and the kernel's own lines.
KILLER = SignalRule(
    "oom.killer", Kind.OOM, exit_code=137,
    reasons=frozenset({"oomkilled", "oomkilling", "oomkill", "outofmemory"}),
    message=r"^\W*OOM[ -]?Kill(?:ed|ing)\W*$|\(\s*(?:reason\W{0,3})?OOM[ -]?Killed\s*\)|"
            r"\breason\W{0,3}OOM[ -]?Killed\b|\bcontainer\s+\S+\s+was\s+OOM[ -]?killed\b|"
            r"\bmemory cgroup out of memory\b|\bOut of memory: Kill(?:ed)? process\b|\bSystem OOM encountered\b",
    unless=APP_OOM,  # an application's out-of-memory exception is its own error (crash_app_error)
    true=(("OOMKilled", "Container trainer was OOM killed"), "OOMKilled", ("OOMKilled", "anything"),
          ("OOMKilling", "Memory cgroup out of memory: Killed process 4242 (python)"),
          "Container trainer was OOM killed", "terminated with exit code 137 (OOMKilled)",
          "Memory cgroup out of memory: Killed process 4 (python)", "System OOM encountered, victim process: python",
          ("OutOfMemory", "Pod was rejected: Node didn't have enough resource: memory")),
    false=(("PodFailed", "worker was OOMKilled earlier, retrying shard"),
           ("PodFailed", "the OOMKilled pods were cleaned up"),
           ("PodFailed", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB; exit code 1"),
           ("PodFailed", "java.lang.OutOfMemoryError: Java heap space; exit code 1"),
           ("Started", "Started container oomkilled-trainer"), "terminated with exit code 137"))


def recommend(c: RecoContext) -> list[str]:
    lim = fmt_bytes(c.memory_limit) if c.memory_limit is not None else "current"
    first = f"Profile memory and raise the {lim} limit with sufficient headroom before rerunning"
    if c.peak is not None:
        first += f" (observed peak {fmt_bytes(c.peak)})"
    return [first + ".", "Investigate batch size and dataloader growth; consider reducing batch size or using "
            "gradient checkpointing."]


CATEGORY = Category(
    "OOM_KILLED", 10, "killed by the out-of-memory killer", recommend, pod_failure=True, confirms_crash=True, rules=(KILLER,),
    objects=frozenset({"Node"}),  # node-problem-detector reports kernel OOM kills on the Node
    needs_metrics=True,
    words=ChatWords(r"\boom|out\s+of\s+memory|memory", ("why not oom?", "not out of memory", "a memory problem"),
                    ("why not the image", "zoom")))
