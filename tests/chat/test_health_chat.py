"""The chat answers "how is ml-team doing?" with the real ``health`` procedure (its spec's chat declaration), on a
bundled health scenario's world: the reply names the snapshot's state, and that state is the one the procedure
itself returns for the same scope (``health --json``)."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tests.chat.conftest import Conversation

SCEN = Path(__file__).resolve().parents[2] / "evals" / "scenarios" / "health"


def _case(name: str) -> tuple[dict, dict]:
    return (json.loads((SCEN / name / "world.json").read_text()), json.loads((SCEN / name / "case.json").read_text()))


@pytest.mark.parametrize("name", ["degraded-failed-recently", "attention-idle-gpus", "healthy-all-running"])
def test_how_is_the_project_doing_is_answered_by_health(saver, name):
    from workload_diagnose.agent.chat.parse import understand
    from workload_diagnose.evals.simulator import running_simulator

    world, case = _case(name)
    args, state = case["args"], case["expected"]["state"]
    project = args["project"]
    assert understand(f"how is {project} doing?").procedure == "health"
    with running_simulator(copy.deepcopy(world)) as sim:
        c = Conversation(sim, saver, args["now"])
        r = c.say(f"how is {project} doing?")
        assert r.needs_input and "cluster_id" in r.missing and c.requests == []  # asks which cluster, reads nothing
        r = c.say(f"cluster {args['cluster_id']}")
        assert not r.needs_input, r.reply
        assert r.diagnosis["state"] == state  # the procedure's own verdict, not the chat's
        assert r.reply.startswith(f"How {project} is doing:") and f"({state})" in r.reply, r.reply
        assert any("/api/v1/workloads" in p for p in c.requests)  # it read the listing
        assert "Option A" not in r.reply and "Report header" not in r.reply


def test_one_question_with_the_cluster_uuid(saver):
    """"how is P doing on <uuid>?": a project question names no workload, so its one UUID is the cluster."""
    from workload_diagnose.evals.simulator import running_simulator

    world, case = _case("degraded-failed-recently")
    args = case["args"]
    with running_simulator(copy.deepcopy(world)) as sim:
        c = Conversation(sim, saver, args["now"])
        r = c.say(f"how is {args['project']} doing on {args['cluster_id']}?")
        assert not r.needs_input and r.diagnosis["state"] == case["expected"]["state"], r.reply


def test_failure_words_stay_with_the_failed_diagnosis():
    from workload_diagnose.agent.chat.parse import understand

    assert understand("why did my job in ml-team fail?").procedure != "health"
    assert understand("is the cluster healthy?").procedure != "health"
