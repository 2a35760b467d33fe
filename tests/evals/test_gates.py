"""The release gates of ``eval`` can fail: a line that is not in the read it names lowers link precision, a
category with no cited direct signal is counted as groundless, a guess on an undecidable case lowers abstention,
a write is counted, and a missed gate makes ``eval`` exit non-zero."""
from __future__ import annotations

import json
import shutil

import pytest

from workload_diagnose.agent.model.result import EvidenceLine
from workload_diagnose.evals import gates
from workload_diagnose.evals.runner import replay
from workload_diagnose.evals.scenarios import ROOT, load_scenario
from workload_diagnose.evals.suite import run, score_replay


@pytest.fixture(scope="module")
def oom():
    sc = load_scenario("core/oom-metrics")
    return replay(sc), gates.cassette_reads(sc.cassette.read_text())


def _links(res, reads):
    linked, cited, bad = gates.link_check(res.evidence, list(res.tool_calls), reads)
    return linked, cited, bad


def test_every_line_of_a_real_result_is_found_in_the_read_it_names(oom):
    res, reads = oom
    linked, cited, bad = _links(res, reads)
    assert bad == [] and linked == cited >= 8


@pytest.mark.parametrize("line", [
    # a message no read contains (an invented quote)
    EvidenceLine(source="get_workload_status", text='Warning event reason: OOMKilled; message: "Container trainer '
                                                    'exceeded its memory limit"'),
    # a real message cited under a tool that never returned it (misattributed)
    EvidenceLine(source="get_workload_pods", text='Warning event reason: OOMKilled; message: "Container trainer was '
                                                  'OOM killed"'),
    # a real pod with a node no read names
    EvidenceLine(source="get_workload_pods", text="Pod train-llm-42-0-0 k8sPhase: OOMKilled; node: gpu-node-99"),
    # a quantity the read does not carry, and a timestamp it does not either
    EvidenceLine(source="get_workload_spec", text="Submitted CPU memory request/limit: 48 GiB / 48 GiB"),
    EvidenceLine(source="get_workload_history", text='Warning event reason: OOMKilled; message: "Container trainer '
                                                     'was OOM killed" at 2026-11-20T10:14:59Z'),
    # a kubectl read that was never made
    EvidenceLine(source="kubectl describe pod train-llm-42-0-0 -n runai-ml-team",
                 text="Container trainer (pod train-llm-42-0-0) last state terminated: reason OOMKilled, exit code "
                      "137 (SIGKILL); restarts: 1"),
])
def test_a_doctored_line_drops_link_precision(oom, line):
    res, reads = oom
    doctored = res.model_copy(deep=True)
    doctored.evidence.append(line)
    linked, cited, bad = _links(doctored, reads)
    base_linked, base_cited, _ = _links(res, reads)
    assert (linked, cited) == (base_linked, base_cited + 1)
    assert len(bad) == 1 and line.text in bad[0]
    f = gates.figures([_rec("core/x", doctored, reads)])
    assert f["overall"]["link_precision"]["ratio"] < 1.0 and not f["ok"]
    assert any("link precision" in m for m in f["missed"])


def test_a_node_pool_line_is_not_read_as_a_nodes_name(oom):
    hay = gates.Haystack([gates.Read("GET", "/api/v1/node-pools", '{"name": "a100", "phase": "Ready"}', False)])
    assert gates.check_line("Node pool a100: phase Ready; 2 node(s) listed", hay).missing == []
    assert gates.check_line("Node gpu-a100-1: NotReady", hay).missing == ["gpu-a100-1"]  # a node's name is cited


def test_a_statement_of_absence_cites_nothing(oom):
    _, reads = oom
    hay = gates.Haystack(reads)
    assert gates.check_line("Memory limit: not reported by any tool", hay).atoms == 0
    # a message cut at a length bound keeps its head and tail, each found in the read
    chk = gates.check_line('Warning event reason: OOMKilled; message: "Container trainer … OOM killed"', hay)
    assert chk.atoms == 3 and chk.missing == []


def test_a_category_without_a_cited_direct_signal_is_groundless(oom):
    res, reads = oom
    assert gates.grounded(res) is True
    wrong = res.model_copy(deep=True)
    wrong.category = "NODE_FAILURE"  # the evidence says OOMKilled, nothing about the node
    assert gates.grounded(wrong) is False
    thin = res.model_copy(deep=True)
    thin.evidence = [e for e in thin.evidence if "OOM" not in e.text]  # only the phase, the spec and the metrics
    assert thin.evidence and gates.grounded(thin) is False
    f = gates.figures([_rec("core/a", res, reads), _rec("core/b", wrong, reads), _rec("core/c", thin, reads)])
    assert f["overall"]["groundless"] == {"count": 2, "items": ["core/b", "core/c"]}
    assert not f["ok"] and any("groundless" in m for m in f["missed"])
    # the fallback category grounds nothing and is never groundless
    unk = res.model_copy(deep=True)
    unk.category = "UNKNOWN"
    assert gates.grounded(unk) is None


def test_spec_and_log_lines_never_ground_a_category(oom):
    res, _ = oom
    fake = res.model_copy(deep=True)
    fake.evidence = [EvidenceLine(source="get_workload_spec", text='Submitted command: echo "OOMKilled"'),
                     EvidenceLine(source="kubectl logs p -n ns -c trainer",
                                  text='Failing log line of trainer: "Container trainer was OOM killed"')]
    assert gates.grounded(fake) is False


def test_a_guess_on_an_undecidable_case_is_not_an_abstention(oom):
    res, reads = oom
    guess = _rec("unknown/x", res, reads, undecidable=True)
    unk = res.model_copy(deep=True)
    unk.category, unk.limitations = "UNKNOWN", ["Tier 2 Kubernetes evidence was needed but is unavailable."]
    right = _rec("unknown/y", unk, reads, undecidable=True)
    silent = unk.model_copy(deep=True)
    silent.limitations = []  # UNKNOWN without saying what is missing is not a stated limitation
    f = gates.figures([guess, right, _rec("unknown/z", silent, reads, undecidable=True)])
    assert f["overall"]["abstention"] == {"abstained": 1, "undecidable": 3, "ratio": 0.3333}
    assert f["suites"]["unknown"]["abstention"]["ratio"] == 0.3333 and not f["ok"]


def test_writes_are_counted_and_the_token_exchange_is_not():
    sent = [("POST", "/api/v1/token", False), ("GET", "/api/v1/workloads/x", False),
            ("POST", "/api/v1/workloads", False), ("DELETE", "/api/v1/workloads/x", False),
            ("GET", "https://kube-replay.local/api/v1/namespaces/a/pods/p", True),
            ("PATCH", "https://kube-replay.local/api/v1/namespaces/a/pods/p", True)]
    assert gates.writes(sent) == ["POST /api/v1/workloads", "DELETE /api/v1/workloads/x",
                                  "PATCH https://kube-replay.local/api/v1/namespaces/a/pods/p"]


def test_top1_is_gated_on_the_selection():
    recs = [{"id": f"s/{i}", "suite": "s", "expected": _v("OOM_KILLED"), "got": _v("OOM_KILLED" if i else "UNKNOWN"),
             "gates": gates.no_result_gates(False)} for i in range(40)]
    f = gates.figures(recs)
    assert f["overall"]["top1"] == {"correct": 39, "total": 40, "ratio": 0.975}
    assert f["missed"] == ["overall: top-1 0.9750 < 0.98"]
    recs[0]["got"] = _v("OOM_KILLED")
    assert gates.figures(recs)["ok"]


def test_a_scored_scenario_carries_its_gate_facts():
    rec = score_replay("unknown/no-evidence")
    g = rec["gates"]
    assert g["undecidable"] and g["abstained"] and g["writes"] == [] and g["grounded"] is None
    rec = score_replay("mount/attach-timeout")
    assert rec["gates"]["grounded"] is True and rec["gates"]["links"][0] == rec["gates"]["links"][1] > 0


def test_a_missed_gate_fails_the_eval(tmp_path):
    # a right verdict on a case marked undecidable is still a guess: the abstention gate fails the run
    shutil.copytree(ROOT / "core/oom-metrics", tmp_path / "s/core/oom-metrics")
    case = tmp_path / "s/core/oom-metrics/case.json"
    data = json.loads(case.read_text())
    lines: list[str] = []
    assert run(None, root=tmp_path / "s", jobs=1, baseline="", echo=lines.append) == 0
    assert any("gates: PASS" in x for x in lines)
    data["undecidable"] = True
    case.write_text(json.dumps(data))
    lines.clear()
    assert run(None, root=tmp_path / "s", jobs=1, baseline="", echo=lines.append) == 1
    text = "\n".join(lines)
    assert "gates: MISSED" in text and "abstention 0.0000 < 1.0" in text


def _v(cat: str) -> dict:
    return {"outcome": "diagnosed", "category": cat, "route": None, "recurrence": None}


def _rec(sid: str, res, reads, *, undecidable: bool = False) -> dict:
    facts, _ = gates.record_gates(res, reads, [], undecidable=undecidable)
    return {"id": sid, "suite": sid.split("/")[0], "expected": _v("OOM_KILLED"),
            "got": {"outcome": res.outcome, "category": res.category, "route": res.route, "recurrence": None},
            "gates": facts}
