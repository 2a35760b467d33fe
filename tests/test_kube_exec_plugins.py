"""Kubeconfig credential plugins (``users[].user.exec``, ``auth-provider``) run only when allowed: refused → the
plugin never runs (its marker file is not created) and one line names the user entry and the way to allow it;
allowed (``--allow-kube-exec`` or ``WD_KUBE_ALLOW_EXEC=1``) → the plugin runs and its token is what the reads
send. Real CLI processes; the Kubernetes API is a local HTTP server that records each request's credentials."""
from __future__ import annotations

import json
import shlex
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml

from workload_diagnose.evals.simulator import running_simulator
from tests.conftest import CL, NOW, WID, event, workload, world
from tests.test_cli import cli

PLUGIN_TOKEN = "plugin-issued-" + "4c1d9e7a2b"


class _Api(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        self.server.seen.append((self.path, self.headers.get("Authorization")))
        body = json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound",
                           "code": 404, "message": "not found"}).encode()
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def api():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Api)
    srv.seen = []
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _kubeconfig(tmp_path, server: str, user: dict) -> str:
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "ci",
        "clusters": [{"name": "c", "cluster": {"server": server}}],
        "users": [{"name": "token-user", "user": {"token": "static-" + "0a1b2c3d"}}, {"name": "sso-admin", "user": user}],
        "contexts": [{"name": "ci", "context": {"cluster": "c", "user": "sso-admin"}}]}))
    return str(path)


def _exec_user(marker) -> dict:
    cred = json.dumps({"apiVersion": "client.authentication.k8s.io/v1beta1", "kind": "ExecCredential",
                       "status": {"token": PLUGIN_TOKEN}})
    return {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1", "command": "sh",
                     "args": ["-c", f"touch {shlex.quote(str(marker))}; printf '%s' {shlex.quote(cred)}"]}}


def _lifecycle(kubeconfig: str | None, *extra: str, env: dict | None = None):
    args = ["lifecycle", "train-1", "--namespace", "ml", "--json", *extra]
    if kubeconfig:
        args[2:2] = ["--kubeconfig", kubeconfig]
    return cli(args, env or {})


def test_lifecycle_refuses_an_exec_plugin_without_running_it(tmp_path, api):
    marker = tmp_path / "plugin-ran"
    kc = _kubeconfig(tmp_path, f"http://127.0.0.1:{api.server_port}", _exec_user(marker))
    p = _lifecycle(kc)
    assert p.returncode == 2, p.stderr
    err = p.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "'sso-admin'" in err and "credential plugin 'sh' (exec)" in err, err
    assert "--allow-kube-exec" in err and "WD_KUBE_ALLOW_EXEC=1" in err, err
    assert not marker.exists() and api.seen == []  # nothing ran, nothing was read


@pytest.mark.parametrize("how", ["flag", "env"])
def test_lifecycle_runs_an_allowed_exec_plugin_and_reads_with_its_token(tmp_path, api, how):
    marker = tmp_path / "plugin-ran"
    kc = _kubeconfig(tmp_path, f"http://127.0.0.1:{api.server_port}", _exec_user(marker))
    if how == "flag":
        p = _lifecycle(kc, "--allow-kube-exec")
    else:  # serve / mcp / lifecycle read KUBECONFIG from the environment
        p = _lifecycle(None, env={"KUBECONFIG": kc, "WD_KUBE_ALLOW_EXEC": "1"})
    assert "refused (pass" not in p.stderr, p.stderr
    assert marker.exists()
    assert api.seen and all(auth == f"Bearer {PLUGIN_TOKEN}" for _, auth in api.seen), api.seen


def test_an_auth_provider_helper_is_refused_too(tmp_path, api):
    marker = tmp_path / "plugin-ran"
    user = {"auth-provider": {"name": "gcp", "config": {
        "cmd-path": "sh", "cmd-args": f"-c 'touch {marker}'", "token-key": "{.access_token}"}}}
    kc = _kubeconfig(tmp_path, f"http://127.0.0.1:{api.server_port}", user)
    p = _lifecycle(None, env={"KUBECONFIG": kc})
    assert p.returncode == 2 and "'sso-admin' uses the auth-provider 'gcp'" in p.stderr, p.stderr
    assert not marker.exists() and api.seen == []


def test_failed_states_the_refusal_as_the_tier2_limitation(tmp_path, api):
    marker = tmp_path / "plugin-ran"
    kc = _kubeconfig(tmp_path, f"http://127.0.0.1:{api.server_port}", _exec_user(marker))
    wd = world(workload(conditions=[{"type": "Failed", "status": "True", "reason": "PodFailed",
                                     "message": "Container trainer terminated with exit code 1"}]),
               events=[event("BackOff", "Back-off restarting failed container trainer")],
               pods=[{"name": "job-a-0-0", "k8sPhase": "Error"}])
    with running_simulator(wd) as s:
        env = {"RUNAI_BASE_URL": s.url, "RUNAI_CLIENT_ID": s.client_id, "RUNAI_CLIENT_SECRET": s.client_secret}
        args = ["failed", "--cluster-id", CL, "--workload-id", WID, "--now", NOW, "--json", "--kubeconfig", kc]
        refused = cli(args, env)
        allowed = cli([*args, "--allow-kube-exec"], env)
    assert refused.returncode == 0, refused.stderr
    lims = "\n".join(json.loads(refused.stdout)["limitations"])
    assert "'sso-admin' runs the credential plugin 'sh' (exec): refused (pass --allow-kube-exec" in lims, lims
    assert allowed.returncode == 0, allowed.stderr
    assert marker.exists() and any(auth == f"Bearer {PLUGIN_TOKEN}" for _, auth in api.seen), api.seen


def test_only_the_user_of_the_loaded_context_counts():
    from workload_diagnose.tools.kube.plugins import credential_plugin, refusal

    doc = {"current-context": "ro", "contexts": [{"name": "ro", "context": {"user": "reader"}},
                                                 {"name": "admin", "context": {"user": "sso"}}],
           "users": [{"name": "reader", "user": {"token": "x"}}, {"name": "sso", "user": {"exec": {"command": "aws"}}}]}
    assert credential_plugin(doc) is None and refusal(doc) is None
    assert "'sso' runs the credential plugin 'aws'" in credential_plugin(doc, "admin")
    assert refusal(doc, "admin", environ={}) and refusal(doc, "admin", environ={"WD_KUBE_ALLOW_EXEC": "1"}) is None
    # a context that cannot be resolved: every user counts
    assert credential_plugin({**doc, "current-context": "gone"}) is not None


@pytest.mark.parametrize("command", ["failed", "lifecycle", "chat", "ask"])
def test_every_command_that_takes_a_kubeconfig_documents_the_flag(command):
    p = cli([command, "--help"], {"COLUMNS": "200"})
    assert p.returncode == 0 and "--allow-kube-exec" in p.stdout and "WD_KUBE_ALLOW_EXEC=1" in p.stdout, p.stdout
