"""pyproject.toml's lower bounds never admit a release with a published advisory: each dependency's floor is at
least the first fixed release that dependency-floors.toml records (with the advisories it cites), every runtime
dependency and extra is in that table, and the versions installed here satisfy the floors."""
from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
TABLE = tomllib.loads((ROOT / "dependency-floors.toml").read_text())
FIXED = {canonicalize_name(n): e for part in ("runtime", "extra") for n, e in TABLE[part].items()}


def _requirements() -> dict[str, tuple[str, Requirement]]:
    """name → (where, requirement) for the runtime list, every extra and the build requirements."""
    out: dict[str, tuple[str, Requirement]] = {}
    rows = [("dependencies", r) for r in PROJECT["project"]["dependencies"]]
    rows += [(f"extra {x}", r) for x, rs in PROJECT["project"]["optional-dependencies"].items() for r in rs]
    rows += [("build-system", r) for r in PROJECT["build-system"]["requires"]]
    for where, text in rows:
        req = Requirement(text)
        if canonicalize_name(req.name) == "workload-diagnose":
            continue  # the test extra names the project's own extras
        out.setdefault(canonicalize_name(req.name), (where, req))
        if where == "build-system":  # the build tools appear twice: both floors must hold
            out[f"{canonicalize_name(req.name)} (build)"] = (where, req)
    return out


REQS = _requirements()


def _floor(req: Requirement) -> Version | None:
    lows = [Version(s.version) for s in req.specifier if s.operator in (">=", "==", "~=", ">")]
    return max(lows) if lows else None


@pytest.mark.parametrize("name", sorted(REQS))
def test_no_floor_admits_a_release_with_an_advisory(name):
    where, req = REQS[name]
    entry = FIXED.get(canonicalize_name(req.name))
    if entry is None:
        assert where == "extra test", f"{req.name} ({where}) is not in dependency-floors.toml"
        return
    floor = _floor(req)
    assert floor is not None, f"{req} ({where}) has no lower bound"
    assert floor >= Version(entry["fixed"]), f"{req} ({where}) admits releases before {entry['fixed']}: " \
                                             f"{'; '.join(entry['advisories'])}"


def test_every_entry_of_the_table_is_a_declared_dependency_with_its_reasons():
    for name, entry in FIXED.items():
        assert name in REQS, f"{name} is in dependency-floors.toml but not in pyproject.toml"
        Version(entry["fixed"])
        assert isinstance(entry["advisories"], list)


@pytest.mark.parametrize("name", sorted(n for n in REQS if "(build)" not in n))
def test_the_installed_version_satisfies_the_floor(name):
    _, req = REQS[name]
    try:
        installed = metadata.version(req.name)
    except metadata.PackageNotFoundError:
        pytest.skip(f"{req.name} is not installed here (an extra this environment does not have)")
    assert req.specifier.contains(installed, prereleases=True), f"{req.name} {installed} does not satisfy {req}"
