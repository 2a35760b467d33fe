"""Procedure ``runai_failed``: the Run:ai "diagnose a failed workload" skill (shared/seeds/runai-diagnose-failed-workload.md).

``graph.py`` holds the steps; ``nodes.py`` one function per step; ``report.py`` Step 5's report.
"""
from __future__ import annotations

from workload_diagnose.agent.procedures.spec import Command, ProcedureSpec, Route, Tool

SPEC = ProcedureSpec(
    name="runai_failed",
    graph="workload_diagnose.agent.procedures.runai_failed.graph:build_graph",
    kind="runai",
    input="workload_diagnose.agent.model.request:DiagnosisRequest",
    output="workload_diagnose.agent.model.result:DiagnosisResult",
    report="workload_diagnose.agent.procedures.runai_failed.report:text_report",
    command=Command(name="failed", help="Diagnose why one Run:ai workload failed (credentials: RUNAI_CLIENT_ID / "
                                        "RUNAI_CLIENT_SECRET)."),
    route=Route(path="/v1/diagnoses", summary="Diagnose one failed Run:ai workload", operation="diagnose",
                tag="diagnoses", ok="The `failed --json` object"),
    tool=Tool(name="diagnose_failed_workload", title="Diagnose a failed Run:ai workload", use="Run:ai workloads",
              description="Why did this Run:ai workload fail? Give cluster_id and either the workload's id "
                          "(workload_id) or its name and project (workload_name with project). intent: terminal (a "
                          "past failure) or active (a "
                          "current crash loop); lookback: 90m, 36h, 7d, 2w; now: ISO 8601 to pin the clock. Returns "
                          "the category, cited evidence, recurrence and recommendations; reads only."),
    eval_cases=True,
)
