"""The bundled suite scores 100% on replay; the scoreboard is deterministic; its HTML is self-contained and shows
the confusion matrix; its JUnit XML has the structure CI expects; a regression against the baseline fails."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from workload_diagnose.evals.reports import html_report, junit_xml, scoreboard_json, write_outputs
from workload_diagnose.evals.scenarios import ROOT, all_scenarios
from workload_diagnose.evals.suite import DEFAULT_BASELINE, evaluate, regressions, run


@pytest.fixture(scope="module")
def scored():
    return evaluate(None, jobs=2)


def test_the_suite_is_big_and_covers_every_category_route_and_shape(scored):
    board, _ = scored
    assert board["scenarios"] >= 80
    assert {"core", "oom", "image-pull", "crash", "init", "mount", "node", "policy", "unknown", "routes", "option-b",
            "recurrence", "resilience", "names"} <= set(board["suites"])
    cats = {r["expected"]["category"] for r in board["results"]}
    routes = {r["expected"]["route"] for r in board["results"]}
    assert {"OOM_KILLED", "IMAGE_PULL_FAILED", "INIT_FAILED", "DATASOURCE_MOUNT_FAILED", "CRASH_APP_ERROR",
            "NODE_FAILURE", "SCHEDULING_POLICY_TERMINATED", "UNKNOWN"} <= cats
    assert {"preempted", "pending_scheduling", "completed", "suspended", "phase_not_terminal", "cluster_mismatch",
            "missing_parameters", "no_matching_workload", "running_without_failure"} <= routes
    # several shapes per failure category; every sibling procedure's verdict (reason, state) at least twice
    from workload_diagnose.agent.taxonomy.registry import NAMES

    per_cat = {}
    for r in board["results"]:
        per_cat[r["expected"]["category"]] = per_cat.get(r["expected"]["category"], 0) + 1
    assert all(per_cat[c] >= 4 for c in NAMES), {c: per_cat.get(c) for c in NAMES}
    assert all(per_cat[c] >= 2 for c in cats if c), per_cat


def test_bundled_suite_scores_100_percent_on_replay(scored):
    board, _ = scored
    bad = [(r["id"], r["problems"]) for r in board["results"] if not r["pass"] and not r["xfail"]]
    assert bad == []
    a = board["accuracy"]
    for k in ("outcome", "category", "route", "verdict", "recurrence", "all_checks"):
        assert a[k]["correct"] == a[k]["total"] > 0, k
    assert board["citation_coverage"]["cited"] == board["citation_coverage"]["total"] > 0
    assert board["invented_values"]["count"] == 0
    assert board["secrets_leaked"]["count"] == 0
    assert board["tool_calls"]["under_minimum"] == []
    # the release gates: every cited line is in the read it names, undecidable cases abstain, no category is
    # groundless, nothing is written
    g = board["gates"]["overall"]
    assert g["top1"]["ratio"] >= 0.98 and g["link_precision"]["ratio"] == 1.0 and g["link_precision"]["cited"] > 300
    assert g["abstention"]["undecidable"] >= 12 and g["abstention"]["ratio"] == 1.0
    assert g["groundless"]["count"] == 0 and g["writes"]["count"] == 0
    assert board["gates"]["ok"] and set(board["gates"]["suites"]) == set(board["suites"])
    assert board["ok"] is True
    # known defects stay visible: each is a real expected failure with its reason
    marked = {s.id for s in all_scenarios(include_known_defects=True) if s.known_defect}
    assert set(board["xfail"]) | set(board["xpass"]) == marked


# a selection with paging worlds, hostile evidence, the largest world and per-workload diagnoses (health)
SAME_BYTES = ["core", "health", "option-b"]


def test_the_same_suite_gives_the_same_json_bytes(scored):
    """The same selection gives the same bytes in one process and in worker processes, and each scenario's record
    is the one the whole suite (two workers) gave it."""
    board, timings = scored
    one, _ = evaluate(SAME_BYTES, jobs=1)
    two, _ = evaluate(SAME_BYTES, jobs=2)
    assert scoreboard_json(one) == scoreboard_json(two)
    whole = {r["id"]: r for r in board["results"]}
    assert one["results"] and all(json.dumps(r, sort_keys=True) == json.dumps(whole[r["id"]], sort_keys=True)
                                  for r in one["results"])
    assert "replay" in timings and "_seconds" not in scoreboard_json(board)


def test_html_is_self_contained_and_draws_the_confusion_matrix(scored):
    board, timings = scored
    page = html_report(board, timings)
    assert page.startswith("<!DOCTYPE html>")
    low = page.lower()
    for forbidden in ("<script", "<link", "<img", "<iframe", " src=", "url(", "@import", "https://"):
        assert forbidden not in low, forbidden
    # the only URL is the SVG namespace, which is never fetched
    assert set(re.findall(r"http://[^\s\"'<>]+", page)) == {"http://www.w3.org/2000/svg"}
    svg = page[page.index("<svg"): page.index("</svg>") + 6]
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    rects = root.findall(f"{ns}rect")
    conf = board["confusion"]
    rows = [i for i, row in enumerate(conf["matrix"]) if any(row)]
    assert len(rows) >= 15 and len(rects) >= len(rows) ** 2
    titles = [r.find(f"{ns}title").text for r in rects]
    # every diagonal cell shows the count of its row
    for i in rows:
        lab = conf["labels"][i]
        n = conf["matrix"][i][i]
        assert f"expected {lab}, got {lab}: {n}" in titles
    texts = {t.text for t in root.iter(f"{ns}text")}
    assert {"OOM_KILLED", "routed:preempted", "needs_input:missing_parameters"} <= texts


def _check_junit(doc: bytes) -> ET.Element:
    """A small schema of our own for the JUnit XML that CI servers read (Jenkins/GitLab/GitHub flavour)."""
    root = ET.fromstring(doc)
    assert root.tag == "testsuites"
    allowed_case_children = {"failure", "skipped", "error", "system-out", "system-err"}
    totals = dict(tests=0, failures=0, errors=0, skipped=0)
    for ts in root:
        assert ts.tag == "testsuite"
        assert set(ts.attrib) == {"name", "tests", "failures", "errors", "skipped", "time"}
        cases = list(ts)
        assert all(c.tag == "testcase" for c in cases)
        counted = dict(tests=len(cases), failures=0, errors=0, skipped=0)
        for c in cases:
            assert set(c.attrib) == {"classname", "name", "time"}
            assert c.get("name") and c.get("classname")
            float(c.get("time"))
            kinds = [x.tag for x in c]
            assert set(kinds) <= allowed_case_children
            assert sum(k in ("failure", "skipped", "error") for k in kinds) <= 1
            for x in c:
                if x.tag in ("failure", "error"):
                    assert "message" in x.attrib and "type" in x.attrib
                if x.tag == "skipped":
                    assert set(x.attrib) <= {"message"}
            counted["failures"] += "failure" in kinds
            counted["errors"] += "error" in kinds
            counted["skipped"] += "skipped" in kinds
        for k, v in counted.items():
            assert int(ts.get(k)) == v, (ts.get("name"), k)
            totals[k] += v
        float(ts.get("time"))
    for k, v in totals.items():
        assert int(root.get(k)) == v
    return root


def test_junit_xml_validates(scored):
    board, timings = scored
    root = _check_junit(junit_xml(board, timings))
    assert int(root.get("failures")) == 0
    names = {c.get("name") for c in root.iter("testcase")}
    assert "oom-metrics" in names
    skipped = [c for c in root.iter("testcase") if c.find("skipped") is not None]
    assert len(skipped) == len(board["skipped"]) + len(board["xfail"])


def test_a_failing_scenario_and_a_regression_fail_the_run(tmp_path, scored):
    board, timings = scored
    # a copy of two scenarios; one now expects something else (as if the code had regressed)
    for sid in ("core/oom-metrics", "core/route-completed"):
        shutil.copytree(ROOT / sid, tmp_path / "s" / sid)
    case = tmp_path / "s" / "core/oom-metrics" / "case.json"
    data = json.loads(case.read_text())
    data["expected"]["category"] = "NODE_FAILURE"
    case.write_text(json.dumps(data))
    base = tmp_path / "baseline.json"
    base.write_text(scoreboard_json(board))  # the real board: core/oom-metrics passed there
    out = tmp_path / "out"
    lines: list[str] = []
    rc = run(None, root=tmp_path / "s", jobs=1, out=out, baseline=base, echo=lines.append)
    assert rc == 1
    text = "\n".join(lines)
    assert "REGRESSION core/oom-metrics: passed in the baseline, now fails" in text
    written = json.loads((out / "scoreboard.json").read_text())
    assert written["failed"] == 1 and written["regressions"]
    root = _check_junit((out / "junit.xml").read_bytes())
    assert int(root.get("failures")) == 2  # the scenario and the baseline check
    # without the broken expectation the same baseline gives no regression
    data["expected"]["category"] = "OOM_KILLED"
    case.write_text(json.dumps(data))
    assert run(None, root=tmp_path / "s", jobs=1, baseline=base, echo=lambda *_: None) == 0


def test_regressions_compare_calls_leaks_and_faults(scored):
    board, _ = scored
    worse = json.loads(scoreboard_json(board))
    r = worse["results"][0]
    r["tool_calls"]["observed"] += 1
    r["invented"] = ["12345"]
    got = regressions(worse, board)
    assert any("tool calls" in x for x in got) and any("invented" in x for x in got)
    assert regressions(board, board) == []


def test_stored_baseline_matches_the_suite(scored):
    board, _ = scored
    assert DEFAULT_BASELINE.exists(), "commit evals/baseline.json (workload-diagnose eval --faults --out DIR)"
    assert regressions(board, json.loads(DEFAULT_BASELINE.read_text())) == []


def test_eval_command_writes_every_output(tmp_path):
    r = subprocess.run([sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", "eval", "core/oom-metrics", "names", "--jobs", "1",
                        "--out", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "verdict accuracy" in r.stdout and "baseline" in r.stdout
    for f in ("scoreboard.json", "timings.json", "junit.xml", "report.html"):
        assert (tmp_path / f).stat().st_size > 0
    assert json.loads((tmp_path / "scoreboard.json").read_text())["scenarios"] == 1 + len(all_scenarios(["names"]))
    write_outputs(tmp_path / "again", *evaluate(["core/oom-metrics", "names"], jobs=1))
    assert (tmp_path / "again" / "scoreboard.json").read_text() == (tmp_path / "scoreboard.json").read_text()
    assert Path(tmp_path / "report.html").read_text().count("<svg") == 1
