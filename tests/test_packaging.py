"""The wheel is the product: runtime dependencies only, no scenario suite, the developer commands as a plugin.

Builds the wheel from a copy of the source tree (so the worktree gets no build/ or egg-info) without build
isolation (no network: the test extra brings setuptools and wheel) and inspects it.
"""
from __future__ import annotations

import hashlib
import json
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


def _fresh_venv(wheel: Path, where: Path, extras: str = "") -> Path:
    """A new virtualenv (no system site-packages) with the wheel installed by pip, without ./dev. Its
    dependencies come from this environment's site-packages, put on the new one's path (one path line in a
    .pth: this environment's own .pth files, the editable install of the checkout among them, are not run), so
    no index is needed; ``pip check`` then proves every requirement the wheel declares is met there."""
    import sysconfig
    import venv

    venv.EnvBuilder(with_pip=True, clear=True).create(where)
    py = where / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    target = f"{wheel}[{extras}]" if extras else str(wheel)
    p = subprocess.run([str(py), "-m", "pip", "install", "--no-deps", "--no-index", "--disable-pip-version-check", "-q",
                        target], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return py


def _clean_env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")
           and not k.startswith(("WD_", "RUNAI_", "KUBECONFIG"))}
    return {**env, **extra}


@pytest.mark.slow
def test_pip_install_of_the_wheel_into_a_fresh_venv_runs_the_commands(wheel, tmp_path):
    """``pip install workload_diagnose-*.whl`` (what ``pip install workload-diagnose`` and ``pipx install`` do)
    gives a working ``workload-diagnose`` without ./dev or the checkout."""
    py = _fresh_venv(wheel, tmp_path / "venv", extras="slack")
    exe = tmp_path / "venv" / "bin" / "workload-diagnose"
    env = _clean_env()
    where = subprocess.run([str(py), "-c", "import workload_diagnose, slack_sdk; print(workload_diagnose.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert where.stdout.startswith(str(tmp_path / "venv")), where.stdout + where.stderr
    check = subprocess.run([str(py), "-m", "pip", "check", "--disable-pip-version-check"], capture_output=True,
                           text=True, cwd=tmp_path, env=env, timeout=120)
    assert check.returncode == 0, check.stdout[-2000:]
    for args, words in ((["--help"], ["failed", "serve", "mcp", "triage", "lifecycle"]),
                        (["serve", "--help"], ["--port", "--workers", "--allowed-host"])):
        p = subprocess.run([str(exe), *args], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
        assert p.returncode == 0 and all(w in p.stdout for w in words), (args, p.stdout[-1500:], p.stderr[-1500:])
        assert "Traceback" not in p.stderr
    # serve --help names the service's documentation by a path an operator can open on this machine: the wheel's copy
    wide = subprocess.run([str(exe), "serve", "--help"], capture_output=True, text=True, cwd=tmp_path,
                          env={**env, "COLUMNS": "400"}, timeout=120).stdout
    m = re.search(r"installed with the package\): (\S+service\.md)", wide)
    assert m and m.group(1).startswith(str(tmp_path / "venv")), wide[-2000:]
    doc = Path(m.group(1))
    assert doc.is_file() and doc.read_text().startswith("# The HTTP service")
    for page in re.findall(r"\]\(([\w./-]+\.md)\)", doc.read_text()):  # its links to other pages resolve too
        assert (doc.parent / page).is_file(), page


def _unavailable(what: str) -> None:
    if os.environ.get("WD_REQUIRE_K8S", "").strip().lower() not in ("", "0", "false", "no"):
        pytest.fail(f"{what} (WD_REQUIRE_K8S is set, so this is a failure)", pytrace=False)
    pytest.skip(what)


@pytest.mark.slow
def test_the_installed_service_runs_on_a_read_only_root_filesystem_as_the_deployment_runs_it(wheel):
    """What the Dockerfile installs, run as deploy/kubernetes runs it: the Deployment's own arguments, the root
    filesystem read-only (a private mount namespace where ``/`` is remounted read-only), an empty writable volume
    on /tmp that is HOME and TMPDIR, no byte code written. The service starts, answers, keeps an alert's record
    in HOME, stops on SIGTERM, and nothing in the installation changed. (The image's non-root UID is not run
    here: this interpreter lives under a directory only root may enter; tests/deploy checks the USER line.)"""
    import shutil
    import signal
    import tempfile
    import time

    import httpx
    import yaml

    from tests.service.live import free_port, tokens
    from workload_diagnose.evals.scenarios import load_scenario
    from workload_diagnose.evals.simulator import running_simulator

    if os.geteuid() != 0 or shutil.which("unshare") is None:
        _unavailable("needs root and unshare(1) to remount / read-only in a private mount namespace")
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", "mount -o remount,bind,ro /"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        _unavailable(f"cannot remount / read-only in a mount namespace here: {probe.stderr.strip()[:200]}")
    dep = yaml.safe_load((REPO / "deploy/kubernetes/base/deployment.yaml").read_text())
    container = dep["spec"]["template"]["spec"]["containers"][0]
    env_of = {e["name"]: e.get("value") for e in container["env"]}
    assert env_of["HOME"] == env_of["TMPDIR"] == "/tmp"
    port = free_port()
    args = [str(port) if a == "8080" else a for a in container["args"]]
    base = Path(tempfile.mkdtemp(prefix="wd-image-", dir="/var/tmp"))  # outside /tmp, which the volume hides
    sc = load_scenario("core/oom-metrics")
    texts, _ = tokens(bot=(["*"], ["*"]))
    doc = {"tokens": [{"name": "bot", "sha256": hashlib.sha256(texts["bot"].encode()).hexdigest(),
                       "clusters": ["*"], "projects": ["*"]}]}
    try:
        _fresh_venv(wheel, base / "venv")
        before = sorted((str(p), p.stat().st_mtime_ns) for p in base.rglob("*"))
        exe = base / "venv" / "bin" / "workload-diagnose"
        script = ("mount -o remount,bind,ro / && mount -t tmpfs -o size=256m,mode=1777 tmpfs /tmp && cd /tmp && "
                  f"exec {exe} " + " ".join(args))
        with running_simulator(json.loads(sc.world.read_text())) as sim:
            env = _clean_env(HOME="/tmp", TMPDIR="/tmp", PYTHONDONTWRITEBYTECODE="1", WD_KUBE="off",
                             RUNAI_BASE_URL=sim.url, RUNAI_CLIENT_ID=sim.client_id,
                             RUNAI_CLIENT_SECRET=sim.client_secret, WD_API_TOKENS=json.dumps(doc))
            p = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-c", script], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            try:
                url, h = f"http://127.0.0.1:{port}", {"Authorization": f"Bearer {texts['bot']}"}
                deadline = time.monotonic() + 60
                while True:
                    assert p.poll() is None, p.stderr.read()[-3000:]
                    try:
                        if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                            break
                    except httpx.HTTPError:
                        pass
                    assert time.monotonic() < deadline, "the service did not start"
                    time.sleep(0.2)
                assert httpx.get(f"{url}/readyz").json()["runai"] == "reachable"
                assert httpx.get(f"{url}/docs/assets/swagger-ui.css").status_code == 200
                alert = {"status": "firing", "labels": {"alertname": "RunaiWorkloadFailed",
                                                        "workload_id": sc.args.workload_id,
                                                        "cluster_id": sc.args.cluster_id},
                         "annotations": {}, "startsAt": "2026-12-01T10:00:00Z", "endsAt": "0001-01-01T00:00:00Z",
                         "generatorURL": "", "fingerprint": "5e1f"}
                body = {"version": "4", "groupKey": "{}", "truncatedAlerts": 0, "status": "firing", "receiver": "r",
                        "groupLabels": {}, "commonLabels": {}, "commonAnnotations": {}, "externalURL": "",
                        "alerts": [alert]}
                rid = httpx.post(f"{url}/v1/alertmanager", json=body, headers=h, timeout=30).json()["alerts"][0]["id"]
                while (rec := httpx.get(f"{url}/v1/alertmanager/diagnoses/{rid}", headers=h).json())["state"] in (
                        "queued", "running"):
                    assert time.monotonic() < deadline + 60
                    time.sleep(0.2)
                assert rec["state"] == "done", rec  # kept in HOME on the volume
            finally:
                p.send_signal(signal.SIGTERM)
                _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err[-3000:]
        assert "Traceback" not in err and "Read-only file system" not in err, err[-3000:]
        assert sorted((str(q), q.stat().st_mtime_ns) for q in base.rglob("*")) == before  # the install is untouched
    finally:
        shutil.rmtree(base, ignore_errors=True)
