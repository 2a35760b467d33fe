"""Session fixtures: a REAL kube-apiserver v1.20.2 + etcd (built from Debian's source package by
``shared/k8s/build-kube-apiserver.sh``), an HTTPS kubelet stand-in for pod logs, and admin/read-only clients.

* ``shared/`` is found beside the repository (``<repo>/../shared``) or at ``$WD_SHARED_DIR``.
* The binary is built once and cached (``$HOME/.cache/kube-apiserver-1.20.2``, override with
  ``$WD_KUBE_CACHE_DIR``; or point ``$KUBE_APISERVER`` at an existing binary). Builds are serialised with a file
  lock so parallel sessions never build concurrently.
* If the server cannot be built or started the k8s tests are SKIPPED with a loud reason — unless
  ``WD_REQUIRE_K8S=1`` (CI), in which case they FAIL.
* One apiserver per test session (per xdist worker) on free loopback ports; stopped at session end (SIGTERM,
  up to 15 s, then SIGKILL).
"""
from __future__ import annotations

import fcntl
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:  # `pytest tests/k8s` without an installed package: import tools/ from the repo
    sys.path.insert(0, str(REPO_ROOT))

from . import builders  # noqa: E402
from .kubelet_standin import KubeletStandin  # noqa: E402

BUILD_TIMEOUT_S = 45 * 60
START_TIMEOUT_S = 90


def shared_k8s_dir() -> Path:
    env = os.environ.get("WD_SHARED_DIR")
    if env:
        base = Path(env)
        return base / "k8s" if (base / "k8s").is_dir() else base
    return (REPO_ROOT / ".." / "shared" / "k8s").resolve()


def _required() -> bool:
    return os.environ.get("WD_REQUIRE_K8S", "").strip().lower() not in ("", "0", "false", "no")


def _unavailable(reason: str):
    msg = f"REAL KUBE-APISERVER UNAVAILABLE: {reason}"
    if _required():
        pytest.fail(msg + " (WD_REQUIRE_K8S is set, so this is a failure, not a skip)", pytrace=False)
    sys.stderr.write(f"\n*** {msg} -- k8s tests skipped (set WD_REQUIRE_K8S=1 to make this fatal) ***\n")
    pytest.skip(msg)


def _cache_dir() -> Path:
    return Path(os.environ.get("WD_KUBE_CACHE_DIR") or Path.home() / ".cache" / "kube-apiserver-1.20.2")


def build_kube_apiserver() -> Path:
    """Return the kube-apiserver binary, building it (once, under a file lock) if needed."""
    explicit = os.environ.get("KUBE_APISERVER")
    if explicit and os.access(explicit, os.X_OK):
        return Path(explicit)
    script = shared_k8s_dir() / "build-kube-apiserver.sh"
    if not script.is_file():
        _unavailable(f"build script not found at {script} (set WD_SHARED_DIR)")
    cache = _cache_dir()
    cache.parent.mkdir(parents=True, exist_ok=True)
    lock_path = cache.parent / (cache.name + ".build.lock")
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another session building: wait for it rather than build twice
        try:
            proc = subprocess.run(["bash", str(script), str(cache)], capture_output=True, text=True,
                                  timeout=BUILD_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as e:
            _unavailable(f"build-kube-apiserver.sh did not finish: {e}")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    out = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    if proc.returncode != 0 or not out or not os.access(out[-1].strip(), os.X_OK):
        tail = (proc.stderr or proc.stdout)[-1500:]
        _unavailable(f"build-kube-apiserver.sh failed (exit {proc.returncode}; needs root for apt-get): {tail}")
    return Path(out[-1].strip())


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def _free_port(avoid: set[int] = frozenset()) -> int:
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            p = s.getsockname()[1]
        # etcd also listens on ETCD_PORT+10 (peer): keep both free, and below 65525
        if p not in avoid and p + 10 not in avoid and p < 65000 and _port_free(p + 10):
            return p
    raise RuntimeError("no free port pair found")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie is dead
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
            return True
        except OSError:
            return False


def stop_pids(pids: list[int], grace_s: float = 15.0) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    for pid in pids:
        if _alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def stop_cluster(cluster: "LiveCluster") -> None:
    """Apiserver first (while etcd is still up, so its shutdown does not hang on etcd), then etcd."""
    for pid in cluster.pids:  # [apiserver, etcd]
        stop_pids([pid], grace_s=15.0)


@dataclass
class LiveCluster:
    run_dir: Path
    kubeconfig: Path
    server: str
    token: str
    ca_file: Path
    pids: list[int]
    startup_s: float


def start_kube_apiserver(run_dir: Path, binary: Path) -> LiveCluster:
    script = shared_k8s_dir() / "start-kube-apiserver.sh"
    last_err = ""
    for attempt in range(3):
        api_port = _free_port()
        etcd_port = _free_port({api_port})
        rd = run_dir / f"try{attempt}"
        rd.mkdir(parents=True, exist_ok=True)
        t0 = time.monotonic()
        try:
            proc = subprocess.run(["bash", str(script), str(rd), str(api_port), str(etcd_port)],
                                  capture_output=True, text=True, timeout=START_TIMEOUT_S,
                                  env={**os.environ, "KUBE_APISERVER": str(binary)})
        except subprocess.TimeoutExpired as e:
            proc = None
            last_err = f"timeout: {e}"
        pids = [int((rd / f).read_text().strip()) for f in ("apiserver.pid", "etcd.pid") if (rd / f).exists()]
        if proc is not None and proc.returncode == 0 and (rd / "kubeconfig").exists():
            token = (rd / "pki" / "tokens.csv").read_text().split(",")[0].strip()
            return LiveCluster(rd, rd / "kubeconfig", f"https://127.0.0.1:{api_port}", token,
                               rd / "pki" / "apiserver.crt", pids, time.monotonic() - t0)
        stop_pids(pids, grace_s=5)
        if proc is not None:
            log = (rd / "apiserver.log").read_text()[-1500:] if (rd / "apiserver.log").exists() else ""
            last_err = f"exit {proc.returncode}: {proc.stderr[-800:]} {log}"
    _unavailable(f"start-kube-apiserver.sh failed 3 times: {last_err}")
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def kube_apiserver(tmp_path_factory) -> LiveCluster:
    """A live kube-apiserver; yields :class:`LiveCluster` (``.kubeconfig`` is the path to use)."""
    binary = build_kube_apiserver()
    cluster = start_kube_apiserver(tmp_path_factory.mktemp("kube-apiserver"), binary)
    sys.stderr.write(f"\n[k8s] kube-apiserver {cluster.server} ready in {cluster.startup_s:.1f}s "
                     f"(KUBECONFIG={cluster.kubeconfig})\n")
    try:
        yield cluster
    finally:
        stop_cluster(cluster)


@pytest.fixture(scope="session")
def kubeconfig(kube_apiserver) -> Path:
    return kube_apiserver.kubeconfig


@pytest.fixture(scope="session")
def kubelet(tmp_path_factory):
    k = KubeletStandin(tmp_path_factory.mktemp("kubelet")).start()
    try:
        yield k
    finally:
        k.stop()


@pytest.fixture(scope="session")
def admin_core(kube_apiserver):
    """A WRITING CoreV1Api (admin token) for building fixtures. Never handed to code under test."""
    from kubernetes import client, config

    api_client = config.new_client_from_config(config_file=str(kube_apiserver.kubeconfig))
    try:
        yield client.CoreV1Api(api_client)
    finally:
        api_client.close()


@pytest.fixture(scope="session")
def k8s_env(admin_core, kubelet) -> builders.Env:
    """Admin API + kubelet stand-in + one Ready 8-GPU node (``gpu-node-1``) whose kubelet is the stand-in."""
    node = builders.make_node(admin_core, "gpu-node-1", kubelet_port=kubelet.port, ready=True, gpus=8,
                              taints=[builders.GPU_TAINT])
    return builders.Env(api=admin_core, kubelet=kubelet, node=node)


@pytest.fixture(scope="session")
def reader(kube_apiserver):
    from tools.kube import KubeReader

    r = KubeReader.from_kubeconfig(kube_apiserver.kubeconfig)
    try:
        yield r
    finally:
        r.close()
