"""The architecture, enforced: the layering contracts (import-linter, ``[tool.importlinter]`` in pyproject.toml),
no import cycle between modules (every import counted: lazy ones inside functions and ``TYPE_CHECKING`` ones
too), no ``_private`` name imported from another package, and nothing imports the folders by their bare names
(the installed distribution has one import name: ``workload_diagnose``).

The folders are subpackages of ``workload_diagnose`` only through the package mapping (``setup.py``), which
import-linter and grimp cannot follow; they read a view of the tree in which ``workload_diagnose/`` holds the
folders as links.
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FOLDERS = ("agent", "tools", "guardrails", "evals")


@pytest.fixture(scope="module")
def view(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("view")
    pkg = root / "workload_diagnose"
    pkg.mkdir()
    (pkg / "__init__.py").write_text((REPO / "workload_diagnose" / "__init__.py").read_text())
    for f in FOLDERS:
        (pkg / f).symlink_to(REPO / f, target_is_directory=True)
    return root


def _run(view: Path, code: str, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(view)
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300,
                          cwd=str(view), env=env)


CYCLES = r"""
import json, sys, grimp
g = grimp.build_graph("workload_diagnose", include_external_packages=False, exclude_type_checking_imports=False,
                      cache_dir=None)
adj = {m: sorted(g.find_modules_directly_imported_by(m)) for m in sorted(g.modules)}
sys.setrecursionlimit(20000)
index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in adj[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            out.append(sorted(comp))
for v in adj:
    if v not in index:
        visit(v)
print(json.dumps({"modules": len(adj), "cycles": out}))
"""


def test_no_import_cycles(view):
    p = _run(view, CYCLES)
    assert p.returncode == 0, p.stderr[-3000:]
    found = json.loads(p.stdout)
    assert found["modules"] > 150, found  # the view holds the whole product
    assert found["cycles"] == [], "\n".join(" <-> ".join(c) for c in found["cycles"])


def test_layering_contracts(view, tmp_path):
    """pyproject.toml's contracts, and one derived from the procedure registry: procedures never import each other
    (what two of them share belongs in ``agent/procedures/kit``)."""
    from workload_diagnose.agent.procedures import REGISTRY

    config = tmp_path / "contracts.toml"
    config.write_text((REPO / "pyproject.toml").read_text() + "\n[[tool.importlinter.contracts]]\n"
                      'name = "procedures never import each other"\ntype = "independence"\n'
                      f"modules = {json.dumps(list(REGISTRY))}\n")
    p = _run(view, "import sys; from importlinter.cli import lint_imports; "
                   "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True))", str(config))
    assert p.returncode == 0, (p.stdout + p.stderr)[-5000:]
    assert "broken" not in p.stdout.lower() or " 0 broken" in p.stdout, p.stdout[-3000:]


def _modules():
    for folder in FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            rel = path.relative_to(REPO).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield path, "workload_diagnose." + ".".join(parts)


def test_no_private_name_is_imported_from_another_package():
    bad = []
    for path, module in _modules():
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.ImportFrom) or not node.module or node.level:
                continue
            if not node.module.startswith("workload_diagnose."):
                continue
            target_pkg = node.module.rsplit(".", 1)[0]
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and target_pkg != package and node.module != package:
                    bad.append(f"{path.relative_to(REPO)}:{node.lineno}: {alias.name} from {node.module}")
    assert not bad, "\n".join(bad)


def test_nothing_imports_the_folders_by_their_bare_names():
    bad = []
    for path in sorted(REPO.rglob("*.py")):
        if any(part in (".venv", ".git", "build") for part in path.relative_to(REPO).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in FOLDERS:
                    bad.append(f"{path.relative_to(REPO)}:{node.lineno}: import {name}")
    assert not bad, "\n".join(bad)


def test_no_dead_code():
    """vulture at 80% confidence (unused imports, unreachable code, unused variables of functions) finds nothing."""
    p = subprocess.run([sys.executable, "-m", "vulture", *FOLDERS, "--min-confidence", "80"], capture_output=True,
                       text=True, timeout=300, cwd=str(REPO))
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-1000:]


def _logic_lines(path: Path) -> int:
    """Lines that hold code: not blank, not a comment, not a docstring."""
    import io
    import tokenize

    src = path.read_text()
    docs: set[int] = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value,
                                                                                                    str):
                docs.update(range(first.lineno, first.end_lineno + 1))
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type not in skip:
            lines.update(n for n in range(tok.start[0], tok.end[0] + 1) if n not in docs)
    return len(lines)


def test_no_module_over_500_lines_of_logic():
    big = {str(p.relative_to(REPO)): n for f in FOLDERS for p in sorted((REPO / f).rglob("*.py"))
           if (n := _logic_lines(p)) > 500}
    assert not big, big
