"""No supported category: no direct signal (an unexplained exit 137 or 143 is said so, never guessed)."""
from __future__ import annotations

from workload_diagnose.agent.taxonomy.record import Category, ChatWords, RecoContext, VerdictLike


def recommend(c: RecoContext) -> list[str]:
    return ["No direct failure signal was found. Collect container-level evidence (kubectl describe pod, kubectl "
            "logs --previous, kubectl get events) with read-only Kubernetes access and rerun the diagnosis."]


def _tier2(v: VerdictLike) -> str:
    return "exit 137 is unexplained" if v.unresolved_137 else "Tier 1 evidence gives no category"


def _limits(v: VerdictLike, c: RecoContext) -> list[str]:
    out = []
    if v.unresolved_137:
        out.append("Exit 137 (SIGKILL) was observed without OOMKilled: it stays unexplained — neither history, pod "
                   "events nor node conditions identified the cause, so it is not classified as OOM.")
    if v.sigterm:
        out.append("Exit 143 (SIGTERM) means the system stopped the container, but no eviction, policy or stop "
                   "evidence names why.")
    return out


# the fallback: no rules, last in precedence; node conditions are one of the causes it may still be
CATEGORY = Category(
    "UNKNOWN", 1000, "no supported category", recommend, tier2_reason=_tier2, reads_node=True, limitations=_limits,
    words=ChatWords(r"unknown", ("why unknown?",), ("why not oom",), after_specific=True))
