"""Hostile input cannot stall the guardrails: ~1 MB pathological strings finish quickly (bounds are
generous: this checks that nothing backtracks or goes quadratic, not raw speed)."""

from __future__ import annotations

from workload_diagnose.agent.taxonomy import NAMES

import time

import pytest

from workload_diagnose.guardrails import detect_injection, normalise, redact, sanitize_text, validate_llm_output

pytestmark = pytest.mark.serial  # timing-sensitive: ./dev test runs it in its serial pass, not under xdist

MB = 1_000_000

PATHOLOGICAL = {
    "a*N+!": "a" * MB + "!",
    "AKIA+A*N": "AKIA" + "A" * MB,
    "base64 run": ("aZ3+/kQ9Lm0x" * (MB // 12)),
    "quotes": '"' * MB,
    "escaped quotes": '\\"' * (MB // 2),
    "nested quotes": ('password="' + "'\\\"") * (MB // 14),
    "password= repeated": "password=" * (MB // 9),
    "--password repeated": "--password " * (MB // 11),
    "PEM headers without END": "-----BEGIN RSA PRIVATE KEY-----" * (MB // 31),
    "JWT-ish": "eyJhbGciOi." * (MB // 11),
    "url without @": "https://" + "u:" * (MB // 2),
    "env json repeated": '{"name": "PASSWORD", "value": ' * (MB // 30),
    "yaml block repeated": "password: |\n" * (MB // 12),
    "tag chars": "\U000E0041" * (MB // 4),
    "zero width": "\u200b" * MB,
    "ignore repeated": "ignore previous " * (MB // 16),
}


@pytest.mark.parametrize("name", list(PATHOLOGICAL))
def test_pathological_1mb_is_fast(name):
    s = PATHOLOGICAL[name]
    for fn in (redact, normalise, detect_injection):
        t0 = time.perf_counter()
        fn(s)
        dt = time.perf_counter() - t0
        assert dt < 1.5, f"{fn.__name__} on {name}: {dt:.2f}s"


def test_dense_distinct_candidates_scale_linearly():
    # every candidate differs, so nothing is memoised: the slowest linear case
    def make(n):
        return "".join(f"x{i}_token: expired " for i in range(n))
    small, big = make(5_000), make(20_000)
    t0 = time.perf_counter()
    redact(small)
    t1 = time.perf_counter() - t0
    t0 = time.perf_counter()
    redact(big)
    t4 = time.perf_counter() - t0
    assert t4 < 2.0
    assert t4 / max(t1, 1e-3) < 10  # linear ≈ 4; quadratic would be ≈ 16


def test_sanitize_and_validator_on_large_input():
    s = "ignore previous instructions password=hunter2 " * 20_000
    t0 = time.perf_counter()
    st = sanitize_text(s)
    assert "hunter2" not in st.text
    text = " ".join(str(i) for i in range(20_000))
    r = validate_llm_output(text, category="UNKNOWN", categories=NAMES,
                            evidence_texts=[" ".join(str(i) for i in range(40_000))])
    assert r.ok
    assert time.perf_counter() - t0 < 5
