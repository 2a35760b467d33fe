"""Long evidence cut to its decisive words (``agent.model.lines.decisive``), as triage's table and the
``lifecycle`` report print it: an error chain keeps its tail (a registry or mount error says why last), any other
text keeps its start, and a cut line is never longer than asked. The samples are the bundled scenarios' own
kubelet/containerd messages (evals/scenarios/upstream/pull-ngc-unauthorized, the fleet's NFS mount timeout)."""
from __future__ import annotations

import pytest

from workload_diagnose.agent.model.lifecycle import Layer, LifecycleResult, Phase, RunRef
from workload_diagnose.agent.model.lines import EvidenceLine, decisive
from workload_diagnose.agent.procedures.lifecycle.report import EVIDENCE_CHARS, render

PULL_401 = ('Failed to pull image "registry.example.com/private/llm-trainer:0.9": rpc error: code = Unknown desc = '
            'failed to pull and unpack image "registry.example.com/private/llm-trainer:0.9": failed to resolve '
            'reference "registry.example.com/private/llm-trainer:0.9": failed to authorize: failed to fetch anonymous '
            'token: unexpected status from GET request to https://registry.example.com/service/token?scope=repository'
            '%3Aprivate%2Fllm-trainer%3Apull&service=harbor-registry: 401 Unauthorized')
NFS_TIMEOUT = ('MountVolume.SetUp failed for volume "nfs-ckpt" : mount failed: exit status 32 Mounting command: mount '
               'Mounting arguments: -t nfs 10.0.4.20:/exports/ckpt /var/lib/kubelet/pods/3f/volumes/kubernetes.io~nfs/'
               'nfs-ckpt Output: mount.nfs: Connection timed out')
PLAIN = ("Back-off restarting failed container trainer in pod train-42-worker-0 while the node was draining and "
         "the scheduler was looking for another node with eight free GPUs of the same product")


@pytest.mark.parametrize("text, last_words", [(PULL_401, "401 Unauthorized"),
                                              (NFS_TIMEOUT, "mount.nfs: Connection timed out")])
@pytest.mark.parametrize("limit", [60, 100, 160])
def test_an_error_chain_keeps_its_tail(text, last_words, limit):
    cut = decisive(text, limit)
    assert len(cut) <= limit and cut.endswith(last_words), cut
    assert "…" in cut and "\n" not in cut


def test_the_first_clause_stays_when_it_is_short():
    cut = decisive(PULL_401, 160)
    assert cut.startswith('Failed to pull image "registry.example.com/private/llm-trainer:0.9": … ')


def test_other_text_keeps_its_start_and_short_text_is_whole():
    cut = decisive(PLAIN, 80)
    assert len(cut) <= 80 and cut.startswith("Back-off restarting failed container trainer") and cut.endswith("…")
    assert decisive("OOMKilled:  exit\n137", 80) == "OOMKilled: exit 137"


def test_the_lifecycle_report_keeps_the_decisive_words_and_json_the_whole_text():
    evidence = [EvidenceLine(source="pod event", text=PULL_401),
                EvidenceLine(source="pod event", text=NFS_TIMEOUT)]
    pull = Phase(name="Image pull", status="warning", detail="ErrImagePull", owner="researcher",
                 next_action="Fix the image reference or the pull secret.", evidence=evidence)
    result = LifecycleResult(run=RunRef(name="train-42", namespace="ml-team", kind="Job"), phases=[pull],
                             first_incomplete="Image pull",
                             layer=Layer(name="Image pull", owner="researcher", next_action=pull.next_action))
    assert len(PULL_401) > EVIDENCE_CHARS  # the sample is long enough to be cut
    lines = render(result).splitlines()
    shown = lines[lines.index("Evidence:") + 1:lines.index("Evidence:") + 3]
    assert shown[0].endswith(": 401 Unauthorized  [pod event]") and "…" in shown[0], shown
    assert shown[1].endswith("mount.nfs: Connection timed out  [pod event]"), shown
    assert all(len(s) <= EVIDENCE_CHARS + len("  - ") + len("  [pod event]") for s in shown)
    assert result.phases[0].evidence[0].text == PULL_401  # the --json phases keep the whole text
