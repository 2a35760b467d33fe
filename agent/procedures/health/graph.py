"""What is happening in my project, and which workload needs attention? — as a LangGraph state machine. Read this
file to see the procedure.

    START
      └─ check_scope       cluster_id + a project or department, else a question (nothing read)
          ├─ report
          └─ ┬ read_listing   list_workloads: every workload of the scope, server-side filters, every page  ┐
             └ read_quota     find_project: the project's quota per node pool (deserved, limit, allocated)  ┘
                └─ diagnose   the attention rules (agent/taxonomy/attention_rules) over the listing; the
                   │          procedure that answers a candidate is run on it (failed, preempted), at most
                   │          max_diagnoses, through the registry
                   └─ report  the state, counts by phase, attention items with their verdict and next command,
                              failures by category, quota per node pool; every missing part a limitation

Input: ``{"request": HealthRequest}``; output: ``{"result": HealthResult}``; the sources and limits travel as the
run's context (the kit's ``Context``).
"""
from __future__ import annotations

from functools import lru_cache

from langgraph.graph import END, START, StateGraph

from workload_diagnose.agent.procedures.health import nodes as n
from workload_diagnose.agent.procedures.health.report import report
from workload_diagnose.agent.procedures.health.state import Input, Output, State
from workload_diagnose.agent.procedures.kit.context import Context


@lru_cache(maxsize=1)
def build_graph():
    g = StateGraph(State, context_schema=Context, input_schema=Input, output_schema=Output)
    g.add_node("check_scope", n.check_scope, destinations=("read_listing", "read_quota", "report"))
    g.add_node("read_listing", n.read_listing)
    g.add_node("read_quota", n.read_quota)
    g.add_node("diagnose", n.diagnose)
    g.add_node("report", report)
    g.add_edge(START, "check_scope")
    g.add_edge(["read_listing", "read_quota"], "diagnose")
    g.add_edge("diagnose", "report")
    g.add_edge("report", END)
    return g.compile()
