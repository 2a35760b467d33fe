"""The Run:ai failed-workload skill as a LangGraph state machine. Read this file to see the procedure.

    START
      └─ resolve_workload            Step 1.1  cluster_id + Option A/B; Option B resolved by intent
          └─ get_workload_status     Step 1.2  (skipped when resolution already read it)
              └─ check_phase         Step 1.3–1.6  cluster mismatch · preemption · phase rule
                  ├─ report                         stop / route / needs_input
                  └─ ┬ inspect_spec                Step 2.1  get_workload_spec        ┐
                     ├ inspect_pods                Step 2.2  get_workload_pods        │ concurrent
                     ├ inspect_history             Step 3    get_workload_history     │
                     └ fetch_metrics (if needed)   Step 4    get_workload_metrics     ┘
                        └─ apply_history_rules     Step 3    episodes · preemption · deferred phase rule
                            ├─ report                         routed: preempted / pending / running
                            └─ collect_conditional_evidence   Step 4  metrics · Tier 2 kubectl evidence · verdict
                                └─ classify_failure           Step 5  preemption in Tier 2 · recurrence
                                    └─ report                 Step 5  category first, cited evidence

Input: ``{"request": DiagnosisRequest}``; output: ``{"result": DiagnosisResult}``; the sources and limits travel
as the run's context (``Context``). Nodes that decide where to go return a ``Command`` (``nodes.py``).
"""
from __future__ import annotations

from functools import lru_cache

from langgraph.graph import END, START, StateGraph

from workload_diagnose.agent.procedures.runai_failed import nodes as n
from workload_diagnose.agent.procedures.kit.context import Context
from workload_diagnose.agent.procedures.runai_failed.state import Input, Output, State


@lru_cache(maxsize=1)
def build_graph():
    g = StateGraph(State, context_schema=Context, input_schema=Input, output_schema=Output)
    g.add_node("resolve_workload", n.resolve_workload, destinations=("get_workload_status", "check_phase", "report"))
    g.add_node("get_workload_status", n.get_workload_status, destinations=("check_phase", "report"))
    g.add_node("check_phase", n.check_phase, destinations=(*n.READS, "fetch_metrics", "report"))
    g.add_node("inspect_spec", n.inspect_spec)
    g.add_node("inspect_pods", n.inspect_pods)
    g.add_node("inspect_history", n.inspect_history)
    g.add_node("fetch_metrics", n.fetch_metrics)
    g.add_node("apply_history_rules", n.apply_history_rules, destinations=("collect_conditional_evidence", "report"))
    g.add_node("collect_conditional_evidence", n.collect_conditional_evidence)
    g.add_node("classify_failure", n.classify_failure, destinations=("report",))
    g.add_node("report", n.report)

    g.add_edge(START, "resolve_workload")
    for read in (*n.READS, "fetch_metrics"):
        g.add_edge(read, "apply_history_rules")
    g.add_edge("collect_conditional_evidence", "classify_failure")
    g.add_edge("report", END)
    return g.compile()
