"""The conversation's state (one per ``thread_id``, kept by the checkpointer) and the run's context."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, TypedDict

from workload_diagnose.agent.chat.llm import Usage
from workload_diagnose.agent.llm_bounds import Budget, ModelBounds, bounded
from workload_diagnose.agent.model.limits import Limits

MAX_TRANSCRIPT = 40  # turns kept in the thread (redacted text only)


class ChatInput(TypedDict):
    message: str  # already redacted (agent.chat.api.chat)
    flagged: int  # instruction-like findings in the message


class ChatOutput(TypedDict, total=False):
    reply: str
    needs_input: bool
    missing: list[str]
    diagnosis: dict | None


class ChatState(ChatInput, ChatOutput, total=False):
    slots: dict  # cluster_id, cluster_name, cluster_given (the name a resolved id was given by), vague_cluster,
    # workload_id, workload_name, project, intent, lookback, pending (values held for a confirmation), procedure
    # (the one the user's words asked for: agent.chat.handoff)
    asked: list[str]  # what the last reply asked for (a bare answer fills the first)
    last: dict | None  # the last answer: exactly the ``--json`` object of the procedure that gave it
    procedure: str  # the registered procedure whose result ``last`` is
    answered: list[str]  # the procedures that ran for ``last``, in order (a route handed on to the next)
    leads: list[str]  # the line said for each hand-off before ``last``'s answer ("X did not fail: it was preempted.")
    diagnosed: list[str]  # workload ids diagnosed in this thread, in order
    transcript: list[dict]  # [{"role": "user"|"assistant", "text": ...}], redacted, bounded
    parsed: dict  # this turn's understanding
    changed: bool  # this turn changed what selects the diagnosis
    cluster_match: dict | None  # this turn's cluster-name lookup
    notes: list[str]  # said before the reply (ignored instructions, resolved cluster names)
    route: str  # ask | diagnose | answer | previous | fleet | route_out | act


@dataclass
class ChatContext:
    runai: Any  # a tools.runai.RunaiSource
    runai_ready: bool = True  # False when the source is not configured (a read is then a one-line error)
    runai_missing: str | None = None  # what it lacks, in one line (no URL; no client id / secret)
    kube: Any = None
    kube_unavailable: str | None = "no kubeconfig was given"
    now: str | None = None
    llm: Any = None
    progress: Callable[[str], None] | None = None
    limits: Limits = field(default_factory=Limits)
    deadline: Any = None  # the turn's tools.deadline.Deadline (its diagnosis's Tier-2 reads end by it too)
    usage: Usage = field(default_factory=Usage)
    budget: Budget = field(init=False)  # the turn's model time (agent.llm_bounds), its own, not the deadline's

    def __post_init__(self) -> None:
        if self.llm is not None:
            self.llm = bounded(self.llm)
        self.budget = Budget(self.llm.bounds if self.llm is not None else ModelBounds())

    def model_time(self):
        """A block in which the model runs: its time is not taken from the turn's Run:ai deadline."""
        import contextlib

        return self.deadline.excluding() if self.deadline is not None else contextlib.nullcontext()

    def step(self, message: str) -> None:
        if self.progress:
            self.progress(message)
