"""Auth for a shared service, both modes, over real HTTP against the simulator.

(a) API tokens scoped to clusters/projects (the service account reads): a token for project A probing project B
    gets 403 with no read beyond the status call that tells the project, and the answer says nothing about the
    workload; (b) pass-through: the caller's own Run:ai token reads, Run:ai's RBAC decides (a simulator whose
    tokens are scoped to projects, as Run:ai's are). No auth: loopback only.
"""
from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import time
from urllib.parse import urlsplit

import httpx
import pytest

from workload_diagnose.agent.service.auth import DENIED
from workload_diagnose.evals.scenarios import load_scenario
from workload_diagnose.evals.simulator import Handler, running_simulator
from tests.service.conftest import body_of, clear, reads
from tests.service.live import config_for, free_port, live_service, tokens

ML = load_scenario("core/oom-metrics")
CLUSTER = ML.args.cluster_id
OTHER_ID = "0d5b1c3a-7e2f-4a9b-8c6d-1e2f3a4b5c6d"
OTHER_NAME, OTHER_PROJECT = "secret-vision-train", "vision"


def two_project_world() -> dict:
    """The OOM scenario's workload in ml-team, and a copy of it in project vision (another id and name)."""
    world = json.loads(ML.world.read_text())
    w = copy.deepcopy(world["workloads"][0])
    src = w["id"]
    w.update(id=OTHER_ID, name=OTHER_NAME, projectName=OTHER_PROJECT, namespace="runai-vision")
    world["workloads"].append(w)
    for key in ("events", "pods", "history", "specs", "metrics"):
        if src in (world.get(key) or {}):
            world[key][OTHER_ID] = copy.deepcopy(world[key][src])
    return world


FAR_ID, FAR_CLUSTER = "5c0ffee0-1d2e-4f3a-8b4c-5d6e7f8a9b0c", "9b1d4e22-0000-4000-8000-000000000000"
TEXTS, TOKENS = tokens(ml=(["*"], ["ml-team"]), vision=(["*"], [OTHER_PROJECT]),
                       elsewhere=([FAR_CLUSTER], ["*"]), admin=(["*"], ["*"]), one_cluster=([CLUSTER], ["*"]))


def auth(name: str) -> dict:
    return {"Authorization": f"Bearer {TEXTS[name]}"}


@pytest.fixture(scope="module")
def world_sim():
    with running_simulator(two_project_world()) as s:
        yield s


@pytest.fixture(scope="module")
def token_service(world_sim):
    with live_service(config_for(world_sim, auth="tokens", tokens=TOKENS)) as url:
        yield url


def test_no_or_unknown_token_is_401_and_nothing_is_read(token_service, world_sim):
    clear(world_sim)
    for headers in ({}, {"Authorization": "Bearer not-a-token"}, {"Authorization": f"Basic {TEXTS['ml']}"}):
        r = httpx.post(f"{token_service}/v1/diagnoses", json=body_of(ML), headers=headers)
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    assert reads(world_sim) == []


def test_token_in_scope_diagnoses(token_service):
    r = httpx.post(f"{token_service}/v1/diagnoses", json=body_of(ML), headers=auth("ml"), timeout=30)
    assert r.status_code == 200 and r.json()["category"] == "OOM_KILLED"


def _no_leak(resp: httpx.Response) -> None:
    assert resp.json() == {"detail": DENIED}
    for secret in (OTHER_ID, OTHER_NAME, OTHER_PROJECT, "runai-vision", "OOM", "137"):
        assert secret not in resp.text


def test_scoped_token_probing_another_projects_workload_reads_only_its_status(token_service, world_sim):
    clear(world_sim)
    body = {"cluster_id": CLUSTER, "workload_id": OTHER_ID, "now": ML.args.now}
    r = httpx.post(f"{token_service}/v1/diagnoses", json=body, headers=auth("ml"), timeout=30)
    assert r.status_code == 403
    _no_leak(r)
    gets = sorted(urlsplit(p).path for m, p in reads(world_sim) if m == "GET")
    assert gets == [f"/api/v1/workloads/{OTHER_ID}"]  # the one request that tells the project: not its events
    # the owner of that project may read it
    ok = httpx.post(f"{token_service}/v1/diagnoses", json=body, headers=auth("vision"), timeout=30)
    assert ok.status_code == 200 and ok.json()["workload"]["name"] == OTHER_NAME


def test_a_missing_workload_looks_the_same_as_another_projects(token_service):
    body = {"cluster_id": CLUSTER, "workload_id": "00000000-0000-4000-8000-00000000dead", "now": ML.args.now}
    missing = httpx.post(f"{token_service}/v1/diagnoses", json=body, headers=auth("ml"), timeout=30)
    other = httpx.post(f"{token_service}/v1/diagnoses", json={**body, "workload_id": OTHER_ID}, headers=auth("ml"),
                       timeout=30)
    assert missing.status_code == other.status_code == 403 and missing.content == other.content
    # an all-projects token may learn that it does not exist
    admin = httpx.post(f"{token_service}/v1/diagnoses", json=body, headers=auth("admin"), timeout=30)
    assert admin.status_code == 200 and admin.json()["outcome"] == "needs_input"


@pytest.mark.serial
def test_a_refusal_takes_one_read_and_the_same_time_whether_the_workload_exists_or_not():
    """Simulator at 400 ms a request: another project's workload, another cluster's and one that does not exist
    are each refused after the same one read, in about the same time (an events read more would add 400 ms)."""
    world = two_project_world()
    far = copy.deepcopy(world["workloads"][0])
    far.update(id=FAR_ID, clusterId=FAR_CLUSTER, name="far-train", namespace="runai-ml-team")
    world["workloads"].append(far)
    missing = "00000000-0000-4000-8000-00000000dead"
    with running_simulator(world, delay_ms=400) as sim, \
            live_service(config_for(sim, auth="tokens", tokens=TOKENS)) as url:
        def refused(token: str, workload_id: str) -> tuple[float, list[str]]:
            clear(sim)
            t0 = time.perf_counter()
            r = httpx.post(f"{url}/v1/diagnoses", json={"cluster_id": CLUSTER, "workload_id": workload_id,
                                                         "now": ML.args.now}, headers=auth(token), timeout=30)
            took = time.perf_counter() - t0
            assert r.status_code == 403 and r.json() == {"detail": DENIED}, (token, workload_id, r.text)
            return took, [urlsplit(p).path for m, p in reads(sim) if m == "GET"]

        httpx.post(f"{url}/v1/diagnoses", json=body_of(ML), headers=auth("ml"), timeout=60)  # the token exchange
        cases = {"another project's": ("ml", OTHER_ID), "missing (project scope)": ("ml", missing),
                 "another cluster's": ("one_cluster", FAR_ID), "missing (cluster scope)": ("one_cluster", missing)}
        times = {}
        for what, (token, wid) in cases.items():
            runs = [refused(token, wid) for _ in range(3)]
            assert all(gets == [f"/api/v1/workloads/{wid}"] for _, gets in runs), (what, runs)
            times[what] = sorted(t for t, _ in runs)[1]
    assert max(times.values()) - min(times.values()) < 0.25, times  # loose: a shared machine


def test_option_b_and_cluster_out_of_scope_are_refused_before_any_read(token_service, world_sim):
    clear(world_sim)
    b = {"cluster_id": CLUSTER, "workload_name": OTHER_NAME, "project": OTHER_PROJECT, "now": ML.args.now}
    r = httpx.post(f"{token_service}/v1/diagnoses", json=b, headers=auth("ml"))
    assert r.status_code == 403
    _no_leak(r)
    r = httpx.post(f"{token_service}/v1/diagnoses", json=body_of(ML), headers=auth("elsewhere"))
    assert r.status_code == 403 and r.json() == {"detail": DENIED}
    r = httpx.post(f"{token_service}/v1/diagnoses", json=b, headers={**auth("ml"), "Accept": "text/event-stream"})
    assert r.status_code == 403
    assert reads(world_sim) == []  # not even the token exchange


def test_sse_out_of_scope_is_one_error_event_without_progress(token_service):
    body = {"cluster_id": CLUSTER, "workload_id": OTHER_ID, "now": ML.args.now}
    with httpx.stream("POST", f"{token_service}/v1/diagnoses", json=body, timeout=30,
                      headers={**auth("ml"), "Accept": "text/event-stream"}) as r:
        text = r.read().decode()
    assert re.findall(r"^event: (\w+)$", text, re.M) == ["error"]
    assert json.loads(text.split("data: ", 1)[1]) == {"status": 403, "detail": DENIED}
    assert OTHER_NAME not in text and OTHER_PROJECT not in text


# ------------------------------------------------------------------------------------------ pass-through
class ProjectScopedHandler(Handler):
    """The simulator with Run:ai-style RBAC: each token may read the workloads of some projects only (403)."""

    def do_GET(self):  # noqa: N802
        scope = self.server.rbac.get(self.headers.get("Authorization", "")[len("Bearer "):])
        parts = urlsplit(self.path)
        m = re.fullmatch(r"/api/v1/workloads(?:/(?:trainings|workspaces|inferences|distributed))?/([^/]+).*",
                         parts.path)
        wl = self.server.world.workload(m.group(1)) if m else None
        if scope is not None and wl is not None and wl["projectName"] not in scope:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with self.server.lock:
                self.server.requests.append((self.command, self.path))
            return self._error(403, "Forbidden: no access to this project")
        return super().do_GET()


@pytest.fixture(scope="module")
def rbac_sim():
    with running_simulator(two_project_world()) as s:
        s.RequestHandlerClass = ProjectScopedHandler
        s.rbac = {}
        yield s


def _runai_token(sim, projects: set[str]) -> str:
    r = httpx.post(f"{sim.url}/api/v1/token", json={"grantType": "client_credentials", "clientID": sim.client_id,
                                                   "clientSecret": sim.client_secret})
    token = r.json()["accessToken"]
    sim.rbac[token] = projects
    return token


def test_passthrough_uses_the_callers_run_ai_token_and_run_ai_decides(rbac_sim):
    ml_token = _runai_token(rbac_sim, {"ml-team"})
    with live_service(config_for(rbac_sim, auth="passthrough")) as url:
        clear(rbac_sim)
        hdr = {"Authorization": f"Bearer {ml_token}"}
        r = httpx.post(f"{url}/v1/diagnoses", json=body_of(ML), headers=hdr, timeout=30)
        assert r.status_code == 200 and r.json()["category"] == "OOM_KILLED"
        assert ("POST", "/api/v1/token") not in reads(rbac_sim)  # the service never used its own credentials
        body = {"cluster_id": CLUSTER, "workload_id": OTHER_ID, "now": ML.args.now}
        r = httpx.post(f"{url}/v1/diagnoses", json=body, headers=hdr, timeout=30)
        assert r.status_code == 403 and OTHER_NAME not in r.text  # Run:ai's 403, passed on
        r = httpx.post(f"{url}/v1/diagnoses", json=body_of(ML), headers={"Authorization": "Bearer forged"}, timeout=30)
        assert r.status_code == 401 and "forged" not in r.text
        clear(rbac_sim)
        r = httpx.post(f"{url}/v1/diagnoses", json=body_of(ML), timeout=30)
        assert r.status_code == 401 and reads(rbac_sim) == []
        assert httpx.get(f"{url}/readyz").status_code == 200  # reachable without the service's credentials


# ------------------------------------------------------------------------------------------ no auth
def _serve(*args: str, env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "workload_diagnose.agent.entrypoints.cli", "serve", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_without_auth_serve_binds_loopback_only_and_says_so():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WD_", "RUNAI_"))}
    p = _serve("--host", "0.0.0.0", "--port", str(free_port()), env=env)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 2 and "refusing to listen on 0.0.0.0" in err and "Traceback" not in err
    p = _serve("--port", str(free_port()), env={**env, "WD_KUBE": "off"})
    try:
        line = p.stderr.readline()
        assert "no auth configured" in line and "127.0.0.1" in line
    finally:
        p.terminate()
        p.wait(15)
    bad = _serve("--port", str(free_port()), env={**env, "WD_AUTH": "tokens"})
    _, err = bad.communicate(timeout=60)
    assert bad.returncode == 2 and "needs API tokens" in err


def test_token_file_holds_hashes_only(tmp_path):
    from workload_diagnose.agent.service.config import ConfigError, ServiceConfig

    f = tmp_path / "tokens.yaml"
    f.write_text("tokens:\n  - name: bot\n    token: plaintext-secret\n    clusters: ['*']\n    projects: ['*']\n")
    with pytest.raises(ConfigError, match="sha256"):
        ServiceConfig.from_env({"WD_API_TOKENS_FILE": str(f)})
    f.write_text(f"tokens:\n  - name: bot\n    sha256: {TOKENS[0].sha256}\n    clusters: ['*']\n    projects: [ml-team]\n")
    cfg = ServiceConfig.from_env({"WD_API_TOKENS_FILE": str(f)})
    assert cfg.auth == "tokens" and cfg.tokens[0].projects == frozenset({"ml-team"})
