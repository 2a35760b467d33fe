"""The Run:ai URL (item 6) and TLS trust (item 7): bad URLs are one line and exit 2, a path prefix is served under
the prefix with the read-only guard exact, a private CA is trusted only when named (--ca-file wins over the
environment), plain http:// to a host that is not loopback is warned about."""
from __future__ import annotations

import shutil
import ssl
import subprocess

import httpx
import pytest

from tests.hostile.conftest import diagnose_at
from workload_diagnose.evals.hostile import hostile, strip_prefix
from workload_diagnose.tools.base import WriteRefused
from workload_diagnose.tools.runai import ApiUnavailable, InvalidInput, RunaiClient
from workload_diagnose.tools.runai.rest import check_base_url
from workload_diagnose.tools.transport import classify_request, plain_http_warning


@pytest.mark.parametrize("url", ["127.0.0.1:18780", "not a url", "ftp://host", "http://", "https://:443",
                                 "https://user:pw@host", "http://host?x=1", "http://host#f", "http://host:99999",
                                 "http://ho st", ""])
def test_bad_urls_are_invalid_input(url):
    with pytest.raises(InvalidInput) as e:
        RunaiClient(url or " ", "id", "secret")
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("url, kept", [("https://host/runai/", "https://host/runai"),
                                       ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
                                       ("HTTPS://Host.Example:8443/a/b", "HTTPS://Host.Example:8443/a/b")])
def test_good_urls_are_kept(url, kept):
    assert check_base_url(url) == kept


def test_the_env_url_is_named_when_it_is_bad(monkeypatch):
    from workload_diagnose.agent.api import diagnose

    monkeypatch.setenv("RUNAI_BASE_URL", "runai.example.com")
    with pytest.raises(InvalidInput, match="^RUNAI_BASE_URL 'runai.example.com' is not a usable URL"):
        diagnose(cluster_id="3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11", workload_id="b737c6a0-026f-553d-b1f4-80fbc22664b8",
                 client_id="x", client_secret="y")


def test_path_prefix_is_used_for_every_request_and_the_token(oom_world):
    rules = [("GET", r".*", strip_prefix("/runai")), ("POST", r".*", strip_prefix("/runai"))]
    with hostile(oom_world, rules) as (srv, sim):
        res = diagnose_at(srv.url + "/runai", sim)
        seen = list(srv.seen)
    assert res.category == "OOM_KILLED"
    assert seen[0] == ("POST", "/runai/api/v1/token")
    assert all(t.startswith("/runai/api/v1/") for _, t in seen), seen
    # reports cite the API path, as before (the prefix is where the API is mounted, not part of the call)
    assert all(c.request.startswith("GET /api/v1/") for c in res.tool_calls)


def test_the_guard_is_exact_under_a_prefix(oom_world):
    assert classify_request("POST", "/runai/api/v1/token", "/runai") == "token"
    assert classify_request("POST", "/runai/api/v2/token/", "/runai") == "token"
    assert classify_request("POST", "/api/v1/token", "/runai") == "write"  # outside the configured prefix
    assert classify_request("POST", "/runai/api/v1/workloads", "/runai") == "write"
    assert classify_request("POST", "/other/api/v1/token", "/runai") == "write"
    assert classify_request("GET", "/runai/api/v1/workloads", "/runai") == "read"
    with hostile(oom_world, []) as (srv, sim):
        rc = RunaiClient(srv.url + "/runai", sim.client_id, sim.client_secret)
        try:
            for method, path in (("POST", "/api/v1/workloads"), ("DELETE", "/api/v1/workloads/x"),
                                 ("POST", "/runai/api/v1/token"), ("PUT", "/api/v1/token")):
                with pytest.raises(WriteRefused):
                    rc._http.request(method, path)
        finally:
            rc.close()
        assert srv.seen == []  # nothing reached the socket


def test_plain_http_warning():
    assert "unencrypted" in plain_http_warning("http://runai.example.com/runai")
    assert plain_http_warning("http://127.0.0.1:8080") is None
    assert plain_http_warning("http://localhost:8080") is None
    assert plain_http_warning("http://[::1]:8080") is None
    assert plain_http_warning("https://runai.example.com") is None


def test_the_cli_prints_the_http_warning_once(monkeypatch):
    from typer.testing import CliRunner

    from workload_diagnose.agent.entrypoints.cli import app

    run = CliRunner().invoke(app, ["failed", "--cluster-id", "3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11", "--workload-id",
                                   "b737c6a0-026f-553d-b1f4-80fbc22664b8", "--runai-url", "http://runai.example.com",
                                   "--timeout", "0"])
    assert run.exit_code == 2
    lines = run.stderr.splitlines() if hasattr(run, "stderr") else run.output.splitlines()
    assert lines[0].startswith("workload-diagnose: warning: http://runai.example.com is plain http://")
    assert lines[1].startswith("workload-diagnose: error: --timeout must be a number of seconds above 0")


# ------------------------------------------------------------------------------------------ private CA
@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a private CA (.ci/run installs it)")
    d = tmp_path_factory.mktemp("ca")
    for name in ("server", "other"):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                        f"/CN=workload-diagnose test {name}", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", str(d / f"{name}.key"), "-out", str(d / f"{name}.pem")],
                       check=True, capture_output=True)
    (d / "not-pem.pem").write_text("this is not a certificate\n")
    return d


@pytest.fixture
def tls_server(certs):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(certs / "server.pem", certs / "server.key")
    return ctx


@pytest.fixture
def no_ca_env(monkeypatch):
    for v in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "RUNAI_BASE_URL"):
        monkeypatch.delenv(v, raising=False)
    return monkeypatch


def test_private_ca_is_not_trusted_by_default(oom_world, tls_server, no_ca_env):
    with hostile(oom_world, [], tls=tls_server) as (srv, sim):
        with pytest.raises(ApiUnavailable, match="CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
            diagnose_at(srv.url, sim)


@pytest.mark.parametrize("how", ["flag", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "flag wins over SSL_CERT_FILE"])
def test_private_ca_when_named(oom_world, tls_server, certs, no_ca_env, how):
    kw = {}
    if how.startswith("flag"):
        kw["ca_file"] = str(certs / "server.pem")
    if how == "flag wins over SSL_CERT_FILE":
        no_ca_env.setenv("SSL_CERT_FILE", str(certs / "other.pem"))
    elif how != "flag":
        no_ca_env.setenv(how, str(certs / "server.pem"))
    with hostile(oom_world, [], tls=tls_server) as (srv, sim):
        res = diagnose_at(srv.url, sim, **kw)
    assert res.category == "OOM_KILLED"


def test_the_flag_wins_also_when_it_is_the_wrong_ca(oom_world, tls_server, certs, no_ca_env):
    no_ca_env.setenv("SSL_CERT_FILE", str(certs / "server.pem"))
    with hostile(oom_world, [], tls=tls_server) as (srv, sim):
        with pytest.raises(ApiUnavailable):
            diagnose_at(srv.url, sim, ca_file=str(certs / "other.pem"))


def test_bad_ca_files_are_invalid_input(certs, no_ca_env, tmp_path):
    from workload_diagnose.agent.api import diagnose

    args = dict(cluster_id="3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11", workload_id="b737c6a0-026f-553d-b1f4-80fbc22664b8",
                runai_url="https://127.0.0.1:9", client_id="x", client_secret="y")
    with pytest.raises(InvalidInput, match="^--ca-file .*missing.pem: no such file$"):
        diagnose(**args, ca_file=str(tmp_path / "missing.pem"))
    with pytest.raises(InvalidInput, match="holds no usable PEM certificate"):
        diagnose(**args, ca_file=str(certs / "not-pem.pem"))
    no_ca_env.setenv("SSL_CERT_FILE", str(tmp_path / "gone.pem"))
    with pytest.raises(InvalidInput, match="^SSL_CERT_FILE .*gone.pem: no such file$"):
        diagnose(**args)


def test_a_fleet_client_trusts_the_ca_file_too(oom_world, tls_server, certs, no_ca_env):
    """Triage's client (``paced``: each thread reads through a pool of its own) verifies with the CA file it is
    given, as a diagnosis does; without it the private CA is refused."""
    import threading

    wid = oom_world["workloads"][0]["id"]
    with hostile(oom_world, [], tls=tls_server) as (srv, sim):
        fleet = RunaiClient(srv.url, sim.client_id, sim.client_secret, paced=True, ca_file=str(certs / "server.pem"),
                            sleep=lambda s: None)
        got: list = []
        threads = [threading.Thread(target=lambda: got.append(fleet.view().get_workload_status(wid))) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        fleet.close()
        untrusted = RunaiClient(srv.url, sim.client_id, sim.client_secret, paced=True, sleep=lambda s: None,
                                max_attempts=1)
        with pytest.raises(ApiUnavailable, match="CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
            untrusted.get_workload_status(wid)
    assert len(got) == 3 and all(r.ok for r in got)
