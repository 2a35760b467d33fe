"""./dev as a person types it: no command, `help`, `-h` print one clean usage (every subcommand of the script on one
line); an unknown command prints the usage on stderr and exits 2. `./dev test` (and `./dev system`) installs the
system tools the tests use, headless Chromium first, the way CI gets them (Debian's packages through apt-get, as
root), and otherwise says exactly what to install. The install path runs here against a stand-in apt-get."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEV = REPO / "dev"


def _run(*args: str, cwd: Path = REPO, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(cwd / "dev"), *args], capture_output=True, text=True, timeout=60, cwd=cwd,
                          env=env)


def _subcommands() -> set[str]:
    """The script's own case labels (the commands it runs), not the usage's words."""
    labels = re.findall(r"^  ([a-z|-]+)\)$", DEV.read_text(), re.M)
    return {name for label in labels for name in label.split("|") if not name.startswith("-")}


@pytest.mark.parametrize("args", [(), ("help",), ("-h",), ("--help",)])
def test_usage_lists_every_subcommand_on_one_line(args):
    p = _run(*args)
    assert p.returncode == 0 and p.stderr == "", (p.returncode, p.stderr)
    lines = p.stdout.splitlines()
    assert lines[0] == "usage: ./dev COMMAND [ARGS]"
    listed = {ln.split()[0]: ln for ln in lines[1:] if ln.startswith("  ") and ln.strip()}
    assert set(listed) == _subcommands() == {"demo", "test", "system", "bench", "help"}, listed
    assert len(lines) == 1 + len(listed)  # one line each, nothing else
    assert all(len(ln) <= 120 for ln in lines)


def test_an_unknown_command_prints_the_usage_and_exits_2():
    p = _run("tset")
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("./dev: unknown command 'tset'\nusage: ./dev COMMAND [ARGS]\n"), p.stderr


def test_dev_test_installs_the_system_tools_before_the_tests():
    body = DEV.read_text()
    test_case = body[body.index("\n  test)\n"):body.index(";;", body.index("\n  test)\n"))]
    assert test_case.index("system_tools") < test_case.index("pytest")
    tools = re.search(r'SYSTEM_TOOLS=\$\{WD_SYSTEM_TOOLS:-"([^"]+)"\}', body).group(1).split()
    assert "chromium:chromium" in tools  # what tests/triage/test_html.py and tests/service/test_docs_offline.py run
    ci = (REPO / ".ci" / "run").read_text()
    for pair in tools:  # the same Debian packages CI installs
        assert f"install -y -qq {pair.split(':')[1]}" in ci, pair


def _sandbox(tmp_path: Path, uid: int) -> tuple[Path, dict]:
    """A copy of ./dev and a PATH whose apt-get and id are stand-ins: apt-get records what it was asked."""
    work = tmp_path / "repo"
    work.mkdir()
    shutil.copy(DEV, work / "dev")
    fake = tmp_path / "bin"
    fake.mkdir()
    log = tmp_path / "apt-calls"
    (fake / "apt-get").write_text(f"#!/bin/sh\necho \"$*\" >> {log}\n")
    (fake / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    for f in fake.iterdir():
        f.chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}",
           "WD_SYSTEM_TOOLS": "wd-no-such-browser:wd-browser-pkg bash:bash"}
    return work, env


def test_a_missing_tool_is_installed_with_apt_get_as_root(tmp_path):
    work, env = _sandbox(tmp_path, 0)
    p = _run("system", cwd=work, env=env)
    assert p.returncode == 0, p.stderr
    calls = (tmp_path / "apt-calls").read_text().splitlines()
    assert calls == ["update -qq", "install -y -qq wd-browser-pkg"], calls  # bash is present: not installed
    assert "# system tools: apt-get install wd-browser-pkg" in p.stderr


def test_without_root_it_says_exactly_what_to_install(tmp_path):
    work, env = _sandbox(tmp_path, 1000)
    p = _run("system", cwd=work, env=env)
    assert p.returncode == 0 and not (tmp_path / "apt-calls").exists()
    assert "sudo apt-get install -y wd-browser-pkg" in p.stderr, p.stderr
