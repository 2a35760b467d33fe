"""The lifecycle-layer walk as a LangGraph state machine. Read this file to see the procedure.

    START
      └─ resolve_run        Submitted        the Job or RayJob (--kind auto: a RayJob's submitter Job → the RayJob)
          ├─ walk_phases                     neither exists: Submitted is pending, nothing else to read
          └─ read_queue     Kueue admission  discovery (served version), then Workloads by kueue.x-k8s.io/job-uid
                                         label, else owner references
              └─ read_raycluster  RayCluster  (RayJob only) status.rayClusterName
                  └─ read_pods    Pod scheduling … Ready   job-name= / ray.io/cluster= label
                      └─ read_submitter_pods  RayJob status  (RayJob only) KubeRay's submitter Job's pods
                      └─ read_claims   DRA allocation   the ResourceClaims the pods reference
                          └─ read_events               events of each object read
                              └─ walk_phases           the ordered phase rules (phases/)
                                  └─ profile           --run-profile: dcgm-exporter through the API
                                      └─ report        first incomplete layer on line one

Input: ``{"request": LifecycleRequest}``; output: ``{"result": LifecycleResult}``; the read-only source travels
as the run's context (``Context``). Reads are sequential: the walk is ordered and the tool calls keep one order.
"""
from __future__ import annotations

from functools import lru_cache

from langgraph.graph import END, START, StateGraph

from workload_diagnose.agent.procedures.lifecycle import nodes as n
from workload_diagnose.agent.procedures.lifecycle.context import Context
from workload_diagnose.agent.procedures.lifecycle.state import Input, Output, State


@lru_cache(maxsize=1)
def build_graph():
    g = StateGraph(State, context_schema=Context, input_schema=Input, output_schema=Output)
    g.add_node("resolve_run", n.resolve_run, destinations=("read_queue", "walk_phases"))
    g.add_node("read_queue", n.read_queue)
    g.add_node("read_raycluster", n.read_raycluster)
    g.add_node("read_pods", n.read_pods)
    g.add_node("read_submitter_pods", n.read_submitter_pods)
    g.add_node("read_claims", n.read_claims)
    g.add_node("read_events", n.read_events)
    g.add_node("walk_phases", n.walk_phases)
    g.add_node("profile", n.profile)
    g.add_node("report", n.report)
    g.add_edge(START, "resolve_run")
    for a, b in (("read_queue", "read_raycluster"), ("read_raycluster", "read_pods"), ("read_pods", "read_submitter_pods"),
                 ("read_submitter_pods", "read_claims"),
                 ("read_claims", "read_events"), ("read_events", "walk_phases"), ("walk_phases", "profile"),
                 ("profile", "report")):
        g.add_edge(a, b)
    g.add_edge("report", END)
    return g.compile()
