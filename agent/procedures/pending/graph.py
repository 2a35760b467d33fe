"""Why is a Run:ai workload still Pending? — as a LangGraph state machine. Read this file to see the procedure.

    START
      └─ resolve_workload        cluster_id + Option A/B (Option B: the newest Pending workload of that name)
          └─ get_workload_status the workload and its recent events
              └─ check_phase     cluster mismatch · not Pending · pod past scheduling or failing to start (the
                  │              failed diagnosis's: routed) · the wait messages of the status
                  ├─ report
                  └─ ┬ read_pods                      get_workload_pods                     ┐ concurrent
                     └ read_history (events: null)    get_workload_history (current episode) ┘
                        └─ check_pods    a pod past scheduling / failing to start → routed; else the reason:
                            │            the strongest wait message (agent/taxonomy/pending_reasons), else the
                            │            fallback
                            ├─ read_kube  (no Run:ai message names it) Tier 2: the pods' PodScheduled condition and
                            │             events, the lifecycle view's scheduling layer; Kueue → the lifecycle view
                            ├─ report                                                  (no figure needed)
                            └─ ┬ read_project     find_project: deserved / limit / allocated per pool  ┐
                               ├ read_node_pools  list_node_pools: phase, nodes                        │ only what
                               ├ read_capacity    get_node_pool_gpus: total / allocated / free GPUs    │ the reason
                               ├ read_spec        get_workload_spec: pools, node type, affinity, tolerations │ needs
                               └ read_nodes       list_nodes: status, taints, GPU type of the pool's nodes   ┘
                                  └─ report       the reason first, its owner, the figures as read, what to do

Input: ``{"request": PendingRequest}``; output: ``{"result": PendingResult}``; the sources and limits travel as the
run's context (the kit's ``Context``).
"""
from __future__ import annotations

from functools import lru_cache

from langgraph.graph import END, START, StateGraph

from workload_diagnose.agent.procedures.kit.context import Context
from workload_diagnose.agent.procedures.pending import nodes as n
from workload_diagnose.agent.procedures.pending.figures import READERS
from workload_diagnose.agent.procedures.pending.state import Input, Output, State

FIGURE_READS = tuple(f"read_{k}" for k in READERS)


@lru_cache(maxsize=1)
def build_graph():
    g = StateGraph(State, context_schema=Context, input_schema=Input, output_schema=Output)
    g.add_node("resolve_workload", n.resolve_workload, destinations=("get_workload_status", "report"))
    g.add_node("get_workload_status", n.get_workload_status, destinations=("check_phase", "report"))
    g.add_node("check_phase", n.check_phase, destinations=("read_pods", "read_history", "report"))
    g.add_node("read_pods", n.read_pods)
    g.add_node("read_history", n.read_history)
    g.add_node("check_pods", n.check_pods, destinations=(*FIGURE_READS, "read_kube", "report"))
    g.add_node("read_kube", n.read_kube, destinations=(*FIGURE_READS, "report"))
    for key, read in READERS.items():
        g.add_node(f"read_{key}", read)
        g.add_edge(f"read_{key}", "report")
    g.add_node("report", n.report)
    g.add_edge(START, "resolve_workload")
    g.add_edge("read_pods", "check_pods")
    g.add_edge("read_history", "check_pods")
    g.add_edge("report", END)
    return g.compile()
