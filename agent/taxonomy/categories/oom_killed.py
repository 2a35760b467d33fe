"""Killed by the kernel's out-of-memory killer (the CPU-memory limit): OOMKilled / OOMKilling."""
from __future__ import annotations

from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.vocabulary import APP_OOM
from workload_diagnose.agent.taxonomy.record import Category, ChatWords, RecoContext, SignalRule
from workload_diagnose.tools.quantity import fmt_bytes

# Ray lists the OOM killer as one POSSIBLE cause of a worker's death, beside "ray stop --force" and a SIGSEGV: a
# list of possibilities is not a kill (verl-project/verl#472, hkust-nlp/simpleRL-reason#98)
_RAY_POSSIBLE_CAUSES = ("Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection "
                        "error code 2. End of file. There are some potential root causes. (1) The process is killed by "
                        "SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker "
                        "is crashed unexpectedly due to SIGSEGV or other unexpected errors.")

# The kernel OOM killer as system components word it, never a mention of it in prose ("worker was OOMKilled earlier"):
# the bare reason token as the whole message, "(OOMKilled)" / "reason: OOMKilled" after an exit code (kubectl
# describe pads "Reason:" with spaces), Run:ai's "Container <name> was OOM killed", and the kernel's own lines. The
# kernel's word beats the exit code: a terminated state with reason OOMKilled is an OOM kill even when its exit code
# says 0 or is missing, and the signal carries the code the message states (none when it states none), never an
# assumed 137.
KILLER = SignalRule(
    "oom.killer", Kind.OOM, exit_code_from_message=True,
    reasons=frozenset({"oomkilled", "oomkilling", "oomkill", "outofmemory"}),
    message=r"^\W*OOM[ -]?Kill(?:ed|ing)\W*$|\(\s*(?:reason\W{0,3})?OOM[ -]?Killed\s*\)|"
            r"\breason\b[\s:=]{0,20}OOM[ -]?Killed\b|\bcontainer\s+\S+\s+was\s+OOM[ -]?killed\b|"
            r"\bmemory cgroup out of memory\b|\bOut of memory: Kill(?:ed)? process\b|\bSystem OOM encountered\b",
    unless=APP_OOM,  # an application's out-of-memory exception is its own error (crash_app_error)
    true=(("OOMKilled", "Container trainer was OOM killed"), "OOMKilled", ("OOMKilled", "anything"),
          ("OOMKilling", "Memory cgroup out of memory: Killed process 4242 (python)"),
          "Container trainer was OOM killed", "terminated with exit code 137 (OOMKilled)",
          "Memory cgroup out of memory: Killed process 4 (python)", "System OOM encountered, victim process: python",
          ("OutOfMemory", "Pod was rejected: Node didn't have enough resource: memory"),
          # OOMKilled with exit code 0 (kubernetes/kubernetes#131530, kubectl describe pod, verbatim)
          "State:          Terminated\n  Reason:       OOMKilled\n  Exit Code:    0",
          ("OOMKilled", "Container trainer in pod p terminated with exit code 0"),
          # lastState.terminated of a restarted Ray head container (ray-project/kuberay#4287, verbatim)
          "containerID: containerd://0f30d47b321c9d9482bc6b78f2292196f7156194f5d2ea02b12eaeb2b395a1b3\n"
          "exitCode: 137\nfinishedAt: \"2025-12-17T10:56:44Z\"\nreason: OOMKilled\nstartedAt: "
          "\"2025-12-17T10:56:35Z\""),
    false=(("PodFailed", "worker was OOMKilled earlier, retrying shard"),
           ("PodFailed", "the OOMKilled pods were cleaned up"),
           ("PodFailed", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB; exit code 1"),
           ("PodFailed", "java.lang.OutOfMemoryError: Java heap space; exit code 1"),
           ("Started", "Started container oomkilled-trainer"), "terminated with exit code 137",
           _RAY_POSSIBLE_CAUSES,
           # exit 137 with reason Error is not an OOM kill by itself (kubernetes/kubernetes#122256, verbatim)
           "Last State: Terminated\n      Reason: Error\n      Exit Code: 137",
           # GPU memory in the CUDA allocator, not the kernel (concept-graphs/concept-graphs#5, verbatim)
           "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacty "
           "of 5.80 GiB of which 15.44 MiB is free."))

# Ray's memory monitor kills a worker before the kernel does, and says so with the usage against its threshold; the
# raylet summarises such kills. Both are direct host-memory kills (unlike Ray's list of possible causes above).
RAY_MEMORY_MONITOR = SignalRule(
    "oom.ray_memory_monitor", Kind.OOM, exit_code_from_message=True,
    message=r"\bTask was killed due to the node running low on memory\b|"
            r"\b[1-9]\d* Workers? \(tasks / actors\) killed due to memory pressure \(OOM\)",
    true=(  # real-stanford/flingbot#11 (verbatim)
          "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\nMemory on the "
          "node (IP: 192.168.0.107, ID: fc2befb2867ce88e73a8a45572c43a640751ae1f2b5e15bd8315f293) where the task "
          "(actor ID: f9cc340f5aef7b479d86345001000000, name=SimEnv.__init__, pid=4331, memory used=2.22GB) was "
          "running was 59.49GB / 62.58GB (0.950744), which exceeds the memory usage threshold of 0.95.",
          # WM-PO/WMPO#3 (verbatim)
          "(raylet) [2025-12-07 09:57:19,206 E 393463 393463] (raylet) node_manager.cc:3277: 2 Workers (tasks / "
          "actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: "
          "8289f87b78d161ae21bf723c7c57838345a56248dd48a2c3f0d5ac73, IP: 172.24.0.226) over the last time period."),
    false=(_RAY_POSSIBLE_CAUSES,
           "0 Workers (tasks / actors) killed due to memory pressure (OOM), 1 Workers crashed due to other reasons",
           "The actor is dead because its worker process has died. " + _RAY_POSSIBLE_CAUSES))


def recommend(c: RecoContext) -> list[str]:
    lim = fmt_bytes(c.memory_limit) if c.memory_limit is not None else "current"
    first = f"Profile memory and raise the {lim} limit with sufficient headroom before rerunning"
    if c.peak is not None:
        first += f" (observed peak {fmt_bytes(c.peak)})"
    return [first + ".", "Investigate batch size and dataloader growth; consider reducing batch size or using "
            "gradient checkpointing."]


CATEGORY = Category(
    "OOM_KILLED", 10, "killed by the out-of-memory killer", recommend, pod_failure=True, confirms_crash=True,
    rules=(KILLER, RAY_MEMORY_MONITOR),
    objects=frozenset({"Node"}),  # node-problem-detector reports kernel OOM kills on the Node
    needs_metrics=True,
    words=ChatWords(r"\boom|out\s+of\s+memory|memory", ("why not oom?", "not out of memory", "a memory problem"),
                    ("why not the image", "zoom")))
