"""Redaction: every known format removed over its full span, key-labelled secrets, structure rules,
hard negatives intact, idempotence."""

from __future__ import annotations

import copy
import json
import random
import zlib

import pytest

from workload_diagnose.guardrails import redact, redact_value, redact_with_count
from workload_diagnose.guardrails.corpora.secrets import (
    LABELLED_FORMATS,
    TOKEN_FORMATS,
    generic_samples,
    hard_negatives,
    known_format_samples,
)


def leaks(secret: str, out: str, w: int = 8) -> bool:
    """True if the secret or any 8-char (non-whitespace) window of it survived."""
    if secret in out:
        return True
    w = min(w, len(secret))
    return any(secret[i:i + w] in out for i in range(len(secret) - w + 1)
               if not any(c.isspace() for c in secret[i:i + w]))


# ------------------------------------------------------------------- every vendor format, full span
@pytest.mark.parametrize("name,gen", TOKEN_FORMATS, ids=[n for n, _ in TOKEN_FORMATS])
def test_known_format_removed_full_span(name, gen):
    rng = random.Random(zlib.crc32(name.encode()))
    for _ in range(5):
        tok = gen(rng)
        for text in (f"INFO using {tok} now", f"x={tok}", f"\"{tok}\"", tok):
            out = redact(text)
            assert not leaks(tok, out), (name, text[:120], out[:120])
            assert "[REDACTED:" in out


@pytest.mark.parametrize("name,gen,ctxs", LABELLED_FORMATS, ids=[n for n, _, _ in LABELLED_FORMATS])
def test_labelled_formats_removed(name, gen, ctxs):
    samples = [s for s in known_format_samples(per_format=8) if s.kind == name]
    assert samples
    for s in samples:
        assert not leaks(s.secret, redact(s.text)), (s.context, s.text)


def test_known_format_corpus_full_span_and_idempotent():
    for s in known_format_samples(per_format=4, seed=3):
        out = redact(s.text)
        assert not leaks(s.secret, out), (s.kind, s.context, out[:200])
        assert redact(out) == out


# ------------------------------------------------------------------- explicit examples per layer
JWT = ("eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50Iiwic3ViIjoic3lzdGVt"
       "OnNlcnZpY2VhY2NvdW50OmRlZmF1bHQ6ZGVmYXVsdCJ9.TJVA95OrM7E2cBab30RMHrHDcEfxjoYZgeFONFh7HgQ-x_yz")


def test_jwt_whole_token_replaced():
    out = redact(f"token: {JWT}")
    assert out == "token: [REDACTED:jwt]"
    # all three segments go, not just the header
    for seg in JWT.split("."):
        assert seg[:12] not in out


def test_pem_block_whole_block_replaced():
    body = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u"
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{body[:64]}\n{body[64:]}\n-----END RSA PRIVATE KEY-----"
    out = redact(f"key: |\n{pem}\nnext: 1")
    assert "BEGIN" not in out and "END RSA" not in out and body[:10] not in out
    assert out.endswith("next: 1")
    # JSON-escaped (service-account JSON in a log line)
    js = json.dumps({"type": "service_account", "private_key": pem + "\n", "client_email": "a@b.iam"})
    out = redact(js)
    assert body[:10] not in out and json.loads(out)["client_email"] == "a@b.iam"


def test_truncated_pem_redacted_without_eating_the_next_line():
    text = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n2026-01-01 INFO next"
    out = redact(text)
    assert "MIIEvQ" not in out and "BKcwgg" not in out
    assert out.endswith("\n2026-01-01 INFO next")


@pytest.mark.parametrize("text,secret", [
    ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG"),
    ("GITHUB_TOKEN: ghp_16C7e42F292c6912E7710c838347Ae178B4a", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
    ("git remote add o https://x-access-token:ghs_16C7e42F292c6912E7710c838347Ae178B4a@github.com/a/b",
     "ghs_16C7e42F292c6912E7710c838347Ae178B4a"),
    ("glpat-xxxxxxxxxxxxxxxxxxxx found", "glpat-xxxxxxxxxxxxxxxxxxxx"),
    ("SLACK=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-123456789012"),
    ("OPENAI_API_KEY=sk-proj-AbC123dEf456GhI789jKl012MnO345pQr678StU901vWx", "sk-proj-AbC123"),
    ("client = OpenAI(api_key='sk-AbC123dEf456GhI789jKl012MnO345pQr')", "sk-AbC123dEf456"),
    ("hf_token = hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"),
    ("NGC_API_KEY: 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",
     "nvapi-AbC123dEf456"),
    ("stripe.api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("https://maps.googleapis.com/maps/api/geocode/json?key=AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe&x=1",
     "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe"),
    ("curl -H 'Authorization: Bearer abcDEF123ghiJKL456mnoPQR789' https://app.run.ai/api/v1/workloads",
     "abcDEF123ghiJKL456mnoPQR789"),
    ("> Authorization: Basic YWRtaW46czNjcjN0LXBhc3N3b3Jk", "YWRtaW46czNjcjN0LXBhc3N3b3Jk"),
    ("could not connect to postgresql://mlflow:S3cr3t!pass@db:5432/mlflow", "S3cr3t!pass"),
    ('{"auths":{"nvcr.io":{"auth":"JG9hdXRodG9rZW46bnZhcGktc2VjcmV0"}}}', "JG9hdXRodG9rZW46bnZhcGktc2VjcmV0"),
    ("docker login nvcr.io -u '$oauthtoken' -p Sup3rS3cretKey", "Sup3rS3cretKey"),
    ("curl -u admin:hunter2pass https://registry.example.com/v2/", "hunter2pass"),
    ("<password>hunter2pass</password>", "hunter2pass"),
    ('<add key="ApiKey" value="hunter2pass"/>', "hunter2pass"),
    ("mysql -u root -phunter2pass -h db", "hunter2pass"),
    ("redis-cli -a hunter2pass ping", "hunter2pass"),
    ('os.environ["OPENAI_API_KEY"] = "hunter2pass"', "hunter2pass"),
    ("aws configure set aws_secret_access_key hunter2pass", "hunter2pass"),
    ("echo hunter2pass | docker login -u bob --password-stdin", "hunter2pass"),
    ('{"log":"line1\\nghp_16C7e42F292c6912E7710c838347Ae178B4a\\n"}', "ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
    ('{"log":"x\\ntoken: abc123def456\\n"}', "abc123def456"),
])
def test_examples_removed(text, secret):
    out = redact(text)
    assert secret not in out, out
    assert "[REDACTED:" in out
    assert redact(out) == out


def test_json_escapes_around_values_are_kept():
    assert redact('{"log":"x\\ntoken: abc123def456\\n"}') == '{"log":"x\\ntoken: [REDACTED:token]\\n"}'
    assert redact('{"log":"a\\tAKIAIOSFODNN7EXAMPLE"}') == '{"log":"a\\t[REDACTED:aws_access_key]"}'


def test_url_userinfo_keeps_user_and_host():
    out = redact("postgres://admin:hunter2@db.ml.svc:5432/x")
    assert out == "postgres://admin:[REDACTED:url_password]@db.ml.svc:5432/x"


# ------------------------------------------------------------------- kubernetes structure in text
def test_env_yaml_and_json_entries():
    yml = "env:\n- name: DB_PASSWORD\n  value: hunter2\n- name: EPOCHS\n  value: \"3\"\n"
    out = redact(yml)
    assert "hunter2" not in out and "[REDACTED:env]" in out and 'value: "3"' in out
    js = '[{"name": "MLFLOW_TRACKING_PASSWORD", "value": "pa55word"}, {"name": "LR", "value": "0.1"}]'
    out = redact(js)
    assert "pa55word" not in out and '"0.1"' in out
    assert json.loads(out)[0]["value"] == "[REDACTED:env]"


def test_yaml_block_scalar_secret():
    text = "config:\n  password: |\n    line-one-secret\n    line-two\n  user: bob\n"
    out = redact(text)
    assert "line-one-secret" not in out and "line-two" not in out
    assert out.endswith("  user: bob\n")
    assert redact(out) == out


@pytest.mark.parametrize("cmd,secret", [
    ("runai submit t -i img --password hunter2 -g 1", "hunter2"),
    ("runai submit t -i img --password=hunter2 -g 1", "hunter2"),
    ("python train.py --api-key 8f9a0b1c2d3e --epochs 3", "8f9a0b1c2d3e"),
    ("python train.py --hf-token=hunter2abc", "hunter2abc"),
    ("kubeadm join 10.0.0.1:6443 --token abcdef.0123456789abcdef", "abcdef.0123456789abcdef"),
    ("export SECRET_TOKEN=s3cr3t-v4lue && python run.py", "s3cr3t-v4lue"),
    ("WANDB_API_KEY=8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a python train.py", "8f9a0b1c2d3e4f5a6b7c8d9e"),
    ("docker run -e DB_PASSWORD='p@ss w0rd' img", "p@ss w0rd"),
])
def test_command_flags_and_assignments(cmd, secret):
    out = redact(cmd)
    assert secret not in out, out
    assert "[REDACTED:" in out
    # the rest of the command survives
    for word in cmd.split():
        if not any(part in word for part in secret.split()) and "=" not in word:
            assert word in out, word


@pytest.mark.parametrize("text,secret", [
    ('api_key: 8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c', "8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c"),
    ('"client_secret": "Zk9xQ2w3cE5tS1ZyYlR4"', "Zk9xQ2w3cE5tS1ZyYlR4"),
    ("SECRET_TOKEN=Zk9xQ2w3cE5tS1ZyYlR4", "Zk9xQ2w3cE5tS1ZyYlR4"),
    ("{'password': 'Tr0ub4dor&3'}", "Tr0ub4dor&3"),
    ('{"log":"cfg {\\"clientSecret\\":\\"abcDEF123456\\"}"}', "abcDEF123456"),
    ("      DB_PASSWORD:  hunter2", "hunter2"),
    ("key: 8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a", "8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a"),
])
def test_key_labelled_generic(text, secret):
    assert secret not in redact(text)


def test_generic_corpus_recall_at_least_98_percent():
    samples = generic_samples(n=600, seed=5)
    ok = sum(not leaks(s.secret, redact(s.text)) for s in samples)
    assert ok / len(samples) >= 0.98


# ------------------------------------------------------------------- hard negatives
@pytest.mark.parametrize("text", [
    "image: nvcr.io/nvidia/pytorch@sha256:0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
    "workloadId: 3f2b1c9e-7a6d-4e2f-9b1a-0c8d7e6f5a4b",
    "Back-off restarting failed container trainer in pod train-7d9f8c6b5-x2x9q_runai-ml(3f2b1c9e-7a6d-4e2f-9b1a-0c8d7e6f5a4b)",
    "resourceVersion: \"184467440737\"",
    "Exit Code: 137",
    "cpuMemoryLimit: 32Gi",
    "CPU_MEMORY_LIMIT_BYTES 34359738368",
    "lastTransitionTime: \"2026-01-01T03:49:52Z\"",
    "image: ghcr.io/acme/trainer:git-3f9a2b1c4d5e6f708192a3b4c5d6e7f8091a2b3c",
    "key: nvidia.com/gpu",
    "secretName: hf-token",
    "tokenType: Bearer",
    "token_type: Bearer",
    "max_new_tokens=512",
    "pad_token: <pad>",
    "Authentication failed: token expired",
    "401 Unauthorized: the bearer token was rejected",
    "FATAL:  password authentication failed for user \"mlflow\"",
    "MountVolume.SetUp failed for volume \"creds\" : secret \"db-credentials\" not found",
    "Failed to pull image: pull access denied, may require authorization: server message: insufficient_scope",
    "--token-file /var/run/secrets/kubernetes.io/serviceaccount/token",
    "password: ${DB_PASSWORD}",
    "AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY",
    "HF_TOKEN:  <set to the key 'token' in secret 'hf'>  Optional: false",
    "WWW-Authenticate: Bearer realm=\"https://auth.docker.io/token\",service=\"registry.docker.io\"",
])
def test_hard_negatives_unchanged(text):
    assert redact(text) == text


def test_generated_hard_negatives_unchanged():
    changed = [h for h in hard_negatives(n_random=200) if redact(h) != h]
    assert changed == []


# ------------------------------------------------------------------- idempotence, markers, counts
def test_idempotent_over_corpora():
    texts = [s.text for s in known_format_samples(per_format=2, seed=21)] + [s.text for s in generic_samples(300)]
    for t in texts:
        once = redact(t)
        assert redact(once) == once, t[:200]


def test_marker_never_rematched_and_counts():
    out, n = redact_with_count("password=hunter2 token=abc123def456")
    assert n == 2
    again, n2 = redact_with_count(out)
    assert again == out and n2 == 0
    for kind_text in ("[REDACTED:jwt]", "Bearer [REDACTED:bearer]", "password: [REDACTED:password]",
                      "https://u:[REDACTED:url_password]@h", "- name: DB_PASSWORD\n  value: [REDACTED:env]"):
        assert redact(kind_text) == kind_text


def test_non_strings_and_short_strings_pass_through():
    assert redact("") == ""
    assert redact("abc") == "abc"


# ------------------------------------------------------------------- redact_value
def test_redact_value_structure_rules():
    spec = {
        "name": "train-42",
        "spec": {
            "image": "nvcr.io/nvidia/pytorch:24.01-py3",
            "environmentVariables": [
                {"name": "DB_PASSWORD", "value": "hunter2"},
                {"name": "HF_TOKEN", "value": "whatever-it-is"},
                {"name": "EPOCHS", "value": "3"},
                {"name": "SECRET_NAME", "value": "hf-token"},
            ],
            "annotations": [{"name": "runai-submit-command",
                             "value": "runai submit t --environment WANDB_API_KEY=8f9a0b1c2d3e4f5a6b7c --password x1y2z3"}],
            "compute": {"cpuMemoryLimit": "32Gi", "gpuDevicesRequest": 8},
            "restartPolicy": "OnFailure",
        },
    }
    before = copy.deepcopy(spec)
    out = redact_value(spec)
    assert spec == before, "input must not be mutated"
    env = {e["name"]: e["value"] for e in out["spec"]["environmentVariables"]}
    assert env["DB_PASSWORD"] == "[REDACTED:env]" and env["HF_TOKEN"] == "[REDACTED:env]"
    assert env["EPOCHS"] == "3" and env["SECRET_NAME"] == "hf-token"
    cmd = out["spec"]["annotations"][0]["value"]
    assert "8f9a0b1c2d3e4f5a6b7c" not in cmd and "x1y2z3" not in cmd and cmd.startswith("runai submit t")
    assert out["spec"]["compute"] == {"cpuMemoryLimit": "32Gi", "gpuDevicesRequest": 8}


def test_redact_value_token_response_and_keys():
    resp = {"accessToken": "opaque-access-1234567890", "idToken": JWT, "refreshToken": "r3fr3sh-t0k3n-value",
            "expiresIn": 3600, "tokenType": "Bearer", "access_token": "abc123DEF456", "token_type": "Bearer",
            "clientSecret": "cs-1234567890", "clientID": "runai-diag", "apiKey": 12345678, "enabled": True,
            "headers": {"Authorization": "Bearer abcDEF123ghiJKL456", "Accept": "application/json"}}
    out = redact_value(resp)
    for k in ("accessToken", "idToken", "refreshToken", "access_token", "clientSecret", "apiKey"):
        assert str(out[k]).startswith("[REDACTED:"), k
    assert out["expiresIn"] == 3600 and out["tokenType"] == "Bearer" and out["token_type"] == "Bearer"
    assert out["clientID"] == "runai-diag" and out["enabled"] is True
    assert out["headers"]["Authorization"].startswith("[REDACTED:") or "abcDEF123ghiJKL456" not in out["headers"]["Authorization"]
    assert out["headers"]["Accept"] == "application/json"


def test_redact_value_k8s_secret_data():
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds", "namespace": "runai-ml"},
              "type": "Opaque", "data": {"username": "YWRtaW4=", "pw": "aHVudGVyMg=="},
              "stringData": {"note": "plain"}}
    out = redact_value(secret)
    assert set(out["data"]) == {"username", "pw"}
    assert all(v == "[REDACTED:secret_data]" for v in out["data"].values())
    assert out["stringData"]["note"] == "[REDACTED:secret_data]"
    assert out["metadata"] == {"name": "creds", "namespace": "runai-ml"}
    # a ConfigMap's data is not secret
    cm = {"kind": "ConfigMap", "data": {"lr": "0.1"}}
    assert redact_value(cm) == cm


def test_redact_value_numbers_bools_none_and_lists():
    obj = [1, 2.5, True, None, "plain text", {"exitCode": 137, "memory": 34359738368}]
    assert redact_value(obj) == obj


def test_structured_secret_field_starting_with_dashes_is_redacted():
    """A whole JSON value under a secret key is the value even when it looks like a flag (found by a cassette)."""
    from workload_diagnose.guardrails import redact_value

    out = redact_value({"accessToken": "--XYbabcdefghijklmnop123456", "refreshToken": "--abcdefgh",
                        "env": [{"name": "DB_PASSWORD", "value": "--s3cr3t-value"}]})
    assert "XYb" not in str(out) and "abcdefgh" not in str(out) and "s3cr3t" not in str(out)
