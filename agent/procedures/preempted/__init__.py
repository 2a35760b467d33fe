"""Procedure ``preempted``: why was my workload preempted, and what do I do?

The answer to the failed-workload procedure's ``preempted`` route (``kit.routing``: its row's ``answered_by``):
the preemption notices in the workload's status and history, grouped into preemptions; each given a reason from
the taxonomy's fixed set (``agent.taxonomy.preemption``: priority preemption, fair-share reclaim, over-quota reclaim,
consolidation, Kueue preemption, or the fallback) from the scheduler's own wording and the quota figures; the
workload's priority and preemptibility; the project's deserved vs allocated GPUs per node pool; who preempted it;
how often in the lookback; the owner and the recommendations of the reason's record.

``graph.py`` holds the steps; ``nodes.py`` one function per step; ``evidence.py`` the notices and facts;
``report.py`` Step 5's report.
"""
from __future__ import annotations

from workload_diagnose.agent.procedures.spec import Chat, Command, Intent, ProcedureSpec, Route, Tool

SPEC = ProcedureSpec(
    name="preempted",
    graph="workload_diagnose.agent.procedures.preempted.graph:build_graph",
    kind="runai",
    input="workload_diagnose.agent.procedures.preempted.state:PreemptedRequest",
    output="workload_diagnose.agent.model.preemption:PreemptionResult",
    report="workload_diagnose.agent.procedures.preempted.report:text_report",
    command=Command(name="preempted", help="Explain why one Run:ai workload was preempted and what to do "
                                           "(credentials: RUNAI_CLIENT_ID / RUNAI_CLIENT_SECRET)."),
    route=Route(path="/v1/preemptions", summary="Explain why one Run:ai workload was preempted",
                operation="preemption", tag="diagnoses", ok="The `preempted --json` object"),
    tool=Tool(name="diagnose_preempted_workload", title="Explain a preempted Run:ai workload",
              use="preempted Run:ai workloads",
              description="Why was this Run:ai workload preempted, and what to do? Give cluster_id and either "
                          "the workload id (workload_id), or its name and project (workload_name + project; the newest "
                          "match). "
                          "lookback: 90m, 36h, 7d, 2w; now: ISO 8601 to pin the clock; intent is not used. Returns "
                          "the reason (priority preemption, fair-share or over-quota reclaim, consolidation, Kueue "
                          "preemption, or unknown), its owner, each preemption with its preemptor, the project's "
                          "deserved vs allocated GPUs per node pool, recurrence and recommendations; reads only."),
    eval_cases=True,
    chat=Chat(
        topic="why {name} was preempted",
        intents=(Intent("preempted",
                        r"\bpre-?empt(?:ed|ion|ions|ing|s)?\b|\breclaimed\b",
                        ("why was my job preempted?", "who preempted train-7?", "how many times was it preempted?",
                         "was the preemption by a higher-priority job?", "my workload got reclaimed, why?",
                         "was train-7 reclaimed by fair share?"),
                        ("why did my job fail?", "should it be non-preemptible?", "why is it still pending?",
                         "is it preemptible?")),),
        answers=(("preempted", "{name} did not fail: it was preempted."),),
        reasons="workload_diagnose.agent.taxonomy.preemption:BY_NAME"),
)
