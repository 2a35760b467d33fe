"""Upstream causes of init and start failures, from public incident texts (sources beside each sample in the
records): a registry error keeps its own recommendation (a missing tag is never a credential problem, a rate limit
never an authorization error, a DNS failure never either); what an init container waited for is read from its
log or a system message, never guessed; a CSI DeadlineExceeded is a mount failure, not a duration policy."""
from __future__ import annotations

import pytest

from workload_diagnose.agent.evidence.kube import failing_line
from workload_diagnose.agent.evidence.rules import kinds_from_reason_message
from workload_diagnose.agent.model.signals import Kind, Signal
from workload_diagnose.agent.taxonomy import BY_NAME, RecoContext, classify
from workload_diagnose.agent.taxonomy.categories import image_pull_failed, init_failed


@pytest.mark.parametrize("message,cls", image_pull_failed.CLASS_SAMPLES,
                         ids=[c + str(i) for i, (_, c) in enumerate(image_pull_failed.CLASS_SAMPLES)])
def test_registry_errors_keep_their_class_and_recommendation(message, cls):
    got = kinds_from_reason_message("Failed", message, names=[])
    assert [(k, d) for k, d, _ in got] == [(Kind.IMAGE_PULL, cls)]
    reco = " ".join(_recommend("IMAGE_PULL_FAILED", got, message))
    assert ("authentication" in reco) == (cls in ("authorization",)) or cls == "missing_or_unauthorized"
    if cls == "missing_manifest":
        assert "fix the image name/tag" in reco and "credential" not in reco
    if cls == "network":
        assert "DNS" in reco and "credential" not in reco


@pytest.mark.parametrize("wait", init_failed.WAITS, ids=[w.pattern[:30] for w in init_failed.WAITS])
def test_what_an_init_container_waited_for_is_read_not_guessed(wait):
    assert wait.true
    for line, target in wait.true:
        assert init_failed.waited_for(line) == (target, wait.how), line
    for line in wait.false:
        assert init_failed.waited_for(line) is None, line


def test_the_most_specific_line_of_an_init_log_is_quoted():
    tail = ["Server:    10.96.0.10", "Address 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local",
            "nslookup: can't resolve 'pytorch-master-0'", "waiting for master",
            "nslookup: can't resolve 'pytorch-master-0'", "waiting for master"]
    assert failing_line(tail, is_init=True) == "nslookup: can't resolve 'pytorch-master-0'"
    assert failing_line(tail) is None  # a main container's log is read for an error line only
    assert failing_line(["nslookup: can't resolve '(null)': Name does not resolve", "Name: master"],
                        is_init=True) is None


def test_the_init_report_names_the_container_and_what_it_waited_for():
    pod = Signal(kind=Kind.INIT_FAILED, source="get_workload_pods", obj="ddp-w-worker-0",
                 text="Pod ddp-w-worker-0 k8sPhase: Init:CrashLoopBackOff; node: gpu-node-3")
    backoff = Signal(kind=Kind.CRASH_LOOP, source="get_workload_status", obj="ddp-w-worker-0",
                     text='Warning event reason: BackOff; message: "Back-off restarting failed container init-pytorch '
                          'in pod ddp-w-worker-0_runai-ml(8d68)"')
    tier1 = _reco([pod, backoff])
    assert "init container init-pytorch" in tier1 and "kubectl logs ddp-w-worker-0 -c init-pytorch" in tier1
    assert "exit code" not in tier1  # none is cited
    line = "nslookup: can't resolve 'pytorch-master-0'"
    tier2 = _reco([pod, backoff], log_line=line, log_source="kubectl logs ddp-w-worker-0 -n runai-ml -c init-pytorch "
                                                            "--previous")
    assert "waiting for pytorch-master-0 (its DNS name did not resolve" in tier2
    # a line read from another container never names the init container's dependency
    other = _reco([pod, backoff], log_line=line, log_source="kubectl logs ddp-w-worker-0 -n runai-ml -c trainer")
    assert "pytorch-master-0" not in other


@pytest.mark.parametrize("reason,message", [
    ("FailedAttachVolume", 'AttachVolume.Attach failed for volume "pvc-95a5209c-797c-49de-ae30-9def18935393" : rpc '
                           'error: code = DeadlineExceeded desc = context deadline exceeded'),
    (None, 'AttachVolume.Attach failed for volume "pvc-1" : rpc error: code = DeadlineExceeded desc = context deadline '
           'exceeded'),
    ("FailedAttachVolume", 'AttachVolume.Attach failed for volume "pvc-5dea601a" : attachment timeout for volume '
                           'vol-0ddf92e13636fa667'),
])
def test_a_csi_deadline_is_a_mount_failure_not_a_policy(reason, message):
    got = kinds_from_reason_message(reason, message, names=[])
    assert [(k, d) for k, d, _ in got] == [(Kind.MOUNT_FAILED, "attach_timeout")]
    reco = " ".join(_recommend("DATASOURCE_MOUNT_FAILED", got, message))
    assert "VolumeAttachment" in reco and "exists" not in reco


def test_an_nfs_server_that_times_out_is_not_the_attach_path():
    msg = ('MountVolume.SetUp failed for volume "nfs-ckpt" : mount failed: exit status 32 Output: mount.nfs: '
           'Connection timed out')
    got = kinds_from_reason_message("FailedMount", msg, names=[])
    assert (Kind.MOUNT_FAILED, None) in [(k, d) for k, d, _ in got]  # (and the helper's "exit status 32")
    reco = " ".join(_recommend("DATASOURCE_MOUNT_FAILED", got, msg))
    assert "exists" in reco and "VolumeAttachment" not in reco


def _recommend(category: str, triples, text: str) -> list[str]:
    sigs = [Signal(kind=k, detail=d, exit_code=e, source="get_workload_status", text=text) for k, d, e in triples]
    assert classify(sigs).category == category
    return BY_NAME[category].recommend(RecoContext(signals=sigs, memory_limit=None, peak=None, restart_policy=None,
                                                   namespace=None, log_line=None))


def _reco(sigs, log_line=None, log_source=None) -> str:
    assert classify(sigs).category == "INIT_FAILED"
    return " ".join(BY_NAME["INIT_FAILED"].recommend(RecoContext(
        signals=sigs, memory_limit=None, peak=None, restart_policy=None, namespace="runai-ml", log_line=log_line,
        log_source=log_source)))
