from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

CL = "3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11"
NOW = "2026-11-20T12:00:00Z"
WID = "0b4e7c2a-1f3d-4e5a-8b6c-9d0e1f2a3b4c"


def workload(**kw) -> dict:
    w = {"id": WID, "name": "job-a", "type": "Training", "clusterId": CL, "projectName": "team",
         "namespace": "runai-team", "phase": "Failed", "phaseUpdatedAt": "2026-11-20T10:00:00Z",
         "createdAt": "2026-11-20T09:00:00Z", "k8sPhase": ""}
    w.update(kw)
    return w


def event(reason, message, at="2026-11-20T09:59:00Z", pod="job-a-0-0", typ="Warning"):
    return {"createdAt": at, "type": typ, "reason": reason, "message": message, "source": "kubelet",
            "involvedObject": {"kind": "Pod", "name": pod}}


def world(w: dict | None = None, *, events=(), pods=(), history=(), metrics=None, spec=None, **extra) -> dict:
    w = w or workload()
    d = {"workloads": [w], "events": {w["id"]: list(events) if events is not None else None},
         "pods": {w["id"]: list(pods)}, "history": {w["id"]: list(history)}}
    if metrics is not None:
        d["metrics"] = {w["id"]: metrics}
    if spec is not None:
        d["specs"] = {w["id"]: spec}
    d.update(extra)
    return d


@pytest.fixture
def run_world():
    """Run the real graph over real HTTP against a simulator serving ``world``; returns (result, requests)."""
    from workload_diagnose.agent.api import diagnose
    from workload_diagnose.evals.simulator import running_simulator

    def _run(wd: dict, **kw):
        args = {"cluster_id": CL, "workload_id": WID, "now": NOW, "use_kube": False}
        args.update(kw)
        with running_simulator(copy.deepcopy(wd)) as sim:
            res = diagnose(runai_url=sim.url, client_id=sim.client_id, client_secret=sim.client_secret,
                           retry_sleep=lambda s: None, **args)
            return res, list(sim.requests)

    return _run


from tests.services.postgres import postgres_dsn  # noqa: E402,F401  (a shared fixture: a throwaway PostgreSQL)
