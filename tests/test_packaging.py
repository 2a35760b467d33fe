"""The wheel is the product: runtime dependencies only, no scenario suite, the developer commands as a plugin.

Builds the wheel from a copy of the source tree (so the worktree gets no build/ or egg-info) without build
isolation (no network: the test extra brings setuptools and wheel) and inspects it.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEV_ONLY = {"vcrpy", "jsonschema", "openapi-core", "pytest", "pytest-xdist"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src") / "workload-diagnose"
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(".venv", ".git", "out", "build", "dist", "*.egg-info",
                                                             "__pycache__", ".pytest_cache"))
    # a developer tree keeps the egg-info of an older editable install, whose SOURCES.txt lists the scenarios
    stale = src / "workload_diagnose.egg-info"
    stale.mkdir(exist_ok=True)
    (stale / "SOURCES.txt").write_text("".join(f"{p.relative_to(src)}\n" for p in
                                               sorted((src / "evals" / "scenarios").rglob("*")) if p.is_file()))
    out = tmp_path_factory.mktemp("wheel")
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                        "--disable-pip-version-check", "-q", "-w", str(out), str(src)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    (whl,) = out.glob("workload_diagnose-*.whl")
    return whl


def _metadata(zf: zipfile.ZipFile, name: str) -> str:
    (path,) = [n for n in zf.namelist() if n.endswith(f".dist-info/{name}")]
    return zf.read(path).decode()


@pytest.mark.slow
def test_runtime_requirements_have_no_developer_tools(wheel):
    with zipfile.ZipFile(wheel) as zf:
        meta = _metadata(zf, "METADATA")
    reqs = re.findall(r"^Requires-Dist: (.+)$", meta, re.M)
    unconditional = {re.split(r"[\s<>=!~;\[(]", r, maxsplit=1)[0].lower() for r in reqs if "extra ==" not in r}
    assert unconditional >= {"langgraph", "httpx", "kubernetes", "pydantic", "typer", "google-re2"}
    assert not unconditional & DEV_ONLY, unconditional & DEV_ONLY
    assert any(r.startswith("vcrpy") and "extra == \"evals\"" in r for r in reqs), reqs
    assert re.search(r"^Provides-Extra: evals$", meta, re.M) and re.search(r"^Provides-Extra: test$", meta, re.M)


@pytest.mark.slow
def test_no_scenario_suite_and_no_tests_in_the_wheel(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        entry_points = _metadata(zf, "entry_points.txt")
    assert not [n for n in names if "evals/scenarios/" in n]
    assert not [n for n in names if n.startswith(("tests/", "workload_diagnose/tests/"))
                or n.endswith((".yaml", ".json")) and "evals/" in n]
    # one top-level import name: every module lives under workload_diagnose/
    tops = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith((".dist-info", ".data"))}
    assert tops == {"workload_diagnose"}, tops
    assert "workload_diagnose/agent/entrypoints/cli.py" in names and "workload_diagnose/evals/cli.py" in names
    assert "workload_diagnose/__init__.py" in names
    assert any(n.startswith("workload_diagnose/guardrails/corpora/") for n in names)  # the product's own data
    assert "workload-diagnose = workload_diagnose.agent.entrypoints.cli:main" in entry_points
    assert re.search(r"\[workload_diagnose\.commands\]\s+evals = workload_diagnose\.evals\.cli:app", entry_points)


@pytest.mark.slow
def test_installs_beside_packages_named_agent_tools_and_guardrails(wheel, tmp_path):
    """A support bot that embeds us often has its own ``agent`` or ``tools`` package, and ``guardrails-ai`` installs
    ``guardrails``: the wheel and those install into one environment and each imports its own code."""
    site = tmp_path / "site"
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--disable-pip-version-check",
                        "-q", "--target", str(site), str(wheel)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    for name in ("agent", "tools", "guardrails", "evals"):  # someone else's packages of the same names
        (site / name).mkdir()
        (site / name / "__init__.py").write_text(f"OWNER = 'not workload-diagnose: {name}'\n")
    probe = (
        "import agent, tools, guardrails, evals\n"
        "assert all(m.OWNER.startswith('not workload-diagnose') for m in (agent, tools, guardrails, evals))\n"
        "from workload_diagnose import diagnose, chat, DiagnosisResult\n"
        "import workload_diagnose.guardrails as g\n"
        "assert g.redact('password=hunter2hunter2') != 'password=hunter2hunter2'\n"
        "import workload_diagnose.agent.entrypoints.cli\n"
        f"assert workload_diagnose.__file__.startswith({str(site)!r}), workload_diagnose.__file__\n"
        "print('ok', diagnose.__module__)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                       env=env)
    assert p.returncode == 0 and "ok workload_diagnose.agent.api" in p.stdout, p.stderr[-3000:]


@pytest.mark.slow
def test_every_product_module_is_in_the_wheel(wheel):
    """A folder of modules without ``__init__.py`` is skipped by the package finder: its modules would be missing
    from an installed product (an import error only a user would see)."""
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    missing = sorted(str(p.relative_to(REPO)) for top in ("agent", "tools", "guardrails") for p in
                     (REPO / top).rglob("*.py") if "__pycache__" not in p.parts
                     and f"workload_diagnose/{p.relative_to(REPO)}" not in names)
    assert not missing, missing
