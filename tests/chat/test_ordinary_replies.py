"""Ordinary replies, through agent.chat.api.chat over real HTTP against the simulator: a project and a cluster NAME
after "on" in one answer, contractions that never become a workload name, identifiers that are never silently
replaced, "W on C", "NAME (project P, cluster C)", "wrong cluster: it's C2" after a cluster mismatch, a question
about many workloads, and the procedure's own question read as a question."""
from __future__ import annotations

import pytest

from workload_diagnose.agent.chat.parse import understand
from tests.chat.worlds import CL, NEW, NLP, OTHER_CL, chat_world


@pytest.mark.parametrize("text, want", [
    ("it's in ml-team on gpu-east", {"project": "ml-team", "cluster_name": "gpu-east", "workload_name": None}),
    ("that's in nlp", {"project": "nlp", "workload_name": None}),
    ("he's in project nlp", {"project": "nlp", "workload_name": None}),
    ("it's train-42", {"bare_token": "train-42", "workload_name": None}),
    ("workload train-42 on gpu-east keeps dying", {"workload_name": "train-42", "cluster_name": "gpu-east",
                                                   "intent": "active"}),
    ("is train-42 (project ml-team, cluster gpu-east) still failing?",
     {"workload_name": "train-42", "project": "ml-team", "cluster_name": "gpu-east"}),
    ("sorry, wrong cluster: it's gpu-west", {"cluster_name": "gpu-west", "correction": True, "workload_name": None}),
    (f"wrong cluster, it's {OTHER_CL}", {"cluster_id": OTHER_CL, "workload_name": None}),
    ("it ran on node dgx-01", {"cluster_name": None}),
    ("why are my jobs on cluster gpu-east failing today?", {"fleet": True, "cluster_name": "gpu-east",
                                                             "workload_name": None}),
    ("why did my job fail?", {"fleet": False}),
])
def test_what_a_reply_says(text, want):
    p = understand(text).model_dump()
    assert {k: p[k] for k in want} == want, text


def test_project_and_cluster_name_after_on_fill_both(conversation):
    c = conversation(chat_world())
    r = c.say("why did my training job train-42 crash?")
    assert r.missing == ["cluster_id", "project"]
    r = c.say("it's in ml-team on gpu-east")
    assert r.diagnosis["workload"]["id"] == NEW and r.diagnosis["workload"]["cluster_id"] == CL
    assert c.requests[0] == "/api/v1/clusters"


def test_contractions_never_become_the_workload(conversation):
    c = conversation(chat_world())
    r = c.say("why did train-42 fail?")
    assert r.missing == ["cluster_id", "project"]
    r = c.say("that's in nlp")  # a project, not a workload named "s": the name stays train-42
    assert r.missing == ["cluster_id"] and r.reply.startswith("Which cluster is it on?")
    r = c.say(f"it's on cluster {CL}")
    assert r.diagnosis["workload"]["id"] == NLP and r.diagnosis["workload"]["name"] == "train-42"


def test_a_given_identifier_is_replaced_only_when_confirmed(conversation):
    c = conversation(chat_world())
    r = c.say("why did train-42 crash? project ml-team")
    assert r.missing == ["cluster_id"]
    r = c.say("it's in nlp on gpu-east")  # answers the cluster, but also names another project: held, asked
    assert r.needs_input and r.diagnosis is None
    assert "project 'nlp' instead of 'ml-team'" in r.reply and c.requests == ["/api/v1/clusters"]
    r = c.say("no")  # keeps the project given first
    assert r.diagnosis["workload"]["id"] == NEW and r.diagnosis["workload"]["project"] == "ml-team"
    c2 = conversation(chat_world())
    c2.say("why did train-42 crash? project ml-team")
    c2.say("it's in nlp on gpu-east")
    r = c2.say("yes")
    assert r.diagnosis["workload"]["id"] == NLP and r.diagnosis["workload"]["project"] == "nlp"


def test_an_explicit_correction_replaces_at_once(conversation):
    c = conversation(chat_world())
    r = c.say("why did train-42 crash? project ml-team")
    r = c.say("no, project nlp, on cluster gpu-east")
    assert r.diagnosis["workload"]["id"] == NLP


def test_workload_on_cluster_and_the_parenthesis_form(conversation):
    c = conversation(chat_world())
    r = c.say("workload train-42 in ml-team on gpu-east keeps dying")  # the cluster, and an active symptom
    assert c.requests[0] == "/api/v1/clusters" and f"Cluster 'gpu-east' is {CL}." in r.reply
    assert r.needs_input and not r.missing and "No Running or Pending workload named 'train-42'" in r.reply
    assert any(q.startswith("/api/v1/workloads?filterBy=name%3D%3Dtrain-42") for q in c.requests[1:])
    c2 = conversation(chat_world())
    r = c2.say("why did train-42 fail? it's in nlp")
    r = c2.say("is train-42 (project ml-team, cluster gpu-east) still failing?")  # a whole question of its own
    assert not r.missing and c2.requests[0] == "/api/v1/clusters" and "instead of" not in r.reply
    assert "No Running or Pending workload named 'train-42' in project 'ml-team'" in r.reply


def test_wrong_cluster_after_a_mismatch_rediagnoses_the_same_workload(conversation):
    world = chat_world()
    world["workloads"][0] = {**world["workloads"][0], "clusterId": OTHER_CL}  # train-42/ml-team runs on gpu-west
    c = conversation(world)
    r = c.say(f"why did workload {NEW} fail on cluster gpu-east?")
    assert r.diagnosis["route"] == "cluster_mismatch" and "wrong cluster: it's" in r.reply
    r = c.say("sorry, wrong cluster: it's gpu-west")
    assert r.diagnosis["workload"]["id"] == NEW and r.diagnosis["workload"]["cluster_id"] == OTHER_CL
    assert r.diagnosis["route"] is None and r.diagnosis["category"] == "OOM_KILLED"


def test_a_question_about_many_workloads_points_to_triage(conversation):
    c = conversation(chat_world())
    r = c.say("why are my jobs on cluster gpu-east failing today?")
    assert "workload-diagnose triage --cluster-id gpu-east --since 24h" in r.reply
    assert not r.needs_input and r.diagnosis is None and c.requests == ["/api/v1/clusters"]
    r = c.say("which workloads failed in project nlp over the last 3 days?")
    assert "workload-diagnose triage --cluster-id gpu-east -p nlp --since 3d" in r.reply
    r = c.say("why did train-42 in ml-team fail?")  # the cluster named before is kept
    assert r.diagnosis["workload"]["id"] == NEW


def test_the_procedures_question_reads_as_a_question(conversation):
    c = conversation(chat_world())
    r = c.say(f"why did train-99 in project ml-team fail on cluster {CL}?")
    assert r.needs_input and r.reply.startswith("No terminal workload named 'train-99'")
    assert "Category:" not in r.reply and "needs_input" not in r.reply
    r = c.say("show the evidence")
    assert r.reply.startswith("No terminal workload named 'train-99'") and "Category:" not in r.reply
