"""Procedure ``pending``: why is my Run:ai workload still Pending? The answer to the failed-workload skill's
``pending_scheduling`` route (``kit.routing``: its row's ``answered_by``).

Only the scheduling-only case is this procedure's: a Pending workload whose pod is past scheduling or shows a
pod-start failure stays the failed diagnosis's (the skill's rule, ``kit.routing``), and the answer says so. The
reason comes from the messages the scheduler, Kueue or Run:ai wrote (``agent/taxonomy/pending_reasons``); the
figures that quantify it (requested vs the project's deserved and allocated quota per node pool, the pool's free
GPUs, its nodes vs the spec's constraints, how long it has waited) are read, never invented, and a missing one is
said to be missing.

``graph.py`` holds the steps; ``nodes.py`` one function per step; ``figures.py`` the figure reads;
``evidence.py`` the wait messages and figure lines; ``report.py`` the report.
"""
from __future__ import annotations

from workload_diagnose.agent.procedures.spec import Chat, Command, Intent, ProcedureSpec, Route, Tool

SPEC = ProcedureSpec(
    name="pending",
    graph="workload_diagnose.agent.procedures.pending.graph:build_graph",
    kind="runai",
    input="workload_diagnose.agent.procedures.pending.state:PendingRequest",
    output="workload_diagnose.agent.model.pending:PendingResult",
    command=Command(name="pending", help="Explain why one Run:ai workload is still Pending: the reason, its owner, "
                                         "the quota and capacity figures, what to do (credentials: "
                                         "RUNAI_CLIENT_ID / RUNAI_CLIENT_SECRET)."),
    route=Route(path="/v1/pending", summary="Explain why one Run:ai workload is still Pending", operation="pending",
                tag="diagnoses", ok="The `pending --json` object"),
    tool=Tool(name="diagnose_pending_workload", title="Why is a Run:ai workload still Pending?",
              use="Run:ai workloads waiting to be scheduled",
              description="Why is this Run:ai workload still Pending? Give cluster_id and either the workload "
                          "id (workload_id), or its name and project (workload_name + project); now: ISO 8601 to "
                          "pin the clock. "
                          "Returns the reason (quota, full node pool, no matching node, gang wait, waiting for "
                          "preemption, admission, unknown), its owner, the figures as read (requested vs the "
                          "project's deserved and allocated quota per node pool, free GPUs, how long it waited) "
                          "and what to do; a workload with a pod-start failure is pointed to the failed-workload "
                          "diagnosis. Reads only."),
    eval_cases=True,
    chat=Chat(
        topic="why {name} is still Pending",
        intents=(Intent("pending",
                        r"\bwhy\s+is\s+(?P<workload_name>[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])\s+(?:still\s+)?"
                        r"(?:pending|queued|waiting)\b|\bpending\b|\bnot\s+(?:being\s+|getting\s+|yet\s+)?"
                        r"scheduled\b|\bunschedulable\b|\bwaiting\s+(?:for|to\s+be)\s+(?:resources|gpus?|a\s+node|"
                        r"nodes|quota|scheduled|scheduling)\b|\bqueued\b|\b(?:in|out\s+of)\s+the\s+queue\b|"
                        r"\bstill\s+waiting\b|\bhas(?:n'?t|\s+not)\s+(?:been\s+)?scheduled\b",
                        ("why is it still pending?", "why is my workload pending?", "what's holding train-7 in the queue?",
                         "my job is not getting scheduled", "why is train-7 still waiting?",
                         "it has been queued for 3 hours"),
                        ("why did my job fail?", "why was it preempted?", "why is my inference latency so high?",
                         "it is waiting for me to answer")),),
        answers=(("pending_scheduling", "{name} has not failed: it is still Pending, waiting to be scheduled."),),
        reasons="workload_diagnose.agent.taxonomy.pending_registry:BY_NAME"),
)
