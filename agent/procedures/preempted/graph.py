"""Why was my workload preempted, and what do I do? — as a LangGraph state machine. Read this file to see the
procedure.

    START
      └─ resolve_workload           Step 1.1  cluster_id + Option A/B (Option B: the newest exact match)
          └─ get_workload_status    Step 1.2  the workload and its recent events · the cluster check
              ├─ report                        missing parameters / no match / other cluster
              └─ read_history       Step 2    history records to the lookback cutoff
                  └─ find_preemptions Step 2  preemption notices in status + history
                      ├─ report                 none: not preempted (the failed-workload diagnosis answers)
                      └─ ┬ read_spec          Step 3  priority class, preemptibility, terminateAfterPreemption ┐
                         ├ read_quota         Step 3  the project's deserved vs allocated GPUs per pool      │ at once
                         └ lookup_preemptors  Step 3  who preempted it: their priority and type             ┘
                            └─ classify_preemptions Step 4  notices → preemptions → a reason each
                                └─ report           Step 5  reason and owner first, evidence, quota, recurrence

Input: ``{"request": PreemptedRequest}``; output: ``{"result": PreemptionResult}``; the sources and limits travel
as the run's context (the kit's ``Context``).
"""
from __future__ import annotations

from functools import lru_cache

from langgraph.graph import END, START, StateGraph

from workload_diagnose.agent.procedures.kit.context import Context
from workload_diagnose.agent.procedures.preempted import nodes as n
from workload_diagnose.agent.procedures.preempted.state import Input, Output, State

READS = ("read_spec", "read_quota", "lookup_preemptors")


@lru_cache(maxsize=1)
def build_graph():
    g = StateGraph(State, context_schema=Context, input_schema=Input, output_schema=Output)
    g.add_node("resolve_workload", n.resolve_workload, destinations=("get_workload_status", "report"))
    g.add_node("get_workload_status", n.get_workload_status, destinations=("read_history", "report"))
    g.add_node("read_history", n.read_history)
    g.add_node("find_preemptions", n.find_preemptions, destinations=(*READS, "report"))
    g.add_node("read_spec", n.read_spec)
    g.add_node("read_quota", n.read_quota)
    g.add_node("lookup_preemptors", n.lookup_preemptors)
    g.add_node("classify_preemptions", n.classify_preemptions)
    g.add_node("report", n.report)
    g.add_edge(START, "resolve_workload")
    g.add_edge("read_history", "find_preemptions")
    for read in READS:
        g.add_edge(read, "classify_preemptions")
    g.add_edge("classify_preemptions", "report")
    g.add_edge("report", END)
    return g.compile()
