"""KubeReader's transport guarantees, without a Kubernetes server: writes are refused before a single byte
(or even a connection) leaves the process, and connection failures become typed errors quickly."""
from __future__ import annotations

import socket
import threading
import time

import pytest

from workload_diagnose.tools.kube import (
    CONNECT_TIMEOUT_S,
    READ_TIMEOUT_S,
    KubeError,
    KubeReader,
    KubeWriteRefused,
    check_read_request,
)


class CountingServer:
    """A plain TCP server counting connections and received bytes. Answers each request with a canned
    ``200`` JSON (a Namespace) so a GET positive control works."""

    BODY = b'{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"runai-x"}}'

    def __init__(self, respond: bool = True):
        self.respond = respond
        self.connections = 0
        self.bytes_received = 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self._stop = False
        self._conns: list[socket.socket] = []
        self._t = threading.Thread(target=self._serve, daemon=True)
        self._t.start()

    def _serve(self):
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            self._conns.append(conn)
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn):
        buf = b""
        try:
            while True:
                data = conn.recv(65536)
                if not data:
                    return
                self.bytes_received += len(data)
                buf += data
                if self.respond and b"\r\n\r\n" in buf:
                    buf = b""
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                                 + str(len(self.BODY)).encode() + b"\r\n\r\n" + self.BODY)
        except OSError:
            return

    def close(self):
        self._stop = True
        self.sock.close()
        for c in self._conns:
            c.close()


@pytest.fixture
def counting_server():
    s = CountingServer()
    yield s
    s.close()


def test_every_write_path_is_refused_before_any_byte_is_sent(counting_server):
    from kubernetes import client
    from kubernetes.client import rest
    from kubernetes.stream import stream

    url = f"http://127.0.0.1:{counting_server.port}"
    reader = KubeReader.from_url(url, token="t0ken")
    ac = reader.api_client
    core = client.CoreV1Api(ac)
    custom = client.CustomObjectsApi(ac)
    pod_url = f"{url}/api/v1/namespaces/runai-x/pods/p"
    rayjob = {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "j"}}
    attempts = {
        "CoreV1Api.delete_namespaced_pod": lambda: core.delete_namespaced_pod("p", "runai-x"),
        "CoreV1Api.create_namespace": lambda: core.create_namespace({"metadata": {"name": "x"}}),
        "CoreV1Api.patch_namespaced_pod_status": lambda: core.patch_namespaced_pod_status("p", "runai-x", {}),
        "CoreV1Api.replace_node": lambda: core.replace_node("n", {"metadata": {"name": "n"}}),
        "ApiClient.call_api DELETE": lambda: ac.call_api("DELETE", pod_url),
        "ApiClient.call_api post lowercase": lambda: ac.call_api("post", f"{url}/api/v1/namespaces"),
        "RESTClient.request POST": lambda: ac.rest_client.request("POST", pod_url, body={}),
        "RESTClient.request OPTIONS": lambda: ac.rest_client.request("OPTIONS", pod_url),
        "PoolManager.request PUT": lambda: ac.rest_client.pool_manager.request("PUT", pod_url, body=b"x"),
        "PoolManager.urlopen PATCH": lambda: ac.rest_client.pool_manager.urlopen("PATCH", pod_url),
        "ConnectionPool.urlopen DELETE": lambda: ac.rest_client.pool_manager.connection_from_url(url).urlopen(
            "DELETE", "/api/v1/namespaces/runai-x"),
        "ConnectionPool.request POST": lambda: ac.rest_client.pool_manager.connection_from_url(url).request(
            "POST", "/api/v1/namespaces", body=b"{}"),
        "GET exec subresource": lambda: ac.call_api("GET", pod_url + "/exec?command=rm&command=-rf"),
        "GET attach subresource": lambda: ac.rest_client.request("GET", pod_url + "/attach"),
        "GET portforward subresource": lambda: ac.call_api("GET", pod_url + "/portforward?ports=22"),
        "GET service proxy": lambda: ac.call_api("GET", f"{url}/api/v1/namespaces/x/services/s/proxy/admin"),
        "GET node proxy": lambda: ac.call_api("GET", f"{url}/api/v1/nodes/n/proxy/run"),
        "GET secret": lambda: core.read_namespaced_secret("s3-creds", "runai-x"),
        "GET secrets list": lambda: core.list_secret_for_all_namespaces(),
        "stream exec (websocket)": lambda: stream(core.connect_get_namespaced_pod_exec, "p", "runai-x",
                                                  command=["sh"], stderr=True, stdin=False, stdout=True),
        "CustomObjectsApi.create RayJob": lambda: custom.create_namespaced_custom_object(
            "ray.io", "v1", "runai-x", "rayjobs", rayjob),
        "CustomObjectsApi.patch Kueue Workload": lambda: custom.patch_namespaced_custom_object(
            "kueue.x-k8s.io", "v1beta1", "runai-x", "workloads", "w", {"spec": {"active": False}}),
        "CustomObjectsApi.patch RayCluster status": lambda: custom.patch_namespaced_custom_object_status(
            "ray.io", "v1", "runai-x", "rayclusters", "c", {"status": {}}),
        "CustomObjectsApi.delete ResourceClaim": lambda: custom.delete_namespaced_custom_object(
            "resource.k8s.io", "v1beta1", "runai-x", "resourceclaims", "claim"),
        "CustomObjectsApi.delete cluster-scoped": lambda: custom.delete_cluster_custom_object(
            "example.io", "v1", "things", "t"),
        "swap rest_client": lambda: setattr(ac, "rest_client", rest.RESTClientObject(ac.configuration)),
        "swap call_api": lambda: setattr(ac, "call_api", lambda *a, **k: None),
        "swap pool_manager": lambda: setattr(ac.rest_client, "pool_manager", None),
    }
    for name, attempt in attempts.items():
        with pytest.raises(KubeWriteRefused):
            attempt()
        assert (counting_server.connections, counting_server.bytes_received) == (0, 0), name
    time.sleep(0.2)
    assert (counting_server.connections, counting_server.bytes_received) == (0, 0)
    # positive control: the same client does reach this server with a read
    assert reader.namespace_exists("runai-x") is True
    assert counting_server.connections == 1 and counting_server.bytes_received > 0


def test_caller_supplied_api_client_is_wrapped_not_mutated(counting_server):
    from kubernetes import client

    cfg = client.Configuration(host=f"http://127.0.0.1:{counting_server.port}")
    theirs = client.ApiClient(cfg)
    reader = KubeReader(theirs)
    assert reader.api_client is not theirs and type(theirs.rest_client).__name__ == "RESTClientObject"
    with pytest.raises(KubeWriteRefused):
        client.CoreV1Api(reader.api_client).delete_namespace("runai-x")
    assert counting_server.bytes_received == 0
    assert reader.namespace_exists("runai-x") is True


@pytest.mark.parametrize(
    "method,path,ok",
    [
        ("GET", "/api/v1/namespaces/runai-x/pods/p", True),
        ("GET", "/api/v1/namespaces/runai-x/pods/p/log?previous=true", True),
        ("GET", "/api/v1/namespaces/runai-x/events?fieldSelector=involvedObject.name%3Dp", True),
        ("HEAD", "/api/v1/nodes/n", True),
        ("GET", "/apis/kueue.x-k8s.io/v1beta1/namespaces/runai-x/workloads/w", True),
        ("GET", "/version", True),
        ("GET", "/api/v1/namespaces/exec", True),  # a namespace *named* exec is fine
        ("GET", "/api/v1/namespaces/runai-x/pods/exec", True),  # so is a pod named exec
        ("GET", "/api/v1/namespaces/runai-x/pods/p/exec", False),
        ("GET", "/api/v1/namespaces/runai-x/pods/p/%65xec", False),  # percent-encoded
        ("GET", "/api/v1/proxy/nodes/n", False),
        ("GET", "/api/v1/namespaces/runai-x/secrets/s", False),
        ("GET", "/api/v1/watch/namespaces/runai-x/secrets", False),
        ("POST", "/api/v1/namespaces", False),
        ("PUT", "/api/v1/nodes/n", False),
        ("PATCH", "/api/v1/nodes/n/status", False),
        ("DELETE", "/api/v1/namespaces/runai-x", False),
        ("CONNECT", "/", False),
        ("", "/", False),
    ],
)
def test_check_read_request(method, path, ok):
    url = "https://127.0.0.1:6443" + path
    if ok:
        check_read_request(method, url)
    else:
        with pytest.raises(KubeWriteRefused):
            check_read_request(method, url)


def test_write_refused_is_the_projects_write_refused():
    from workload_diagnose.tools.base import WriteRefused

    assert issubclass(KubeWriteRefused, WriteRefused)


def test_missing_or_broken_kubeconfig_is_unavailable(tmp_path):
    with pytest.raises(KubeError) as ei:
        KubeReader.from_kubeconfig(tmp_path / "nope")
    assert ei.value.kind == "unavailable"
    broken = tmp_path / "broken"
    broken.write_text("apiVersion: v1\nkind: Config\nclusters: []\n")
    with pytest.raises(KubeError) as ei:
        KubeReader.from_kubeconfig(broken)
    assert ei.value.kind == "unavailable"
    with pytest.raises(KubeError) as ei:
        KubeReader.from_kubeconfig(broken, context="nope")
    assert ei.value.kind == "unavailable"


def test_connection_refused_is_unavailable_and_fast():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    reader = KubeReader.from_url(f"https://127.0.0.1:{port}", token="t")
    t0 = time.monotonic()
    for call in (lambda: reader.get_pod("runai-x", "p"), lambda: reader.namespace_exists("runai-x"),
                 lambda: reader.previous_log("runai-x", "p", "main"), lambda: reader.get_node("n")):
        with pytest.raises(KubeError) as ei:
            call()
        assert ei.value.kind == "unavailable" and ei.value.status is None
    assert time.monotonic() - t0 < 5


def test_hung_server_times_out_as_unavailable():
    silent = CountingServer(respond=False)
    try:
        reader = KubeReader.from_url(f"http://127.0.0.1:{silent.port}", token="t", timeouts=(0.5, 0.5))
        t0 = time.monotonic()
        with pytest.raises(KubeError) as ei:
            reader.get_pod("runai-x", "p")
        assert ei.value.kind == "unavailable" and "Timeout" in ei.value.message
        assert time.monotonic() - t0 < 3  # one read timeout, no read retry
    finally:
        silent.close()


def test_default_timeouts_are_short():
    reader = KubeReader.from_url("https://127.0.0.1:6443", token="t")
    assert reader.timeouts == (CONNECT_TIMEOUT_S, READ_TIMEOUT_S) == (3.0, 10.0)
    assert reader.api_client.rest_client._wd_timeouts == (3.0, 10.0)


def test_invalid_names_are_rejected_without_a_request(counting_server):
    reader = KubeReader.from_url(f"http://127.0.0.1:{counting_server.port}", token="t")
    for call in (lambda: reader.get_pod("runai-x", "../../nodes/n"),
                 lambda: reader.pod_events("runai-x", "p,involvedObject.kind=Node"),
                 lambda: reader.previous_log("runai-x", "p", "main?previous=false"),
                 lambda: reader.get_node("N O D E")):
        with pytest.raises(KubeError) as ei:
            call()
        assert ei.value.kind == "error"
    assert counting_server.connections == 0


def test_kubeconfig_errors_do_not_quote_credentials(tmp_path):
    bad = tmp_path / "kubeconfig"
    bad.write_text("apiVersion: v1\nusers:\n- name: u\n  user: {token: s3cr3t-t0ken-value-1234567890abcdef\n")
    with pytest.raises(KubeError) as ei:
        KubeReader.from_kubeconfig(bad)
    assert ei.value.kind == "unavailable" and "s3cr3t" not in str(ei.value)
