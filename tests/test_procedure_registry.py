"""The procedure registry drives every surface, procedures build on the kit and never on each other, and the phase
routing decisions are one table whose rows carry their own samples."""
from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest

from workload_diagnose.agent.model import phases
from workload_diagnose.agent.procedures import REGISTRY, for_request, specs
from workload_diagnose.agent.procedures.kit import routing

ROOT = Path(__file__).resolve().parents[1]
PROCEDURES = ROOT / "agent" / "procedures"


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at module level or lazily inside a function (relative imports resolved)."""
    pkg = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out |= {f"{base}.{a.name}" for a in node.names} | {base}
    return out


def _procedure_packages() -> list[str]:
    return sorted(p.name for p in PROCEDURES.iterdir() if (p / "__init__.py").is_file() and p.name != "kit")


def test_every_procedure_package_is_registered_and_declares_one_spec():
    assert [f"workload_diagnose.agent.procedures.{n}" for n in _procedure_packages()] == sorted(REGISTRY)
    assert set(specs()) == {s.name for s in specs().values()}


@pytest.mark.parametrize("name", _procedure_packages())
def test_no_procedure_imports_another(name):
    others = [f"workload_diagnose.agent.procedures.{o}" for o in _procedure_packages() if o != name]
    bad = sorted(f"{f.relative_to(ROOT)}: {m}" for f in (PROCEDURES / name).rglob("*.py") for m in _imports(f)
                 if any(m == o or m.startswith(o + ".") for o in others))
    assert not bad, "procedures share through agent.procedures.kit, never by importing each other: " + "; ".join(bad)


def test_the_kit_imports_no_procedure():
    bad = sorted(f"{f.relative_to(ROOT)}: {m}" for f in (PROCEDURES / "kit").rglob("*.py") for m in _imports(f)
                 if any(m.startswith(f"workload_diagnose.agent.procedures.{p}") for p in _procedure_packages()))
    assert not bad, bad


def test_each_runai_request_type_names_one_procedure():
    for s in specs().values():
        if s.kind == "runai":
            assert for_request(s.input_type.model_construct()) is s


# ------------------------------------------------------------------------------------------- derived surfaces
def test_cli_has_one_command_per_declared_procedure_command():
    import typer

    from workload_diagnose.agent.entrypoints.cli import app

    group = typer.main.get_command(app)
    for s in specs().values():
        if s.command is not None:
            cmd = group.commands.get(s.command.name)
            assert cmd is not None, s.command.name
            if not s.command.impl:
                assert cmd.help == s.command.help


def test_http_has_one_route_per_declared_procedure_route():
    from workload_diagnose.agent.service.app import create_app
    from workload_diagnose.agent.service.config import ServiceConfig

    doc = create_app(ServiceConfig()).openapi()
    for s in specs().values():
        if s.route is not None:
            op = doc["paths"][s.route.path]["post"]
            assert op["summary"] == s.route.summary and op["tags"] == [s.route.tag]
            assert op["operationId"] == f"{s.route.operation}{s.route.path.replace('/', '_')}_post"


def test_mcp_has_one_tool_per_declared_procedure_tool():
    from workload_diagnose.agent.service.mcp import build_server

    tools = {t.name: t for t in asyncio.run(build_server().list_tools())}
    declared = {s.tool.name: s for s in specs().values() if s.tool is not None}
    assert set(tools) == set(declared)
    for name, s in declared.items():
        assert tools[name].description == s.tool.description and tools[name].annotations.read_only_hint
    params = set(tools["diagnose_failed_workload"].input_schema["properties"])
    assert params == {"cluster_id", "workload_id", "workload_name", "project", "intent", "lookback", "now"}
    assert set(tools["lifecycle_status"].input_schema["properties"]) == {"name", "namespace", "kind"}


def test_eval_case_kinds_are_the_procedures_with_eval_cases():
    from pydantic import ValidationError

    from workload_diagnose.evals.scenarios import Scenario, all_scenarios

    sc = all_scenarios(["core"])[0]
    assert sc.procedure == "runai_failed" and sc.command == "failed"
    with pytest.raises(ValidationError, match="has no eval cases"):
        Scenario(**{**sc.model_dump(), "procedure": "lifecycle"})


# ------------------------------------------------------------------------------------------------ phase table
@pytest.mark.parametrize("rule", routing.RULES, ids=lambda r: r.name)
def test_each_phase_rule_decides_its_true_sample_and_not_its_false_one(rule):
    assert routing.decide(*rule.true).rule == rule.name
    assert routing.decide(*rule.false).rule != rule.name


def test_a_failed_phase_with_a_failure_signal_goes_on():
    from workload_diagnose.agent.model.signals import Kind

    for phase in phases.FAILED:
        assert routing.decide(phase.capitalize(), {Kind.OOM}, True).rule is None


def test_phase_sets_are_written_once():
    """The phase table is the one place a set of Run:ai phases is spelled out."""
    literal = ('"crashed"', "'crashed'", '"succeeded"', "'succeeded'")
    found = sorted(str(f.relative_to(ROOT)) for d in ("agent", "evals") for f in (ROOT / d).rglob("*.py")
                   if f.name != "phases.py" and any(x in f.read_text() for x in literal))
    assert found == []
