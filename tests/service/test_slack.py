"""The Slack adapter over real HTTP: requests signed as Slack signs them (v0 HMAC-SHA256 of the timestamp and the
body), the reply posted by the official SDK to a local stand-in of Slack's API (a slash command's response_url,
chat.postMessage for a mention), in Block Kit built from the very result object POST /v1/diagnoses returns."""
from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlencode

import httpx
import pytest

from workload_diagnose.agent.model.lines import EvidenceLine
from workload_diagnose.agent.model.result import DiagnosisResult, WorkloadRef
from workload_diagnose.agent.service.auth import DENIED
from workload_diagnose.agent.service.routes.slack import USAGE, blocks
from tests.service.conftest import clear, reads
from tests.service.live import config_for, live_service, tokens

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
TEXTS, TOKENS = tokens(slack=(["*"], ["ml-team"]), admin=(["*"], ["*"]))


class SlackStandIn:
    """Slack's Web API (``/api/chat.postMessage``) and response URLs (``/hooks/...``), recording each call."""

    def __init__(self):
        self.calls: list[tuple[str, dict, dict]] = []
        self.arrived = threading.Event()
        outer = self

        class H(BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                ctype = self.headers.get("content-type", "")
                body = json.loads(raw) if "json" in ctype else dict(x.split("=", 1) for x in raw.decode().split("&"))
                outer.calls.append((self.path, dict(self.headers), body))
                outer.arrived.set()
                if self.path.startswith("/api/"):
                    out = json.dumps({"ok": True, "channel": body.get("channel"), "ts": "1733230000.000200"}).encode()
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                else:
                    out = b"ok"
                    self.send_response(200)
                    self.send_header("content-type", "text/plain")
                self.send_header("content-length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *a):
                pass

        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.srv.server_address[1]}"
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def wait(self, n: int, timeout: float = 60) -> list[tuple[str, dict, dict]]:
        deadline = time.monotonic() + timeout
        while len(self.calls) < n:
            assert time.monotonic() < deadline, f"Slack got {len(self.calls)} calls, expected {n}"
            time.sleep(0.05)
        return self.calls

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


@pytest.fixture(scope="module")
def slack():
    s = SlackStandIn()
    yield s
    s.close()


def signed(body: bytes, *, ts: int | None = None, secret: str = SECRET) -> dict:
    """The headers Slack sends: v0=HMAC-SHA256(secret, 'v0:{ts}:{body}') (Slack's published scheme)."""
    ts = int(time.time()) if ts is None else ts
    sig = hmac.new(secret.encode(), f"v0:{ts}:".encode() + body, hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": str(ts), "X-Slack-Signature": f"v0={sig}"}


def command(url: str, text: str, response_url: str, **kw) -> httpx.Response:
    body = urlencode({"token": "legacy", "team_id": "T0001", "channel_id": "C2147483705", "user_id": "U2147483697",
                      "command": "/diagnose", "text": text, "response_url": response_url,
                      "trigger_id": "13345224609.738474920.8088930838d88f008e0"}).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded", **signed(body, **kw)}
    return httpx.post(f"{url}/v1/slack/commands", content=body, headers=headers, timeout=30)


@pytest.fixture(scope="module")
def service_with_slack(sim, slack):
    cfg = config_for(sim, auth="tokens", tokens=TOKENS, slack_signing_secret=SECRET, slack_bot_token="xoxb-test",
                     slack_scope="slack", slack_api_url=f"{slack.url}/api/")
    with live_service(cfg) as url:
        yield url


def the_api(url: str, args) -> DiagnosisResult:
    body = {k: v for k, v in args.model_dump(exclude_none=True).items() if k != "now"}
    r = httpx.post(f"{url}/v1/diagnoses", json=body, headers={"Authorization": f"Bearer {TEXTS['admin']}"},
                   timeout=30)
    return DiagnosisResult.model_validate(r.json())


def _masked(obj) -> str:
    import re

    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "T", json.dumps(obj, sort_keys=True))


def test_a_slash_command_is_acknowledged_at_once_and_answered_in_block_kit(service_with_slack, slack, scenarios):
    args = scenarios["core/option-b-terminal"].args
    slack.calls.clear()
    hook = f"{slack.url}/hooks/commands/T0001/1234/abcd"
    t0 = time.monotonic()
    r = command(service_with_slack, f"name={args.workload_name} project={args.project} cluster={args.cluster_id}", hook)
    assert time.monotonic() - t0 < 3.0  # Slack's limit for the acknowledgement
    assert r.status_code == 200 and r.json()["response_type"] == "ephemeral" and "Diagnosing" in r.json()["text"]
    ((path, headers, body),) = slack.wait(1)
    assert path == "/hooks/commands/T0001/1234/abcd" and "Python" in headers.get("User-Agent", "")
    assert body["response_type"] == "in_channel"
    want = the_api(service_with_slack, args)
    assert _masked(body["blocks"]) == _masked(blocks(want))  # built from the result object the API returns
    assert body["blocks"][0]["type"] == "header" and args.workload_name in body["blocks"][0]["text"]["text"]
    assert want.category in body["blocks"][0]["text"]["text"]


def test_an_app_mention_is_answered_in_its_thread_with_chat_post_message_once(service_with_slack, slack, scenarios):
    args = scenarios["core/oom-metrics"].args
    slack.calls.clear()
    event = {"token": "x", "team_id": "T0001", "api_app_id": "A0001", "type": "event_callback",
             "event_id": "Ev0PV52K21", "event_time": int(time.time()),
             "event": {"type": "app_mention", "user": "U2147483697", "channel": "C2147483705",
                       "ts": "1733230000.000100",
                       "text": f"<@U0LAN0Z89> workload={args.workload_id} cluster={args.cluster_id}"}}
    body = json.dumps(event).encode()
    for retry in (None, "1"):  # Slack delivers again when unsure: answered once
        headers = {"Content-Type": "application/json", **signed(body)}
        if retry:
            headers["X-Slack-Retry-Num"] = retry
        assert httpx.post(f"{service_with_slack}/v1/slack/events", content=body, headers=headers).status_code == 200
    ((path, headers, sent),) = slack.wait(1)
    time.sleep(0.5)
    assert len(slack.calls) == 1
    assert path == "/api/chat.postMessage" and headers["Authorization"] == "Bearer xoxb-test"
    assert sent["channel"] == "C2147483705" and sent["thread_ts"] == "1733230000.000100"
    assert _masked(json.loads(sent["blocks"]) if isinstance(sent["blocks"], str) else sent["blocks"]) == \
        _masked(blocks(the_api(service_with_slack, args)))


def test_url_verification_answers_the_challenge(service_with_slack):
    body = json.dumps({"token": "x", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
                       "type": "url_verification"}).encode()
    r = httpx.post(f"{service_with_slack}/v1/slack/events", content=body,
                   headers={"Content-Type": "application/json", **signed(body)})
    assert r.status_code == 200 and r.json() == {"challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}


@pytest.mark.parametrize("how", ["wrong secret", "six minutes old", "not a number", "no signature", "body changed"])
def test_an_unsigned_forged_or_replayed_request_is_401_and_nothing_is_read(service_with_slack, slack, sim,
                                                                          scenarios, how):
    args = scenarios["core/oom-metrics"].args
    clear(sim)
    slack.calls.clear()
    body = urlencode({"text": f"workload={args.workload_id} cluster={args.cluster_id}",
                      "response_url": f"{slack.url}/hooks/x"}).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if how == "wrong secret":
        headers |= signed(body, secret="not-the-secret")
    elif how == "six minutes old":
        headers |= signed(body, ts=int(time.time()) - 360)
    elif how == "not a number":
        headers |= {**signed(body), "X-Slack-Request-Timestamp": "soon"}
    elif how == "body changed":
        headers |= signed(body)
        body = body.replace(b"text=", b"text=0")
        assert body.count(b"text=0") == 1
    r = httpx.post(f"{service_with_slack}/v1/slack/commands", content=body, headers=headers)
    assert r.status_code == 401 and r.json() == {"detail": "the Slack request signature is missing, wrong or too old"}
    time.sleep(0.3)
    assert reads(sim) == [] and slack.calls == []


@pytest.mark.parametrize("text,said", [
    ("", USAGE), ("help", USAGE),
    ("name=train-42", "which workload?"),
    ("workload=../../api/v1/token cluster=3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11", "workload= is not valid here"),
    ("please diagnose my job <!channel>", "not understood"),
    ("name=x project=y", "which cluster?"),
])
def test_words_that_name_no_workload_get_a_private_one_line_answer(service_with_slack, slack, sim, text, said):
    clear(sim)
    slack.calls.clear()
    r = command(service_with_slack, text, f"{slack.url}/hooks/x")
    assert r.status_code == 200 and r.json()["response_type"] == "ephemeral" and said in r.json()["text"]
    assert "<!channel>" not in r.json()["text"] and "../" not in r.json()["text"]
    time.sleep(0.2)
    assert reads(sim) == [] and slack.calls == []


def test_the_scope_of_the_slack_token_applies_and_a_foreign_response_url_is_not_used(service_with_slack, slack,
                                                                                     sim, scenarios):
    args = scenarios["core/option-b-terminal"].args
    clear(sim)
    slack.calls.clear()
    r = command(service_with_slack, f"name=x project=vision cluster={args.cluster_id}", f"{slack.url}/hooks/x")
    assert r.json()["text"] == DENIED
    r = command(service_with_slack, f"name={args.workload_name} project={args.project} cluster={args.cluster_id}",
                "https://attacker.example/collect")
    assert "without a Slack response URL" in r.json()["text"]
    time.sleep(0.3)
    assert reads(sim) == [] and slack.calls == []


def test_slack_off_is_404_and_passthrough_cannot_serve_it(sim):
    from workload_diagnose.agent.service.config import ConfigError, ServiceConfig

    with live_service(config_for(sim)) as url:
        r = httpx.post(f"{url}/v1/slack/commands", content=b"text=x",
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert r.status_code == 404 and "WD_SLACK_SIGNING_SECRET" in r.json()["detail"]
    with pytest.raises(ConfigError, match="passthrough cannot serve it"):
        ServiceConfig.from_env({"WD_AUTH": "passthrough", "WD_SLACK_SIGNING_SECRET": "s"})
    with pytest.raises(ConfigError, match="WD_SLACK_SCOPE must name"):
        ServiceConfig.from_env({"WD_API_TOKENS": json.dumps({"tokens": [{"name": "a", "sha256": "0" * 64,
                                                                         "clusters": ["*"], "projects": ["*"]}]}),
                                "WD_SLACK_SIGNING_SECRET": "s"})


def test_block_kit_shows_evidence_as_plain_text_so_planted_markup_does_nothing():
    res = DiagnosisResult(outcome="diagnosed", category="OOM_KILLED",
                          workload=WorkloadRef(name="train-<!channel>", project="ml-team", cluster_id="c1"),
                          evidence=[EvidenceLine(source="get_workload_status",
                                                 text="message: \"<!channel> <https://evil.example|click> *urgent*\"")],
                          recommendations=["Raise the memory limit."], report="Category: OOM_KILLED\n")
    out = blocks(res)
    text = json.dumps(out)
    evidence = next(b for b in out if b["type"] == "section" and "Evidence" in b.get("text", {}).get("text", ""))
    assert evidence["text"]["type"] == "plain_text" and "<!channel>" in evidence["text"]["text"]
    for b in out:  # wherever mrkdwn is used, the markup is escaped
        for f in b.get("fields", []):
            assert f["type"] == "mrkdwn" and "<!" not in f["text"]
    assert "&lt;!channel&gt;" not in out[0]["text"]["text"]  # the header is plain text: shown as written
    assert out[0]["text"]["type"] == "plain_text"
    assert len(out) <= 50 and all(len(json.dumps(b)) < 3500 for b in out)
    assert "evil.example" in text  # shown as text, never as a link
