"""The product's entry points: one failure table, one place that reads the environment, and a CLI that finds the
developer commands only through its plugin group (the product never imports evals)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from workload_diagnose.agent.entrypoints import cli, errors
from workload_diagnose.agent.model.settings import Settings, make_kube
from workload_diagnose.tools.base import ErrorKind, ToolFailure
from workload_diagnose.tools.runai import ApiAuthError, ApiUnavailable, InvalidInput

REPO = Path(__file__).resolve().parents[1]


def test_one_table_gives_exit_codes_and_http_statuses():
    assert [(f.exc, f.exit_code) for f in errors.FAILURES] == [(InvalidInput, 2), (ApiUnavailable, 3),
                                                               (ApiAuthError, 4)]
    assert errors.http_status(InvalidInput("bad id")) == 422
    assert errors.http_status(ApiUnavailable("the Run:ai API could not answer x: GET /a answered HTTP 503")) == 502
    assert errors.http_status(ApiUnavailable("could not answer x: GET /a timed out (ReadTimeout) after 3 "
                                             "attempts")) == 504
    try:
        raise ApiUnavailable("cannot reach the Run:ai API") from ToolFailure(ErrorKind.TIMEOUT, "POST /t")
    except ApiUnavailable as e:
        assert errors.http_status(e) == 504
    assert errors.http_status(ApiAuthError("the Run:ai API at u refused the credentials (HTTP 401)")) == 401
    assert errors.http_status(ApiAuthError("the Run:ai service account may not read x (HTTP 403)")) == 403
    with pytest.raises(TypeError):
        errors.exit_code(RuntimeError("not a mapped failure"))


def test_settings_read_the_environment_once_and_explicit_values_win(tmp_path, monkeypatch):
    env = {"RUNAI_BASE_URL": "https://a.example", "RUNAI_CLIENT_ID": "id", "RUNAI_CLIENT_SECRET": "s",
           "KUBECONFIG": str(tmp_path / "kc")}
    s = Settings.from_env(env)
    assert s.runai(None, None, None) == ("https://a.example", "id", "s")
    assert s.runai("https://b.example", "", "") == ("https://b.example", "", "")
    assert s.runai("", None, None)[0] == "https://a.example"  # an empty URL falls back, as before
    assert s.kubeconfig_path("/explicit") == "/explicit"
    assert s.kubeconfig_path(None) == str(tmp_path / "kc")
    assert Settings.from_env({"KUBECONFIG": f"{tmp_path / 'a'}:{tmp_path / 'b'}"}).kubeconfig_path(None) == \
        str(tmp_path / "a")
    assert make_kube("/x", False, s) == (None, "--no-kube was given")
    kube, why = make_kube(str(tmp_path / "missing.yaml"), True, s)
    assert kube is None and why.startswith(f"the kubeconfig {tmp_path / 'missing.yaml'} could not be loaded (")


def test_the_product_never_imports_evals():
    pat = re.compile(r"^\s*(import evals|from evals[. ])|import_module\(['\"]evals", re.M)
    offenders = [str(p.relative_to(REPO)) for d in ("agent", "tools", "guardrails") for p in (REPO / d).rglob("*.py")
                 if pat.search(p.read_text())]
    assert offenders == []


def test_developer_commands_come_from_the_plugin_group():
    names = cli.app and CliRunner().invoke(cli.app, ["--help"]).output
    for cmd in ("failed", "simulate", "demo", "eval", "record", "guardrails-report", "bench"):
        assert cmd in names


class _BrokenEP:
    name, value = "evals", "workload_diagnose.evals.cli:app"

    def load(self):
        raise ModuleNotFoundError("the evals extra is not installed (no vcrpy)", name="vcr")


def test_a_plugin_that_cannot_be_imported_is_skipped_with_a_one_line_hint(monkeypatch):
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [_BrokenEP()])
    monkeypatch.setattr(cli, "PLUGINS", cli._Plugins())
    r = CliRunner().invoke(cli.app, ["eval", "core"])
    assert r.exit_code == 2
    err = r.stderr if hasattr(r, "stderr") and r.stderr else r.output
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("workload-diagnose: error: no command 'eval'")
    assert "workload-diagnose[evals]" in lines[0] and "no vcrpy" in lines[0]
    helped = CliRunner().invoke(cli.app, ["--help"])
    assert helped.exit_code == 0 and "failed" in helped.output and "simulate" not in helped.output
    assert "Not loaded: evals" in helped.output and "[evals]" in " ".join(helped.output.split())
    r = CliRunner().invoke(cli.app, ["failed", "--intent", "x"])
    assert r.exit_code == 2  # the product's own command never needs the plugin


def test_no_silent_fallback_to_the_home_kubeconfig(tmp_path, monkeypatch):
    """~/.kube/config may hold admin credentials: Tier 2 reads only --kubeconfig or KUBECONFIG (issue 10 item 16)."""
    home_kc = tmp_path / ".kube" / "config"
    home_kc.parent.mkdir()
    home_kc.write_text("apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    assert Settings.from_env({}).kubeconfig_path(None) is None
    kube, why = make_kube(None, True, Settings.from_env({}))
    assert kube is None
    assert "--kubeconfig PATH" in why and "KUBECONFIG" in why and "~/.kube/config is never read" in why


def test_without_a_kubeconfig_the_report_says_how_to_turn_tier2_on(tmp_path, monkeypatch):
    import json

    from workload_diagnose.agent.api import diagnose
    from workload_diagnose.evals.scenarios import all_scenarios
    from workload_diagnose.evals.simulator import running_simulator

    home_kc = tmp_path / ".kube" / "config"
    home_kc.parent.mkdir()
    home_kc.write_text("not: a kubeconfig\n")  # would be a different limitation if it were read
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    # a crash whose exit code only Kubernetes shows (the tier2 suite's): without Tier 2 it stays UNKNOWN
    sc = next(s for s in all_scenarios() if s.tier2 and s.suite == "tier2" and s.expected.category == "CRASH_APP_ERROR")
    a = sc.args
    with running_simulator(sc.world) as sim:
        res = diagnose(cluster_id=a.cluster_id, workload_id=a.workload_id, workload_name=a.workload_name,
                       project=a.project, intent=a.intent, lookback=a.lookback, now=a.now, runai_url=sim.url,
                       client_id=sim.client_id, client_secret=sim.client_secret, retry_sleep=lambda s: None)
    lim = next(x for x in res.limitations if "Tier 2" in x)
    assert "pass --kubeconfig PATH or set KUBECONFIG" in lim and "could not be loaded" not in lim, lim
    assert res.category == "UNKNOWN"
