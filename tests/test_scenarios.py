"""Every bundled scenario: replayed from its cassette (record_mode none) it reaches the expected verdict,
deterministically, and a live run against the simulator gives the same result (the cassette is current)."""
from __future__ import annotations

import pytest

from workload_diagnose.evals.runner import live, replay
from workload_diagnose.evals.scenarios import all_scenarios

SCENARIOS = [s for s in all_scenarios() if not s.tier2]
TIER2 = [s for s in all_scenarios() if s.tier2]


def test_there_are_scenarios_for_every_category_and_route():
    cats = {s.expected.category for s in all_scenarios() if s.expected.category}
    routes = {s.expected.route for s in all_scenarios() if s.expected.route}
    assert cats >= {"OOM_KILLED", "IMAGE_PULL_FAILED", "INIT_FAILED", "DATASOURCE_MOUNT_FAILED", "CRASH_APP_ERROR",
                    "NODE_FAILURE", "SCHEDULING_POLICY_TERMINATED", "UNKNOWN"}
    assert routes >= {"preempted", "pending_scheduling", "completed", "suspended", "phase_not_terminal",
                      "cluster_mismatch", "missing_parameters", "no_matching_workload", "running_without_failure"}


@pytest.mark.parametrize("sc", SCENARIOS, ids=lambda s: s.id)
def test_live_run_matches_the_cassette(sc):
    """The replay reaches the expected verdict, and a live run gives the same bytes: two runs of the product, one
    through the simulator's HTTP, one from the cassette (determinism and a current cassette at once)."""
    assert sc.cassette.exists(), f"{sc.id}: no cassette (run: workload-diagnose eval --record {sc.id})"
    from workload_diagnose.evals.checks import verdict_of

    rep = replay(sc)
    assert verdict_of(rep) == sc.expected.verdict()
    got, _ = live(sc)
    # tool_calls carry no host, so live and replay must agree byte for byte
    assert got.model_dump_json() == rep.model_dump_json()


@pytest.mark.parametrize("sc", TIER2, ids=lambda s: s.id)
def test_tier2_replay_reaches_expected_verdict_deterministically(sc):
    """Tier-2 cassettes hold the Kubernetes exchanges too: they replay with no server at all (their live runs
    against the real kube-apiserver are tests/k8s)."""
    assert sc.cassette.exists(), f"{sc.id}: no cassette (run: workload-diagnose eval --record {sc.id})"
    from workload_diagnose.evals.checks import verdict_of

    a = replay(sc)
    assert verdict_of(a) == sc.expected.verdict()
    b = replay(sc)
    assert a.model_dump_json() == b.model_dump_json()


def test_a_request_missing_from_the_cassette_fails(tmp_path):
    import shutil

    import yaml
    from vcr.errors import CannotOverwriteExistingCassetteException

    sc = next(s for s in SCENARIOS if s.expected.category == "OOM_KILLED")
    data = yaml.safe_load(sc.cassette.read_text())
    data["interactions"] = [i for i in data["interactions"] if "/history" not in i["request"]["uri"]]
    cut = tmp_path / "cut.yaml"
    cut.write_text(yaml.safe_dump(data))
    res = None
    try:
        res = replay(sc, cassette=cut)
    except CannotOverwriteExistingCassetteException:
        return
    # the client turns the refused request into a typed error: the limitation must name it
    assert any("history" in x for x in res.limitations)


def test_no_credential_in_any_cassette():
    """No bearer token, client certificate, private key or simulator secret in any stored cassette."""
    import re

    from workload_diagnose.evals.scenarios import ROOT

    bad = re.compile(r"(?i)bearer\s+[a-z0-9._~+/-]{8,}|-----BEGIN [A-Z ]*(CERTIFICATE|PRIVATE KEY)|sim-secret-[0-9a-f]|"
                     r"^\s*authorization:|\"accessToken\": \"(?!\[REDACTED)|\"access_token\": \"(?!\[REDACTED)|"
                     r"clientSecret\": \"(?!\[REDACTED)", re.M)
    files = sorted(ROOT.rglob("cassette.yaml"))
    assert files
    for f in files:
        m = bad.search(f.read_text())
        assert m is None, f"{f}: {m.group(0)[:40] if m else ''}"
