"""Issue 10 item 2: formats that leaked.  Each is in the corpus (guardrails/corpora/secrets.py
LEAKED_FORMATS: a generated secret embedded in the evidence it comes from) and in the rule table with its
own samples (tests/guardrails/test_rules.py); here every generated sample goes through every entry point."""

from __future__ import annotations

import pytest

from workload_diagnose.guardrails import redact, redact_value, sanitize_text, sanitize_value
from workload_diagnose.guardrails.corpora.secrets import LEAKED_FORMATS, hard_negatives, known_format_samples


def _leaks(secret: str, out: str) -> bool:
    return any(secret[i:i + 8] in out for i in range(max(1, len(secret) - 7)))


@pytest.mark.parametrize("name", [n for n, _g, _c in LEAKED_FORMATS])
def test_leaked_format_is_redacted_everywhere(name):
    samples = [s for s in known_format_samples(per_format=10, seed=5) if s.kind == name]
    assert len(samples) == 10
    for s in samples:
        for out in (redact(s.text), sanitize_text(s.text).text, str(redact_value({"log": s.text})),
                    str(sanitize_value({"log": s.text})[0])):
            assert not _leaks(s.secret, out), (s.context, s.text, out)
        assert redact(redact(s.text)) == redact(s.text)


def test_look_alikes_of_the_leaked_formats_are_unchanged():
    fixed = hard_negatives(n_random=0)
    assert len(fixed) > 80
    assert [h for h in fixed if redact(h) != h] == []


@pytest.mark.parametrize("text,secret", [
    ("machine api.wandb.ai login user password S3cretPw9", "S3cretPw9"),
    ("wandb login cc6577428c2f6d6bc64e5a22fac180d6b2e6e1b4", "cc6577428c2f6d6bc64e5a22fac180d6b2e6e1b4"),
    ("jdbc:oracle:thin:scott/tiger@db:1521/ORCL", "tiger"),
    ("cb?x=1&next=%2Fa%3Ftoken%3DZx8f3kQ2mN7pLw4R", "Zx8f3kQ2mN7pLw4R"),
    ("password%3DHunter2xyz%26user%3Dci", "Hunter2xyz"),
    ("password\\u003dhunter2xyz", "hunter2xyz"),
    ("password\\x3dhunter2xyz", "hunter2xyz"),
    ("password&#61;hunter2xyz", "hunter2xyz"),
    ("...&sp=r&sig=abc%2Bdef0123456789ABCDEFghijklmnopqrstuv%3D", "abc%2Bdef0123456789ABCDEFghijklmnopqrstuv%3D"),
    ("https://discord.com/api/webhooks/2262385734152184090/RBWZRZX1VlxeVZ4DNCNnOBFXL4k41GiLP9qG3L0uKW4yWRzSaTLyvH1D0SZaozaNv4AH",
     "RBWZRZX1VlxeVZ4DNCNnOBFXL4k41GiLP9qG3L0uKW4yWRzSaTLyvH1D0SZaozaNv4AH"),
    ("https://api.telegram.org/bot732792820:AAocv81k2lsNaWQrZzhB4GZqT8hqt0pmpsL/getMe", "AAocv81k2lsNaWQrZzhB4GZqT8hqt0pmpsL"),
    ('"private_key_id": "cc6577428c2f6d6bc64e5a22fac180d6b2e6e1b4"', "cc6577428c2f6d6bc64e5a22fac180d6b2e6e1b4"),
    ("docker run app --password \\\n  hunter2xyz", "hunter2xyz"),
    ("env: cGFzc3dvcmQ9aHVudGVyMnh5elE=", "cGFzc3dvcmQ9aHVudGVyMnh5elE="),
    ("logging in with password Hunter2xyz", "Hunter2xyz"),
    ("the password is Hunter2xyz.", "Hunter2xyz"),
])
def test_issue_examples(text, secret):
    out = redact(text)
    assert secret not in out and "[REDACTED:" in out, out


def test_private_key_id_redacted_by_key_in_structured_data():
    sa = {"type": "service_account", "private_key_id": "cc6577428c2f6d6bc64e5a22fac180d6b2e6e1b4",
          "client_email": "trainer@acme-ml.iam.gserviceaccount.com"}
    out = redact_value(sa)
    assert out["private_key_id"].startswith("[REDACTED:") and out["client_email"] == sa["client_email"]


def test_base64_without_a_secret_is_kept_and_inner_tokens_still_found():
    import base64
    benign = base64.b64encode(b'{"token_type": "Bearer", "expires_in": 3600}').decode()
    assert redact(f"data: {benign}") == f"data: {benign}"
    # a known token later in a base64 blob that holds a fragment but no secret is still found
    tok = "AKIAJPJOMKEFOIUC3LGT"
    out = redact(f"blob {benign}+{tok} end")
    assert tok not in out
