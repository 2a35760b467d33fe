"""A small world for conversations: train-42 ran twice in ml-team (the newer run OOMKilled, the older one failed
to pull its image) and once in nlp (an application error)."""
from __future__ import annotations

from tests.conftest import CL, NOW, event, workload

NEW = "11111111-1111-4111-8111-111111111111"  # train-42 / ml-team, newest: OOMKilled
OLD = "22222222-2222-4222-8222-222222222222"  # train-42 / ml-team, older: image pull
NLP = "33333333-3333-4333-8333-333333333333"  # train-42 / nlp: exit 1
OTHER_CL = "9c9c9c9c-0000-4000-8000-000000000001"


def chat_world(**extra) -> dict:
    ws = [workload(id=NEW, name="train-42", projectName="ml-team", namespace="runai-ml-team",
                   phaseUpdatedAt="2026-11-20T10:00:00Z"),
          workload(id=OLD, name="train-42", projectName="ml-team", namespace="runai-ml-team",
                   phaseUpdatedAt="2026-11-19T10:00:00Z", createdAt="2026-11-19T09:00:00Z"),
          workload(id=NLP, name="train-42", projectName="nlp", namespace="runai-nlp",
                   phaseUpdatedAt="2026-11-20T09:00:00Z")]
    d = {"workloads": ws,
         "events": {NEW: [event("OOMKilled", "Container trainer was OOM killed", pod="train-42-0-0")],
                    OLD: [event("Failed", 'Failed to pull image "reg.example.com/t:v9": manifest unknown',
                                at="2026-11-19T09:59:00Z", pod="train-42-0-0"),
                          event("Failed", "Error: ErrImagePull", at="2026-11-19T09:59:01Z", pod="train-42-0-0")],
                    NLP: [event("BackOff", "Back-off restarting failed container", at="2026-11-20T08:59:00Z",
                                pod="train-42-0-0")]},
         "pods": {NEW: [{"name": "train-42-0-0", "nodeName": "gpu-node-7", "k8sPhase": "OOMKilled"}],
                  OLD: [], NLP: [{"name": "train-42-0-0", "nodeName": "gpu-node-2", "k8sPhase": "Error"}]},
         "history": {NEW: [], OLD: [], NLP: []},
         "clusters": [{"uuid": CL, "name": "gpu-east"}, {"uuid": OTHER_CL, "name": "gpu-west"}]}
    d.update(extra)
    return d


__all__ = ["CL", "NOW", "NEW", "OLD", "NLP", "OTHER_CL", "chat_world"]
