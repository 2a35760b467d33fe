"""The fast suite: every live lifecycle scenario replayed from its cassette through the real kubernetes client
(vcrpy at the urllib3 layer, read-only guarded client), checked against the same hand-written expectations."""
from __future__ import annotations

from datetime import datetime

import pytest

from tests.lifecycle import recording
from tests.lifecycle.cases import CASES, check


def _replay_reader():
    from workload_diagnose.tools.kube import kubeconfig_for
    from workload_diagnose.tools.kube.lifecycle import LifecycleReader

    return LifecycleReader.from_kubeconfig(kubeconfig_for(recording.REPLAY_SERVER, "replay-token", insecure=True))


def replay_result(name: str, **req_kw):
    from workload_diagnose.agent.procedures.lifecycle.api import LifecycleRequest, refresh

    m = recording.meta(name)
    req = LifecycleRequest(name=m["name"], namespace=m["namespace"], now=datetime.fromisoformat(m["now"]), **req_kw)
    reader = _replay_reader()
    try:
        return recording.replay(name, lambda: refresh(req, reader))
    finally:
        reader.close()


@pytest.mark.parametrize("name", sorted(CASES))
def test_scenario_replay(name):
    check(name, replay_result(name).model_dump(mode="json"))


def test_every_case_has_a_cassette():
    recorded = {p.stem for p in recording.CASSETTES.glob("*.yaml")}
    assert recorded == set(CASES)
    for p in recording.CASSETTES.glob("*.yaml"):
        text = p.read_text()
        assert "Bearer" not in text and "authorization" not in text.lower()


def test_dra_clock_decides_stuck():
    """The same recorded claim is 'active' 10 s after creation and 'warning' past about 30 s: the age rule, not
    the unrelated FailedMount event on the pod, makes it a warning."""
    import copy

    from workload_diagnose.agent.procedures.kit import layers as ph

    res = replay_result("dra-unallocated")
    dra = next(p for p in res.phases if p.name == "DRA allocation")
    assert dra.status == "warning" and "FailedMount" not in dra.detail
    assert all("FailedMount" not in e.text for e in dra.evidence)
    # a young claim (re-walked from the same evidence at an earlier clock)
    m = recording.meta("dra-unallocated")
    assert m["now"]
    snap = ph.Snapshot(name="train", namespace="x", now=datetime.fromisoformat(m["now"]), kind="Job", job={},
                       pods=[{"metadata": {"name": "p"}, "spec": {"nodeName": "n", "resourceClaims": [
                           {"name": "gpu", "resourceClaimName": "c"}], "containers": [{"name": "main"}]}}],
                       claims={"c": {"metadata": {"name": "c", "creationTimestamp": m["now"]}}},
                       events={("Pod", "p"): [{"type": "Warning", "reason": "FailedMount", "message": "x failed"}]})
    young = ph.dra_allocation(snap)
    assert young.status == "active", young
    snap2 = copy.deepcopy(snap)
    snap2.events[("ResourceClaim", "c")] = [{"type": "Warning", "reason": "FailedAllocation",
                                            "message": "cannot allocate all claims"}]
    assert ph.dra_allocation(snap2).status == "warning"
