"""A registered procedure as a project-health procedure would declare itself to the chat (``ProcedureSpec.chat``
with ``subject="project"``, intent rules with samples, its verdict field ``state`` and the records that define it),
for tests/chat/test_handoff.py: a real compiled graph that answers with the ``failed --json`` core fields and, like
a snapshot, names no workload (the project is the thread's)."""
from __future__ import annotations

from pydantic import BaseModel, Field

from workload_diagnose.agent.model.request import DiagnosisRequest
from workload_diagnose.agent.procedures.spec import Chat, Command, Intent, ProcedureSpec


class ProbeRequest(DiagnosisRequest):
    """A project on a cluster (the chat fills cluster_id, project, lookback and now)."""


class StateRecord:  # a verdict record as a project-health procedure keeps them: a name and its definition
    def __init__(self, definition: str):
        self.definition = definition


STATES = {"NEEDS_ATTENTION": StateRecord("at least one workload needs attention")}


class ProbeResult(BaseModel):
    outcome: str
    state: str | None = None
    workload: dict | None = None
    evidence: list[dict] = Field(default_factory=list)
    recommendations: list[str] = Field(default_factory=list)
    limitations: list[str] = Field(default_factory=list)
    question: str | None = None
    ignored_instructions: list[dict] = Field(default_factory=list)
    tool_calls: list[dict] = Field(default_factory=list)
    report: str = ""


class _State(BaseModel):
    request: ProbeRequest
    result: ProbeResult | None = None


def _answer(state: _State) -> dict:
    req = state.request
    return {"result": ProbeResult(
        outcome="diagnosed", state="NEEDS_ATTENTION",
        evidence=[{"source": "probe", "text": f"project {req.project} on cluster {req.cluster_id}"}],
        report=f"Report header: project {req.project}\n\nEvidence:\n- project {req.project} on cluster "
               f"{req.cluster_id} (source: probe)\n")}


def build_graph():
    from langgraph.graph import END, START, StateGraph

    g = StateGraph(_State)
    g.add_node("answer", _answer)
    g.add_edge(START, "answer")
    g.add_edge("answer", END)
    return g.compile()


SPEC = ProcedureSpec(
    name="project_probe", graph="tests.chat.project_procedure:build_graph", kind="runai",
    input="tests.chat.project_procedure:ProbeRequest", output="tests.chat.project_procedure:ProbeResult",
    command=Command(name="project-probe", help="(test only)"),
    chat=Chat(topic="how {name} is doing", subject="project", verdict="state",
              reasons="tests.chat.project_procedure:STATES",
              intents=(Intent("health", r"\bhow\s+is\s+(?:project\s+)?(?P<project>[A-Za-z0-9][A-Za-z0-9._-]*)\s+doing\b|"
                                        r"\bneed\s+attention\b",
                              ("how is ml-team doing?", "which of my workloads need attention?"),
                              ("how do I fix it?", "why did my job fail?")),)),
)
