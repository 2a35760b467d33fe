"""validate_llm_output: category, numbers, ids, names, quotes and secrets must come from the evidence."""

from __future__ import annotations

from workload_diagnose.agent.taxonomy import NAMES
from workload_diagnose.guardrails import ValidationResult, validate_llm_output

EVIDENCE = [
    'Event reason: OOMKilled; message: "Container trainer was OOM killed" (pod train-42-0-0)',
    "cpuMemoryRequest: 32Gi\ncpuMemoryLimit: 32Gi",
    "k8sPhase: OOMKilled nodeName: gpu-node-07 workloadId: 3f2b1c9e-7a6d-4e2f-9b1a-0c8d7e6f5a4b",
    "Last State: Terminated Reason: OOMKilled Exit Code: 137 Finished: 2026-01-01T03:49:52Z",
    "CPU_MEMORY_USAGE_BYTES peak 33822867456 (ratio 0.9844)",
    "History: 3 OOMKilled failures in the last 7 days",
]

GOOD = """Category: OOM_KILLED
Workload: train-42 | Pod train-42-0-0 on gpu-node-07 (workload 3f2b1c9e-7a6d-4e2f-9b1a-0c8d7e6f5a4b)

Evidence:
1. Event "Container trainer was OOM killed" at 2026-01-01T03:49:52Z.
2. Memory request/limit: 32 GiB / 32 GiB; observed peak 31.5 GiB (0.98 of the limit).
3. Previous container exit: `137`.

History: 3 OOMKilled failures in the last 7 days.
"""


def check(text: str, category: str = "OOM_KILLED") -> ValidationResult:
    return validate_llm_output(text, category=category, categories=NAMES, evidence_texts=EVIDENCE)


def test_valid_text_passes():
    r = check(GOOD)
    assert r.ok, r.reasons
    assert r.reasons == []


def test_wrong_category_fails():
    r = check(GOOD.replace("Category: OOM_KILLED", "Category: NODE_FAILURE"))
    assert not r.ok
    assert any("NODE_FAILURE" in x for x in r.reasons)
    # naming a second category besides the right one also fails
    r = check(GOOD + "\nIt could also be CRASH_APP_ERROR.")
    assert not r.ok and any("CRASH_APP_ERROR" in x for x in r.reasons)
    # PREEMPTED is not a category the classifier can return here
    assert not check("Category: PREEMPTED").ok


def test_classifier_category_must_be_known():
    r = validate_llm_output("fine", category="BANANA", categories=NAMES, evidence_texts=[])
    assert not r.ok


def test_invented_number_fails():
    r = check(GOOD.replace("exit: `137`", "exit: 139"))
    assert not r.ok and any("139" in x for x in r.reasons)
    r = check(GOOD.replace("32 GiB / 32 GiB", "32 GiB / 64 GiB"))
    assert not r.ok and any("64" in x for x in r.reasons)
    r = check(GOOD.replace("3 OOMKilled failures", "5 OOMKilled failures"))
    assert not r.ok


def test_unit_conversions_and_rounding_are_accepted():
    assert check("Peak 33822867456 bytes = 31.5 GiB, limit 32Gi, ratio 0.98.").ok
    assert not check("Peak 30.1 GiB").ok


def test_invented_quoted_log_line_fails():
    r = check(GOOD + '\nThe log said "CUDA error: an illegal memory access was encountered".')
    assert not r.ok and any("quoted" in x for x in r.reasons)
    r = check(GOOD + "\n```\nRuntimeError: NCCL timeout\n```")
    assert not r.ok
    # an elided quote of real evidence is fine
    assert check('The event said "Container trainer ... OOM killed".').ok


def test_invented_uuid_timestamp_and_node_fail():
    assert not check("Workload 11111111-2222-4333-8444-555555555555 failed.").ok
    assert not check("It ran on gpu-node-12.").ok
    assert not check("Killed at 2026-02-03T04:05:06Z.").ok


def test_secret_in_output_fails():
    r = check(GOOD + "\nUse HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh to re-pull.")
    assert not r.ok and "contains a secret-shaped string" in r.reasons
    # citing a redaction marker is fine
    assert check("The env var DB_PASSWORD was [REDACTED:env].").ok


def test_extra_allowed_values():
    text = "Recurring: 2 or more occurrences count as recurring."
    assert not check(text).ok
    assert validate_llm_output(text, category="OOM_KILLED", categories=NAMES, evidence_texts=EVIDENCE,
                               extra_allowed=["2"]).ok


def test_snake_case_category_any_case_and_versions():
    assert not check("category: node_failure").ok
    assert check("no sign of a node failure; the reason was not unknown").ok
    assert not check("Image nvcr.io/nvidia/pytorch uses CUDA 12.4.1.").ok
    assert validate_llm_output("CUDA 12.4.1", category="UNKNOWN", categories=NAMES,
                               evidence_texts=["CUDA Version: 12.4.1"]).ok
