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

from workload_diagnose.agent.procedures.spec import Chat, Command, Intent, ProcedureSpec, Route, Tool

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
    needs=("fleet",),  # a project's listing; quota ("projects") is read when the source has it, else a limitation
    chat=Chat(
        topic="how {name} is doing",
        subject="project",
        verdict="state",
        reasons="workload_diagnose.agent.taxonomy.health_states:BY_NAME",
        intents=(Intent("health",
                        r"\bhow\s+(?:is|are)\s+(?:the\s+)?(?:project\s+)?(?P<project>[A-Za-z0-9][A-Za-z0-9._-]*"
                        r"[A-Za-z0-9])\s+(?:doing|going)\b|\bhow\s+(?:is|are)\s+(?:my|our)\s+(?:project|team|"
                        r"workloads|jobs)\s+(?:doing|going)\b|\bwhat(?:'s|\s+is)\s+(?:happening|going\s+on)\s+in\s+"
                        r"(?:my|our|the)\s+project\b|\bwhich\s+(?:of\s+(?:my|our)\s+)?(?:workloads?|jobs?)\s+"
                        r"needs?\s+(?:my\s+)?attention\b|\bproject(?:'s)?\s+health\b|\bhealth\s+of\s+(?:the\s+)?"
                        r"project\b",
                        ("how is ml-team doing?", "what is happening in my project?",
                         "which workload needs attention in ml-team?", "project health for ml-team on cluster gpu-east",
                         "how are my workloads doing?", "which of my jobs need attention?",
                         "what's going on in our project?"),
                        ("why did my job fail?", "why is it still pending?", "why was it preempted?",
                         "is the cluster healthy?", "it is healthy now", "how do I fix it?")),
                 Intent("healthy",
                        r"\bis\s+(?:the\s+)?project\s+(?P<project>[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])\s+"
                        r"(?:healthy|ok|okay|fine)\b",
                        ("is project vision healthy?", "is the project ml-team ok?"),
                        ("is the cluster healthy?", "is my job healthy?", "is project quota enough?")),
                 Intent("summary",
                        r"\b(?:summary|overview|status)\s+of\s+(?:the\s+)?project\s+(?P<project>[A-Za-z0-9]"
                        r"[A-Za-z0-9._-]*[A-Za-z0-9])\b|\b(?:summary|overview)\s+of\s+(?:all\s+)?(?:my|our)\s+"
                        r"(?:workloads|jobs|project)\b|\bhow\s+are\s+(?:all\s+)?(?:my|our|the)\s+(?:workloads|jobs)\b",
                        ("give me a summary of project nlp", "an overview of our workloads",
                         "status of the project ml-team", "how are all the jobs?"),
                        ("give me a summary of the failure", "what is the status of train-7?",
                         "why did my workload fail?"))),
    ),
)
