"""Tier-2 scenarios end to end: the whole graph against the Run:ai simulator AND a real kube-apiserver (+ kubelet
stand-in for logs), then recorded as one vcrpy cassette and replayed with no server at all.

Set WD_RECORD_TIER2=1 to (re)write the cassettes into evals/scenarios/tier2/*/cassette.yaml.
"""
from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from workload_diagnose.evals import kubeworld
from workload_diagnose.evals.runner import live, record, replay
from workload_diagnose.evals.scenarios import all_scenarios

pytestmark = pytest.mark.k8s
TIER2 = [s for s in all_scenarios() if s.tier2]


UIDS: dict[tuple[str, str], str] = {}  # (namespace, pod) -> the UID this session's apiserver assigned


@pytest.fixture(scope="module")
def applied(kube_apiserver, admin_core, kubelet):
    for sc in TIER2:
        UIDS.update(kubeworld.apply(kubeworld.load(sc.path / "kube.json"), admin_core, kubelet_port=kubelet.port,
                                    add_log=lambda ns, pod, c, text, prev: kubelet.add_log(ns, pod, c, text,
                                                                                            previous=prev)))
    return kube_apiserver


def _world(sc) -> dict:
    """The scenario's Run:ai world reporting the pod UIDs the apiserver assigned (as Run:ai does)."""
    return kubeworld.with_pod_uids(json.loads(sc.world.read_text()), UIDS)


def _reader(cluster):
    from workload_diagnose.tools.kube import KubeReader

    return KubeReader.from_kubeconfig(cluster.kubeconfig)


def test_tier2_scenarios_exist():
    assert len(TIER2) >= 11


@pytest.mark.parametrize("sc", TIER2, ids=lambda s: s.id)
def test_live_then_cassette(applied, sc, tmp_path):
    cluster = applied
    res, _ = live(sc, world=_world(sc), kube_reader=_reader(cluster))
    assert (res.outcome, res.category, res.route) == (sc.expected.outcome, sc.expected.category,
                                                      sc.expected.route), res.report
    assert any(c.tool == "kubernetes" for c in res.tool_calls)
    assert any(e.source.startswith("kubectl ") and " -n " in e.source for e in res.evidence)
    # record (to the scenario when asked) and replay without any server
    target = sc.cassette if os.environ.get("WD_RECORD_TIER2") else tmp_path / "cassette.yaml"
    rec = record(sc, cassette=target, kube_reader=_reader(cluster), kube_server=cluster.server, world=_world(sc))
    assert (rec.outcome, rec.category) == (res.outcome, res.category)
    rep = replay(sc, cassette=target)
    assert (rep.outcome, rep.category, rep.route) == (res.outcome, res.category, res.route)
    assert rep.model_dump_json() == replay(sc, cassette=target).model_dump_json()
    text = Path(target).read_text()
    assert cluster.token not in text and "BEGIN CERTIFICATE" not in text and "BEGIN RSA" not in text
    ca = Path(cluster.ca_file).read_text().strip().splitlines()
    assert "".join(ca[1:-1])[:60] not in text and base64.b64encode(Path(cluster.ca_file).read_bytes()).decode()[:60] \
        not in text
    assert "authorization" not in text.lower().replace("may require authorization", "")


def test_unavailable_tier2_is_a_limitation_and_never_more_specific(applied):
    sc = next(s for s in TIER2 if s.id == "tier2/trainer-b")  # the crash whose log names its cause
    res, _ = live(sc)  # no kube reader
    assert res.category == "UNKNOWN"
    assert any("Tier 2" in x and "unavailable" in x for x in res.limitations)


def test_wrong_token_is_a_limitation(applied):
    from workload_diagnose.tools.kube import KubeReader

    sc = next(s for s in TIER2 if s.expected.category == "OOM_KILLED")
    bad = KubeReader.from_url(applied.server, token="not-the-token", verify_ssl=False)
    res, _ = live(sc, kube_reader=bad)
    assert res.category == "UNKNOWN"
    assert any("unauthorized" in x for x in res.limitations)


def test_crash_quotes_the_failing_log_line(applied):
    sc = next(s for s in TIER2 if s.id == "tier2/trainer-b")  # the crash whose log names its cause
    res, _ = live(sc, world=_world(sc), kube_reader=_reader(applied))
    assert "KeyError: 'CONFIG_PATH'" in res.report
    line = next(e for e in res.evidence if "Failing log line" in e.text)
    assert line.source.startswith("kubectl logs trainer-b-0-0 -n runai-t2b")


def test_image_pull_recommendation_follows_the_registry_error(applied):
    want = {"serve-d1": "does not exist", "serve-d2": "DNS", "serve-d3": "authentication", "serve-d4": "rate limit"}
    for sc in TIER2:
        name = sc.id.split("/")[-1]
        if name in want:
            res, _ = live(sc, world=_world(sc), kube_reader=_reader(applied))
            assert want[name] in " ".join(res.recommendations), (name, res.recommendations)


def test_a_50mb_previous_log_is_diagnosed_within_the_bound(applied, kubelet, admin_core):
    """The kubelet ignores limitBytes and would stream 50 MB: the diagnosis reads at most the configured bound."""
    import json

    from workload_diagnose.evals.kube_standin import wait_done

    sc = next(s for s in TIER2 if s.id == "tier2/trainer-b")  # the crash whose log names its cause
    kube = kubeworld.load(sc.path / "kube.json")
    ns = kube["pods"][0]["metadata"]["namespace"]
    pod = kube["pods"][0]["metadata"]["name"]
    kubelet.add_generated_log(ns, pod, "main", 50 * 1024 * 1024, previous=True, honour_limits=False)
    try:
        res, _ = live(sc, world=_world(sc), kube_reader=_reader(applied))
    finally:
        kubelet.generated.pop((ns, pod, "main", True), None)
    assert res.category == "CRASH_APP_ERROR"
    line = next(e.text for e in res.evidence if "main" in e.text and ("log" in e.text.lower()))
    recs = kubelet.requests_for(ns, pod, "main")
    wait_done(recs[-1])
    sent = recs[-1].bytes_sent
    print(f"\n[50MB log] evidence: {line}\n[50MB log] kubelet body bytes sent before the reader stopped: {sent:,} "
          f"of {recs[-1].total_bytes:,}")
    assert "read 262145 bytes" in line or "read 262144 bytes" in line
    assert recs[-1].total_bytes >= 50 * 1024 * 1024 and sent < 5 * 1024 * 1024


def test_pending_with_a_pod_start_signal_shows_the_pods_lifecycle_layers(applied):
    """Issue 11 item 4: the Run:ai diagnosis of a Pending workload whose pod Tier 2 read walks the pod's layers
    with the lifecycle procedure's rules (optional --json key ``lifecycle``; the CLI text prints it after the
    report); a workload that is not Pending has no walk."""
    from workload_diagnose.agent.model import lifecycle as lc
    from workload_diagnose.agent.procedures.runai_failed.report import text_report

    sc = next(s for s in TIER2 if s.id.endswith("serve-d1"))
    res, _ = live(sc, world=_world(sc), kube_reader=_reader(applied))
    assert res.workload.phase == "Pending" and res.category == "IMAGE_PULL_FAILED"
    walk = res.lifecycle
    assert walk is not None
    assert [p.name for p in walk.phases] == [lc.SCHEDULING, lc.IMAGE_PULL, lc.INIT, lc.CONTAINER_START, lc.READY]
    by = {p.name: p for p in walk.phases}
    assert by[lc.SCHEDULING].status == "done" and by[lc.IMAGE_PULL].status == "warning"
    assert walk.first_incomplete == lc.IMAGE_PULL
    assert walk.layer.owner == "researcher" and "image name and tag" in walk.layer.next_action
    assert any("ImagePullBackOff" in e.text and e.source.startswith("kubectl describe pod serve-d1-0-0 -n ")
               for e in by[lc.IMAGE_PULL].evidence)
    data = res.model_dump(mode="json")
    assert list(data)[-1] == "lifecycle" and data["lifecycle"]["first_incomplete"] == "Image pull"
    assert "Lifecycle layers" not in res.report  # the --json report field is unchanged
    text = text_report(res)
    assert text.startswith(res.report)
    assert "Lifecycle layers of the pod (Tier 2): first incomplete: Image pull (warning), owner researcher:" in text
    assert "[!] Image pull" in text and "[x] Pod scheduling" in text
    not_pending = next(s for s in TIER2 if s.id.endswith("trainer-b"))
    other, _ = live(not_pending, world=_world(not_pending), kube_reader=_reader(applied))
    assert other.lifecycle is None and "lifecycle" not in other.model_dump(mode="json")
