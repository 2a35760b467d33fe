"""Procedure ``lifecycle``: the lifecycle-layer view of a Kueue / KubeRay run
(shared/seeds/taugrid-troubleshooting-by-lifecycle-layer.md): walk the ordered phases, name the first one that is
not done, its owner and the next action, and never blame a later layer.

``graph.py`` holds the steps; ``nodes.py`` one function per step; the phase rules (pure functions) are the kit's
(``agent.procedures.kit.layers``, shared with the Run:ai report's pod walk);
``report.py`` the text report; ``api.py`` the entry used by the command line and the tests.
"""
from __future__ import annotations

from workload_diagnose.agent.procedures.spec import Command, ProcedureSpec, Tool

SPEC = ProcedureSpec(
    name="lifecycle",
    graph="workload_diagnose.agent.procedures.lifecycle.graph:build_graph",
    kind="kube",
    input="workload_diagnose.agent.procedures.lifecycle.state:LifecycleRequest",
    output="workload_diagnose.agent.model.lifecycle:LifecycleResult",
    command=Command(name="lifecycle", impl="workload_diagnose.agent.entrypoints.lifecycle_cmd:lifecycle"),
    tool=Tool(name="lifecycle_status", title="Lifecycle status of a Kueue/KubeRay run", use="Kueue/KubeRay runs",
              description="Walk the lifecycle layers of one Kubernetes Job or RayJob (Submitted, Kueue admission, "
                          "RayCluster, pod scheduling, DRA, image pull, init, start, Ready, RayJob status) and name "
                          "the first one that is not done, its owner and the next action; reads only (KUBECONFIG).",
              impl="workload_diagnose.agent.procedures.lifecycle.api:status"),
)
