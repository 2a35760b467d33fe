"""A chat turn as a LangGraph state machine, compiled with a checkpointer keyed by ``thread_id``:

    START
      └─ understand         redacted message → identifiers, intent, follow-up, scope (rules; optional LLM)
          └─ resolve_cluster  a cluster NAME → its id via GET /api/v1/clusters (exact name; else ask)
              ├─ ask          one question for exactly what is missing, or to confirm a value that
              │               would replace one the user gave                      (no workload read)
              ├─ diagnose     the thread's procedure (failed-workload, or one whose intent the words match),
              │               then the procedure a route is handed to (agent.chat.handoff)
              ├─ previous     "and the run before that?" → the previous terminal match, diagnosed
              ├─ answer       a follow-up from the stored result                  (no API call)
              ├─ fleet        a question about many workloads → the triage command (no workload read)
              ├─ route_out    out of scope → what it is and a concrete next step (no API call)
              └─ act          a request to change something → read-only answer    (no API call)
                  └─ finish   notes + reply (optional LLM rewording, validated)
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from langgraph.graph import END, START, StateGraph

from workload_diagnose.agent.chat import nodes as n
from workload_diagnose.agent.chat.state import ChatContext, ChatInput, ChatOutput, ChatState

BRANCHES = ("ask", "diagnose", "previous", "answer", "fleet", "route_out", "act")


def build_graph(checkpointer: Any):
    """The compiled conversation graph using ``checkpointer`` (compiled once per process, then copied)."""
    return _compiled().copy(update={"checkpointer": checkpointer})


@lru_cache(maxsize=1)
def _compiled():
    g = StateGraph(ChatState, context_schema=ChatContext, input_schema=ChatInput, output_schema=ChatOutput)
    g.add_node("understand", n.understand)
    g.add_node("resolve_cluster", n.resolve_cluster)
    for name in BRANCHES:
        g.add_node(name, getattr(n, name))
        g.add_edge(name, "finish")
    g.add_node("finish", n.finish)
    g.add_edge(START, "understand")
    g.add_edge("understand", "resolve_cluster")
    g.add_conditional_edges("resolve_cluster", n.decide, {b: b for b in BRANCHES})
    g.add_edge("finish", END)
    return g.compile()
