"""``POST /v1/chat/{thread_id}/messages``: the ``ask --json`` object over HTTP, threads owned by their caller, and
one conversation served by two replicas that share a real PostgreSQL chat store (``WD_CHAT_POSTGRES_DSN``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from workload_diagnose.agent.api import diagnose
from tests.service.conftest import clear, reads
from tests.service.live import config_for, free_port, live_service, tokens

ROOT = Path(__file__).resolve().parents[2]


def _terminal(scenarios):
    """A scenario asked by workload id whose answer is a diagnosis (not a question back)."""
    for sc in scenarios.values():
        if sc.args.workload_id and sc.expected.outcome == "diagnosed":
            return sc
    pytest.skip("no diagnosed Option A scenario among the HTTP scenarios")


def _post(url: str, thread: str, message: str, headers: dict | None = None) -> httpx.Response:
    return httpx.post(f"{url}/v1/chat/{thread}/messages", json={"message": message}, headers=headers or {},
                      timeout=60)


def test_chat_asks_for_the_cluster_then_answers_with_the_failed_json_object(sim, scenarios, tmp_path, monkeypatch):
    monkeypatch.setenv("WD_CHAT_STORE", str(tmp_path / "chat.sqlite"))
    monkeypatch.delenv("WD_CHAT_POSTGRES_DSN", raising=False)
    sc = _terminal(scenarios)
    with live_service(config_for(sim)) as url:
        clear(sim)
        r = _post(url, "t-1", f"why did my workload {sc.args.workload_id} fail?")
        assert r.status_code == 200, r.text
        first = r.json()
        assert first["thread_id"] == "t-1" and first["needs_input"] is True and first["diagnosis"] is None
        assert first["missing"] == ["cluster_id"]
        assert not [p for _, p in reads(sim) if "/workloads" in p], "a workload was read before the cluster id"
        r = _post(url, "t-1", f"cluster {sc.args.cluster_id}")
        assert r.status_code == 200, r.text
        second = r.json()
    assert second["needs_input"] is False and second["thread_id"] == "t-1"
    want = diagnose(cluster_id=sc.args.cluster_id, workload_id=sc.args.workload_id, now=sc.args.now,
                    runai_url=sim.url, client_id=sim.client_id, client_secret=sim.client_secret, use_kube=False)
    got = second["diagnosis"]
    assert (got["outcome"], got["category"], got["route"]) == (want.outcome, want.category, want.route)
    assert (got["outcome"], got["category"]) == (sc.expected.outcome, sc.expected.category)


def test_a_preempted_workload_is_answered_by_the_preemption_diagnosis_over_http(sim, scenarios, service):
    """The failed diagnosis's route "preempted" is handed to the preempted procedure in the HTTP chat too: the
    ``diagnosis`` is the ``preempted --json`` object for the same workload (its verdict, workload and evidence: the
    service's clock is not pinned, so times in its texts differ), the reply its chat answer."""
    from workload_diagnose.agent.api import run_procedure

    sc = next((s for s in scenarios.values() if s.expected.route == "preempted" and s.args.workload_id), None)
    if sc is None:
        pytest.skip("no routed-to-preempted scenario among the HTTP scenarios")
    r = _post(service, "handoff-1", f"what killed workload {sc.args.workload_id} on cluster {sc.args.cluster_id}?")
    assert r.status_code == 200, r.text
    got = r.json()
    want = run_procedure("preempted", cluster_id=sc.args.cluster_id, workload_id=sc.args.workload_id,
                         runai_url=sim.url, client_id=sim.client_id,  # the service's clock: now is not pinned
                         client_secret=sim.client_secret, use_kube=False).model_dump(mode="json")
    assert set(got) == {"thread_id", "reply", "needs_input", "missing", "diagnosis", "usage"}  # the contract
    stable = ("outcome", "reason", "owner", "route", "workload", "evidence", "preemptions", "scheduling")
    assert got["needs_input"] is False and {k: got["diagnosis"][k] for k in stable} == {k: want[k] for k in stable}
    assert "did not fail: it was preempted." in got["reply"] and "skill" not in got["reply"]


def test_bad_chat_requests_are_422_and_read_nothing(sim, service):
    clear(sim)
    assert _post(service, "-starts-with-a-dash", "hi").status_code == 422
    assert _post(service, "x" * 65, "hi").status_code == 422
    r = httpx.post(f"{service}/v1/chat/t-2/messages", json={"message": "hi", "extra": 1}, timeout=30)
    assert r.status_code == 422
    r = httpx.post(f"{service}/v1/chat/t-2/messages", json={"message": ""}, timeout=30)
    assert r.status_code == 422
    assert reads(sim) == []


def test_a_thread_belongs_to_its_token(sim, scenarios, tmp_path, monkeypatch):
    """Token B using token A's thread id starts its own conversation: it never sees A's identifiers."""
    monkeypatch.setenv("WD_CHAT_STORE", str(tmp_path / "chat.sqlite"))
    monkeypatch.delenv("WD_CHAT_POSTGRES_DSN", raising=False)
    sc = _terminal(scenarios)
    texts, parsed = tokens(bot_a=(["*"], ["*"]), bot_b=(["*"], ["*"]))
    with live_service(config_for(sim, auth="tokens", tokens=parsed)) as url:
        a = {"Authorization": f"Bearer {texts['bot_a']}"}
        b = {"Authorization": f"Bearer {texts['bot_b']}"}
        assert _post(url, "shared", "hi").status_code == 401
        r = _post(url, "shared", f"why did my workload {sc.args.workload_id} fail?", a)
        assert r.json()["missing"] == ["cluster_id"]
        r = _post(url, "shared", f"cluster {sc.args.cluster_id}", b)  # B's own thread: no workload known
        body = r.json()
        assert r.status_code == 200 and body["needs_input"] is True and body["diagnosis"] is None
        assert "workload" in body["missing"]
        assert sc.args.workload_id not in json.dumps(body)


def _credentials(*pairs: tuple[str, str]) -> tuple:
    """(headers for each (name, token text), the WD_API_TOKENS document), every token scoped to everything."""
    import hashlib

    doc = {"tokens": [{"name": n, "sha256": hashlib.sha256(t.encode()).hexdigest(), "clusters": ["*"],
                       "projects": ["*"]} for n, t in pairs]}
    return (*({"Authorization": f"Bearer {t}"} for _, t in pairs), json.dumps(doc))


def test_a_thread_belongs_to_a_credential_not_to_a_name(sim, scenarios, tmp_path, monkeypatch):
    """Across a restart on one store: a rotated token that took the old one's name starts its own thread; the old
    credential, renamed, still continues its own."""
    from workload_diagnose.agent.service.config import parse_tokens

    monkeypatch.setenv("WD_CHAT_STORE", str(tmp_path / "chat.sqlite"))
    monkeypatch.delenv("WD_CHAT_POSTGRES_DSN", raising=False)
    sc = _terminal(scenarios)
    old, first = _credentials(("bot", "old-secret"))
    new, old_renamed, doc = _credentials(("bot", "new-secret"), ("bot-retired", "old-secret"))
    with live_service(config_for(sim, auth="tokens", tokens=parse_tokens(json.loads(first)))) as url:
        assert _post(url, "ops", f"why did my workload {sc.args.workload_id} fail?", old).json()["missing"] == [
            "cluster_id"]
    with live_service(config_for(sim, auth="tokens", tokens=parse_tokens(json.loads(doc)))) as url:  # restarted
        r = _post(url, "ops", f"cluster {sc.args.cluster_id}", new)
        body = r.json()
        assert r.status_code == 200 and body["diagnosis"] is None and "workload" in body["missing"]
        assert sc.args.workload_id not in json.dumps(body)
        mine = _post(url, "ops", f"cluster {sc.args.cluster_id}", old_renamed).json()
        assert mine["needs_input"] is False and mine["diagnosis"]["workload"]["id"] == sc.args.workload_id


def test_two_tokens_with_one_name_stop_the_service_at_start(tmp_path):
    from workload_diagnose.agent.service.config import ConfigError, parse_tokens

    _, _, doc = _credentials(("bot", "first-secret"), ("bot", "second-secret"))
    with pytest.raises(ConfigError, match="token name 'bot' is used twice"):
        parse_tokens(json.loads(doc))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WD_", "RUNAI_"))}
    p = subprocess.run([sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", "serve", "--port", str(free_port())],
                       env={**env, "WD_API_TOKENS": doc}, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "used twice" in lines[0] and "Traceback" not in p.stderr


def _serve(port: int, sim, dsn: str, **extra: str) -> subprocess.Popen:
    env = {**os.environ, "RUNAI_BASE_URL": sim.url, "RUNAI_CLIENT_ID": sim.client_id,
           "RUNAI_CLIENT_SECRET": sim.client_secret, "WD_KUBE": "off", "WD_CHAT_POSTGRES_DSN": dsn, **extra}
    env.pop("WD_CHAT_STORE", None)
    return subprocess.Popen([sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", "serve", "--port", str(port)],
                            env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _wait_ready(url: str, proc: subprocess.Popen) -> None:
    t_end = time.monotonic() + 60
    while time.monotonic() < t_end:
        if proc.poll() is not None:
            raise AssertionError(f"serve exited: {proc.stderr.read()}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError("serve did not start")


def test_two_replicas_serve_one_conversation_through_postgresql(sim, scenarios, postgres_dsn):
    """A's conversation continues on the other replica; B, with the same thread id, has its own there too."""
    sc = _terminal(scenarios)
    ports = free_port(), free_port()
    a, b, doc = _credentials(("bot-a", "replica-a-secret"), ("bot-b", "replica-b-secret"))
    procs = [_serve(p, sim, postgres_dsn, WD_API_TOKENS=doc) for p in ports]
    try:
        urls = [f"http://127.0.0.1:{p}" for p in ports]
        for u, p in zip(urls, procs):
            _wait_ready(u, p)
        first = _post(urls[0], "replicated", f"what killed my workload {sc.args.workload_id}?", a).json()
        assert first["needs_input"] is True and first["missing"] == ["cluster_id"]
        other = _post(urls[1], "replicated", f"cluster {sc.args.cluster_id}", b).json()
        assert other["diagnosis"] is None and sc.args.workload_id not in json.dumps(other)
        second = _post(urls[1], "replicated", f"cluster {sc.args.cluster_id}", a).json()  # the other replica
        assert second["needs_input"] is False, second
        assert (second["diagnosis"]["outcome"], second["diagnosis"]["category"]) == (sc.expected.outcome,
                                                                                      sc.expected.category)
        again = _post(urls[0], "replicated", "is it recurring?", a).json()  # a follow-up back on the first one
        assert again["needs_input"] is False and again["reply"]
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()


def test_an_unusable_store_is_a_503_that_names_no_server_path(sim, tmp_path, monkeypatch, caplog):
    """The caller learns the store is unavailable; the path and the errno text are in the service's log only."""
    import logging

    (tmp_path / "not-a-dir").write_text("x")
    bad = tmp_path / "not-a-dir" / "chat.sqlite"
    monkeypatch.setenv("WD_CHAT_STORE", str(bad))
    monkeypatch.delenv("WD_CHAT_POSTGRES_DSN", raising=False)
    caplog.set_level(logging.ERROR, logger="workload_diagnose.service")
    with live_service(config_for(sim)) as url:
        r = _post(url, "t-503", "hi")
    assert r.status_code == 503
    assert r.json() == {"detail": "the chat store is unavailable (the reason is in the service's log)"}
    for leak in (str(tmp_path), "not-a-dir", "chat.sqlite", "Not a directory", "Errno"):
        assert leak not in r.text
    assert str(bad) in caplog.text and "Not a directory" in caplog.text
