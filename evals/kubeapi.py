"""The real kube-apiserver (+ etcd) used by Tier-2 tests and the benchmark: locate, build (cached), start, stop.

``shared/`` is found beside the repository (``<repo>/../shared``) or at ``$WD_SHARED_DIR``. The binary is built
once by ``shared/k8s/build-kube-apiserver.sh`` and cached (``$HOME/.cache/kube-apiserver-1.20.2``, override
with ``$WD_KUBE_CACHE_DIR``, or point ``$KUBE_APISERVER`` at a binary). Builds are serialised with a file lock.
Every failure raises :class:`KubeApiUnavailable` with the reason; callers decide whether that skips or fails.
"""
from __future__ import annotations

import fcntl
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT_S = 45 * 60
START_TIMEOUT_S = 90


class KubeApiUnavailable(RuntimeError):
    """The real kube-apiserver cannot be built or started here (the message says why)."""


@dataclass
class LiveCluster:
    run_dir: Path
    kubeconfig: Path
    server: str
    token: str
    ca_file: Path
    pids: list[int]  # [apiserver, etcd]
    startup_s: float


def shared_k8s_dir() -> Path:
    env = os.environ.get("WD_SHARED_DIR")
    if env:
        base = Path(env)
        return base / "k8s" if (base / "k8s").is_dir() else base
    return (REPO_ROOT / ".." / "shared" / "k8s").resolve()


def cache_dir() -> Path:
    return Path(os.environ.get("WD_KUBE_CACHE_DIR") or Path.home() / ".cache" / "kube-apiserver-1.20.2")


def build_kube_apiserver() -> Path:
    """Return the kube-apiserver binary, building it (once, under a file lock) if needed."""
    explicit = os.environ.get("KUBE_APISERVER")
    if explicit and os.access(explicit, os.X_OK):
        return Path(explicit)
    script = shared_k8s_dir() / "build-kube-apiserver.sh"
    if not script.is_file():
        raise KubeApiUnavailable(f"build script not found at {script} (set WD_SHARED_DIR)")
    cache = cache_dir()
    cache.parent.mkdir(parents=True, exist_ok=True)
    lock_path = cache.parent / (cache.name + ".build.lock")
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another session building: wait for it rather than build twice
        try:
            proc = subprocess.run(["bash", str(script), str(cache)], capture_output=True, text=True,
                                  timeout=BUILD_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise KubeApiUnavailable(f"build-kube-apiserver.sh did not finish: {e}") from None
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    out = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    if proc.returncode != 0 or not out or not os.access(out[-1].strip(), os.X_OK):
        tail = (proc.stderr or proc.stdout)[-1500:]
        raise KubeApiUnavailable(f"build-kube-apiserver.sh failed (exit {proc.returncode}; needs root for "
                                 f"apt-get): {tail}")
    return Path(out[-1].strip())


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def free_port(avoid: set[int] = frozenset()) -> int:
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            p = s.getsockname()[1]
        # etcd also listens on ETCD_PORT+10 (peer): keep both free, and below 65525
        if p not in avoid and p + 10 not in avoid and p < 65000 and _port_free(p + 10):
            return p
    raise RuntimeError("no free port pair found")


def alive(pid: int) -> bool:
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
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    for pid in pids:
        if alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def stop_cluster(cluster: LiveCluster) -> None:
    """Apiserver first (while etcd is still up, so its shutdown does not hang on etcd), then etcd."""
    for pid in cluster.pids:
        stop_pids([pid], grace_s=15.0)


def start_kube_apiserver(run_dir: Path, binary: Path) -> LiveCluster:
    script = shared_k8s_dir() / "start-kube-apiserver.sh"
    if not script.is_file():
        raise KubeApiUnavailable(f"start script not found at {script} (set WD_SHARED_DIR)")
    last_err = ""
    for attempt in range(3):
        api_port = free_port()
        etcd_port = free_port({api_port})
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
    raise KubeApiUnavailable(f"start-kube-apiserver.sh failed 3 times: {last_err}")
