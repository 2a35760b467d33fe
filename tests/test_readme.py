"""Every claim of the README is true, checked against the code and by running it:

- the quick start is exactly the two ``./dev`` commands, and ``./dev`` has them;
- every command of its ``sh`` blocks runs as written against ``workload-diagnose simulate`` (started as docs/try-it.md
  says, its ``export`` lines pasted), with exit 0 (or the ``# exit N`` it states) and the output it promises;
- every flag it names exists in that command's ``--help`` (a flag in a command line: that command's; a flag on its
  own: ``failed``'s, the command the text is about), and every command it names is a command;
- the install lines name the wheel ``pip wheel`` builds from this version and extras that exist;
- the exit-code table is the code's table (``agent/model/errors.py``, the CLI's Ctrl-C code, ``--help``'s text);
- every relative link of the README and of ``docs/`` resolves to a file (and a ``#fragment`` to a heading there).
"""
from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
BIN = Path(sys.executable).parent
TEXT = README.read_text()

# what a README command must show, by a substring of it (a command the table does not know: output, no traceback)
EXPECT = {
    " failed ": lambda o, e: o.startswith("Category: OOM_KILLED"),
    " pending ": lambda o, e: o.startswith("Reason: ") and "Pending" in o,
    " triage ": lambda o, e: re.search(r"^NAME +PROJECT +CATEGORY +HEADLINE", o, re.M) is not None,
    " ask ": lambda o, e: "Category: OOM_KILLED" in o and "--thread" in e,
}


def _section(title: str) -> str:
    start = TEXT.index(f"\n## {title}")
    end = TEXT.find("\n## ", start + 4)
    return TEXT[start:end if end >= 0 else len(TEXT)]


def _blocks(text: str, *langs: str) -> list[str]:
    return [b for lang, b in re.findall(r"```(\w+)\n(.*?)```", text, re.S) if lang in langs]


def _lines(block: str) -> list[str]:
    out = []
    for line in block.replace("\\\n", " ").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            out.append(line.strip())
    return out


def _expected_exit(cmd: str) -> int:
    m = re.search(r"#\s*exit\s+(\d+)\s*$", cmd)
    return int(m.group(1)) if m else 0


def _product_commands() -> list[str]:
    """The commands ``workload-diagnose --help`` lists (the developer commands too, with the evals extra)."""
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "250", "TERM": "dumb"}
    out = subprocess.run([str(BIN / "workload-diagnose"), "--help"], capture_output=True, text=True, env=env,
                         timeout=120).stdout
    return sorted(re.findall(r"^\W ([a-z][a-z-]+) {2,}\S", out.split("Commands", 1)[1], re.M))


def _help(command: str) -> str:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "250", "TERM": "dumb"}
    p = subprocess.run([str(BIN / "workload-diagnose"), command, "--help"], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0, (command, p.stderr[-1000:])
    return p.stdout


def _flags(command_line: str) -> list[str]:
    """The flags of one command line (``-p``, ``--cluster-id``; a value after ``=`` dropped)."""
    words = shlex.split(command_line.split(" #", 1)[0].rstrip("&"), posix=True)
    return [w.split("=", 1)[0] for w in words if re.fullmatch(r"--?[a-zA-Z][\w-]*(=.*)?", w)]


def _command_lines() -> list[str]:
    """Every ``workload-diagnose …`` line of the README: in code blocks and in inline code."""
    out = [ln for b in _blocks(TEXT, "sh", "console", "bash") for ln in _lines(b)]
    out += re.findall(r"`(workload-diagnose [^`]+)`", TEXT)
    return [ln for ln in out if ln.startswith("workload-diagnose ")]


def test_the_quick_start_is_the_two_dev_commands():
    (block,) = _blocks(_section("Quick start"), "bash")
    cmds = [ln.split("#", 1)[0].strip() for ln in block.splitlines() if ln.strip()]
    assert cmds == ["./dev demo", "./dev test"], cmds
    labels = re.findall(r"^  ([a-z|-]+)\)$", (REPO / "dev").read_text(), re.M)
    assert {"demo", "test"} <= {n for label in labels for n in label.split("|")}


def test_every_command_and_flag_the_readme_names_exists():
    commands = set(_product_commands())
    helps: dict[str, str] = {}
    checked = 0
    for line in _command_lines():
        words = line.split()
        name = words[1]
        if name == "COMMAND":  # `workload-diagnose COMMAND --help`: a placeholder
            continue
        assert name in commands, f"the README names `workload-diagnose {name}`, which is no command"
        helps.setdefault(name, _help(name))
        for flag in _flags(line):
            assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", helps[name]), \
                f"{flag} (README: {line!r}) is not in `workload-diagnose {name} --help`"
            checked += 1
    # a flag on its own in the text is the main command's (the text around it is about `failed`)
    helps.setdefault("failed", _help("failed"))
    bound = {f for line in _command_lines() for f in _flags(line)}
    free = {f for span in re.findall(r"`(-[^`]+)`", TEXT) for f in _flags(span.replace("|", " "))}
    assert {"--kubeconfig", "--no-kube", "--workload-name", "-p", "--workload-id", "-o", "--json"} <= free, free
    for flag in free - bound:
        assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", helps["failed"]), flag
        checked += 1
    # "`-o json|yaml|text` (or `--json`) prints a machine-readable result (`failed`, `pending`, …)"
    m = re.search(r"`-o json\|yaml\|text` \(or `--json`\) prints a machine-readable result \(([^)]+)\)", TEXT)
    assert m, "the README's sentence on -o / --json changed: update this test"
    for name in re.findall(r"`([a-z-]+)`", m.group(1)):
        text = helps.setdefault(name, _help(name))
        assert "-o" in text and "--json" in text and "yaml" in text, name
    # "Also: `preempted` (…), `chat` (…), …": each is a command
    also = re.search(r"^Also: (.+?)\. ", _section("Commands"), re.M | re.S)
    assert also and set(re.findall(r"`([a-z-]+)` \(", also.group(1))) <= commands
    assert checked >= 15


def test_the_install_lines_name_this_wheel_and_its_extras():
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    block = "\n".join(_blocks(_section("Install"), "console"))
    wheel = f"dist/workload_diagnose-{meta['version']}-py3-none-any.whl"
    assert "pip wheel --no-deps -w dist ." in block and f"pipx install {wheel}" in block, block
    extras = re.search(re.escape(wheel) + r"\[([\w,]+)\]", block).group(1).split(",")
    assert set(extras) <= set(meta["optional-dependencies"]) and meta["requires-python"] == ">=3.11"
    assert "Python 3.11 or newer" in _section("Install")


def test_the_exit_code_table_is_the_codes_table():
    from workload_diagnose.agent.entrypoints import chat_cmd, lifecycle_cmd
    from workload_diagnose.agent.model import errors

    rows = dict(re.findall(r"^\| (\d+) \| (.+?) \|$", _section("Exit codes"), re.M))
    table = {int(k): v for k, v in rows.items()}
    interrupted = 130
    assert lifecycle_cmd.EXIT_INTERRUPTED == chat_cmd.EXIT_INTERRUPTED == interrupted
    assert f"_exit_now(\"interrupted: nothing was diagnosed\", {interrupted})" in \
        (REPO / "agent/entrypoints/cli.py").read_text()
    codes = {errors.EXIT_OK, *(f.exit_code for f in errors.FAILURES), *errors.RESULT_EXITS.values(), interrupted}
    assert set(table) == codes, (sorted(table), sorted(codes))
    for f in errors.FAILURES:  # the table's own words for each failure
        assert f.meaning.split(":")[0] in table[f.exit_code], (f.exit_code, f.meaning, table[f.exit_code])
    assert "needs_input" in table[errors.EXIT_NEEDS_INPUT] and "Ctrl-C" in table[interrupted]
    # the same codes, in the same order, in what --help says
    assert re.findall(r"(?<![\w-])(\d+) ", errors.EXIT_HELP) == [str(c) for c in sorted(table)]
    assert "`serve` and `mcp --transport streamable-http` exit 1\nwhen their port is taken" in _section("Exit codes")
    assert "fail(str(e), 1)" in (REPO / "agent/entrypoints/serve_cmd.py").read_text()


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def test_every_relative_link_resolves():
    pages = [README, *sorted((REPO / "docs").rglob("*.md"))]
    seen = 0
    for page in pages:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, fragment = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            assert dest.exists(), f"{page.relative_to(REPO)} links to {target}, which does not exist"
            if fragment and dest.suffix == ".md":
                assert fragment in _anchors(dest), f"{page.relative_to(REPO)}: no heading #{fragment} in {path}"
            seen += 1
    assert seen >= 20
    listed = set(re.findall(r"\]\((docs/[\w/.-]+\.md)", _section("Documentation")))
    every = {str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md")}
    assert every <= listed, every - listed  # the README's list names every page of docs/


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    """A shell as the README's reader has it: ``workload-diagnose simulate`` running, its export lines pasted."""
    from workload_diagnose.evals.playground import read_exports

    work = tmp_path_factory.mktemp("readme")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RUNAI_", "WD_", "KUBECONFIG"))}
    env.update(PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", XDG_STATE_HOME=str(work / "state"), NO_COLOR="1",
               COLUMNS="160")
    sim = subprocess.Popen([str(BIN / "workload-diagnose"), "simulate", "--port", str(_free_port())],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=work)
    try:
        env.update(read_exports(sim.stdout))
        yield env, work
    finally:
        sim.terminate()
        try:
            sim.wait(20)
        except subprocess.TimeoutExpired:
            sim.kill()
            sim.wait(5)


def test_every_command_of_the_readme_runs_as_written(simulated):
    """The ``sh`` blocks run; a ``console`` block (lifecycle: a Kubernetes cluster) is checked by the flags test."""
    env, work = simulated
    assert "run as written against `workload-diagnose simulate`" in _section("Commands")
    ran = []
    for block in _blocks(TEXT, "sh"):
        for cmd in _lines(block):
            assert cmd.startswith("workload-diagnose "), cmd
            p = subprocess.run(["bash", "-c", cmd], env=env, cwd=work, capture_output=True, text=True, timeout=300)
            assert p.returncode == _expected_exit(cmd), (cmd, p.returncode, p.stdout[-2000:], p.stderr[-2000:])
            assert "Traceback" not in p.stderr and p.stdout.strip(), (cmd, p.stderr[-2000:])
            checks = [check for key, check in EXPECT.items() if key in f" {cmd.split(None, 1)[1]} "[:30]]
            assert all(check(p.stdout, p.stderr) for check in checks), (cmd, p.stdout[-3000:], p.stderr[-1000:])
            ran.append(cmd)
    assert len(ran) >= 4 and {c.split()[1] for c in ran} >= {"failed", "pending", "triage", "ask"}
