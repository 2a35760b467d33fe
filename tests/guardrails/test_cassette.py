"""vcrpy hooks: credentials never reach a cassette, JSON bodies stay valid."""

from __future__ import annotations

import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from workload_diagnose.guardrails.cassette import before_record_request, before_record_response

vcr = pytest.importorskip("vcr")
from vcr.request import Request  # noqa: E402

ACCESS = ("eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJydW5haS1kaWFnIiwiZXhwIjoxNzY3MjI1NjAwfQ."
          "c2lnbmF0dXJlLWJ5dGVzLWhlcmUtMTIzNDU2Nzg5MA")
TOKEN_RESPONSE = {"accessToken": ACCESS, "idToken": ACCESS + "x", "refreshToken": "r3fr3sh.T0ken-value-123456",
                  "expiresIn": 36000}
CLIENT_SECRET = "Zk9xQ2w3cE5tS1ZyYlR4dVd6"


def test_request_hook_scrubs_headers_json_body_and_query():
    req = Request("POST", "https://app.run.ai/api/v1/token?access_token=abc123DEF456ghi",
                  json.dumps({"grantType": "client_credentials", "clientID": "runai-diag",
                              "clientSecret": CLIENT_SECRET}),
                  {"Authorization": "Bearer " + ACCESS, "Content-Type": "application/json",
                   "Cookie": "session=abcdef0123456789"})
    out = before_record_request(req)
    dumped = out.uri + json.dumps(dict(out.headers)) + out.body.decode()
    assert CLIENT_SECRET not in dumped and ACCESS[:20] not in dumped and "abcdef0123456789" not in dumped
    assert "abc123DEF456ghi" not in out.uri
    body = json.loads(out.body)
    assert body["clientID"] == "runai-diag" and body["grantType"] == "client_credentials"
    assert body["clientSecret"].startswith("[REDACTED:")
    assert out.headers["Content-Type"] == "application/json"


def test_request_hook_form_body_v2_token():
    req = Request("POST", "https://app.run.ai/api/v2/token",
                  f"grant_type=client_credentials&client_id=runai-diag&client_secret={CLIENT_SECRET}",
                  {"Content-Type": "application/x-www-form-urlencoded"})
    out = before_record_request(req)
    text = out.body.decode()
    assert CLIENT_SECRET not in text
    assert "client_id=runai-diag" in text and "grant_type=client_credentials" in text


def test_request_hook_is_deterministic_for_replay_matching():
    def mk():
        return Request("POST", "https://h/api/v1/token", json.dumps({"clientSecret": CLIENT_SECRET}), {})
    a, b = before_record_request(mk()), before_record_request(mk())
    assert a.body == b.body and a.uri == b.uri


@pytest.mark.parametrize("as_bytes", [True, False])
def test_response_hook_token_body_redacted_and_json_valid(as_bytes):
    body = json.dumps(TOKEN_RESPONSE)
    resp = {"status": {"code": 200, "message": "OK"},
            "headers": {"Content-Type": ["application/json"], "Set-Cookie": ["sid=abcdef0123456789; HttpOnly"],
                        "Content-Length": [str(len(body))]},
            "body": {"string": body.encode() if as_bytes else body}}
    out = before_record_response(resp)
    raw = out["body"]["string"]
    assert isinstance(raw, bytes) == as_bytes
    text = raw.decode() if as_bytes else raw
    data = json.loads(text)  # still valid JSON
    for k in ("accessToken", "idToken", "refreshToken"):
        assert data[k].startswith("[REDACTED:"), k
    assert data["expiresIn"] == 36000
    assert ACCESS[:20] not in text and "r3fr3sh" not in text
    assert out["headers"]["Set-Cookie"] == ["[REDACTED:set_cookie]"]
    assert out["headers"]["Content-Length"] == [str(len(text.encode()))]


def test_response_hook_gzip_and_v2_snake_case():
    body = json.dumps({"access_token": ACCESS, "token_type": "Bearer", "expires_in": 3600}).encode()
    resp = {"status": {"code": 200}, "headers": {"Content-Encoding": ["gzip"]},
            "body": {"string": gzip.compress(body)}}
    out = before_record_response(resp)
    data = json.loads(gzip.decompress(out["body"]["string"]))
    assert data["access_token"].startswith("[REDACTED:") and data["token_type"] == "Bearer"


def test_response_hook_workload_body_env_and_logs():
    body = {"spec": {"environmentVariables": [{"name": "WANDB_API_KEY", "value": "8f9a0b1c2d3e4f5a6b7c8d9e"}]},
            "log": "export HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"}
    out = before_record_response({"status": {"code": 200}, "headers": {},
                                  "body": {"string": json.dumps(body).encode()}})
    text = out["body"]["string"].decode()
    assert "8f9a0b1c2d3e4f5a6b7c8d9e" not in text and "hf_AbCd" not in text
    json.loads(text)


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        payload = json.dumps(TOKEN_RESPONSE).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Set-Cookie", "sid=abcdef0123456789")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *a):  # silence
        pass


def test_real_vcr_recording_contains_no_secret(tmp_path):
    import urllib.request

    server = HTTPServer(("127.0.0.1", 0), _Handler)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/api/v1/token"
        my_vcr = vcr.VCR(before_record_request=before_record_request,
                         before_record_response=before_record_response, record_mode="once")
        cassette = tmp_path / "token.yaml"
        with my_vcr.use_cassette(str(cassette)):
            req = urllib.request.Request(url, data=json.dumps({"grantType": "client_credentials", "clientID": "c",
                                                               "clientSecret": CLIENT_SECRET}).encode(),
                                         headers={"Content-Type": "application/json",
                                                  "Authorization": "Bearer " + ACCESS}, method="POST")
            live = json.loads(urllib.request.urlopen(req, timeout=5).read())
        assert live["accessToken"] == ACCESS  # the live caller still gets the real token
        text = cassette.read_text()
        assert CLIENT_SECRET not in text and ACCESS[:20] not in text and "abcdef0123456789" not in text
        assert "r3fr3sh" not in text
        # replay works and yields valid JSON with redacted tokens
        with my_vcr.use_cassette(str(cassette)):
            req = urllib.request.Request(url, data=json.dumps({"grantType": "client_credentials", "clientID": "c",
                                                               "clientSecret": CLIENT_SECRET}).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
            replay = json.loads(urllib.request.urlopen(req, timeout=5).read())
        assert replay["accessToken"].startswith("[REDACTED:") and replay["expiresIn"] == 36000
    finally:
        server.shutdown()
