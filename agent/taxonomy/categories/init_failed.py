"""An init container exited non-zero (its state in the pod, or a system message saying so)."""
from __future__ import annotations

from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.record import Category, ChatWords, RecoContext, SignalRule

RULES = (
    SignalRule("init.message", Kind.INIT_FAILED, on_reason_too=True, exit_code_from_message=True,
               message=r"\bInit:(?:Error|CrashLoopBackOff|ExitCode)\b|\binit container\b.*\b(?:failed|exit(?:ed)? "
                       r"(?:with )?(?:code|status)[:= ]*[1-9])",
               true=("Init:Error", ("PodInitializing", "Init:CrashLoopBackOff"),
                     "init container fetch-data exited with code 2", "init container download failed"),
               false=("init container fetch-data exited with code 0", "initializing the trainer",
                      ("Started", "Started init container fetch-data"))),
)


def recommend(c: RecoContext) -> list[str]:
    names = sorted({s.obj for s in c.signals if s.kind == Kind.INIT_FAILED and s.obj})
    who = f"init container {', '.join(names)}" if names else "the init container"
    return [f"Read the previous logs of {who} and fix the failing setup step (its exit code is cited above) "
            "before resubmitting."]


CATEGORY = Category(
    "INIT_FAILED", 30, "an init container exited non-zero", recommend, pod_failure=True, rules=RULES,
    tier2_reason=lambda v: "the init container's state and logs",
    words=ChatWords(r"\binit", ("why not init?", "an initialisation error"), ("why not the image",)))
