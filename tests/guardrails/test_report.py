"""The measuring function runs end to end (small sizes here; the 50 MB run is `guardrails.report.main()`)."""

from __future__ import annotations

import json

from workload_diagnose.guardrails.report import main


def test_report_small_run_meets_targets(tmp_path, capsys):
    out = tmp_path / "report.json"
    rep = main(argv=["--size-mb", "1", "--adversarial-n", "20000", "--out", str(out)])
    assert out.exists()
    data = json.loads(out.read_text())
    assert data["targets"].keys() == rep["targets"].keys()
    t = rep["targets"]
    assert t["known_format_full_span_recall"]["value"] == 1.0
    assert t["generic_key_labelled_recall"]["value"] >= 0.98
    assert t["benign_lines_altered"]["value"] <= 0.005
    assert t["idempotence_violations"]["value"] == 0
    assert rep["throughput"]["planted_secrets_leaked"] == 0
    assert rep["injection"]["detection_rate"] >= 0.95
    printed = capsys.readouterr().out
    assert "known_format_full_span_recall" in printed and "all targets met" in printed
