"""The skill as a LangGraph state machine. Read this file to see the procedure.

    START
      └─ resolve_workload            Step 1.1  cluster_id + Option A/B; Option B resolved by intent
          └─ get_workload_status     Step 1.2  (skipped when resolution already fetched it)
              └─ check_phase         Step 1.3–1.6  cluster mismatch · preemption · phase rule
                  ├─ report                         stop / route / needs_input
                  └─ ┬ inspect_spec                Step 2.1  get_workload_spec        ┐
                     ├ inspect_pods                Step 2.2  get_workload_pods        │ concurrent
                     ├ inspect_history             Step 3    get_workload_history     │
                     └ fetch_metrics (if needed)   Step 4    get_workload_metrics     ┘
                        └─ apply_history_rules     Step 3    episodes · preemption · recurrence input
                            ├─ report                         routed: preempted
                            └─ collect_conditional_evidence   Step 4  metrics · Tier 2 kubectl evidence
                                └─ classify_failure           Step 5  deterministic classifier
                                    └─ report                 Step 5  category first, cited evidence
"""
from __future__ import annotations

from functools import lru_cache

from langgraph.graph import END, START, StateGraph

from agent import nodes as n
from agent.state import State


@lru_cache(maxsize=1)
def build_graph():
    g = StateGraph(State)
    g.add_node("resolve_workload", n.resolve_workload)
    g.add_node("get_workload_status", n.get_workload_status)
    g.add_node("check_phase", n.check_phase)
    g.add_node("inspect_spec", n.inspect_spec)
    g.add_node("inspect_pods", n.inspect_pods)
    g.add_node("inspect_history", n.inspect_history)
    g.add_node("fetch_metrics", n.fetch_metrics)
    g.add_node("apply_history_rules", n.apply_history_rules)
    g.add_node("collect_conditional_evidence", n.collect_conditional_evidence)
    g.add_node("classify_failure", n.classify_failure)
    g.add_node("report", n.report)

    g.add_edge(START, "resolve_workload")
    g.add_conditional_edges("resolve_workload", lambda s: "report" if s.outcome else "get_workload_status",
                            ["report", "get_workload_status"])
    g.add_conditional_edges("get_workload_status", lambda s: "report" if s.outcome else "check_phase",
                            ["report", "check_phase"])
    g.add_conditional_edges("check_phase", n.fanout_after_phase,
                            ["report", "inspect_spec", "inspect_pods", "inspect_history", "fetch_metrics"])
    for branch in ("inspect_spec", "inspect_pods", "inspect_history", "fetch_metrics"):
        g.add_edge(branch, "apply_history_rules")
    g.add_conditional_edges("apply_history_rules", n.after_history, ["report", "collect_conditional_evidence"])
    g.add_edge("collect_conditional_evidence", "classify_failure")
    g.add_edge("classify_failure", "report")
    g.add_edge("report", END)
    return g.compile()
