"""Procedure ``health``: what is happening in my project (or department), and which workload needs attention?

A read-only snapshot of one scope on one cluster, in five parts: the listed workloads by phase, the workloads an
attention rule picks (``agent/taxonomy/attention_rules``: failed recently, crash-looping, preempted repeatedly,
pending long, idle GPUs), the recent failures by category (the failed-workload procedure's verdicts), the project's
quota per node pool, and the next action per item (the exact command of the procedure that answers it). The
overall state is one of ``agent/taxonomy/health_states.py``. No cause is asserted without the verdict of the
procedure that answers it; those run through the registry (``agent.procedures.run``), at most ``max_diagnoses``.

``graph.py`` holds the steps; ``nodes.py`` one function per step; ``report.py`` the result and report;
``state.py`` the request (``health_request``: the parameters of its route and tool).
"""
from __future__ import annotations

from workload_diagnose.agent.procedures.spec import Command, ProcedureSpec, Route, Tool

SPEC = ProcedureSpec(
    name="health",
    graph="workload_diagnose.agent.procedures.health.graph:build_graph",
    kind="runai",
    input="workload_diagnose.agent.procedures.health.state:HealthRequest",
    output="workload_diagnose.agent.model.health:HealthResult",
    params="workload_diagnose.agent.procedures.health.state:health_request",
    command=Command(name="health", impl="workload_diagnose.agent.entrypoints.health_cmd:health"),
    route=Route(path="/v1/health", summary="Summarise a Run:ai project's health: which workload needs attention",
                operation="health", tag="diagnoses", ok="The `health --json` object"),
    tool=Tool(name="summarise_project_health", title="How is a Run:ai project doing?",
              use="a project's (or department's) health: which workload needs attention",
              description="How is this Run:ai project doing? Give cluster_id and project (or department); "
                          "lookback: how far back a failure is recent; now: ISO 8601 to pin the clock; "
                          "max_diagnoses: per-workload diagnoses at most. Returns the state (HEALTHY, "
                          "NEEDS_ATTENTION, DEGRADED, UNDETERMINED), the workloads by phase, the workloads that need "
                          "attention (failed recently, crash-looping, preempted repeatedly, pending long, idle "
                          "GPUs) with their owner, the failed-workload diagnosis's categories, the quota per node "
                          "pool, and the exact command that answers each item. Reads only."),
    eval_cases=True,
)
