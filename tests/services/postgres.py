"""A throwaway PostgreSQL server for tests (session-scoped fixture ``postgres_dsn``).

Debian's server binaries (``pg_ctl`` on PATH, else ``/usr/lib/postgresql/*/bin``; ``.ci/run`` installs the
``postgresql`` package when absent) initialise a cluster in a temporary directory and serve it on a free loopback
port with trust authentication; it is stopped and removed at the end of the session. PostgreSQL refuses to run
as root, so as root (CI) initdb/pg_ctl run as the ``postgres`` user through ``runuser`` on a directory it owns.
Unavailable → the tests that need it are skipped loudly, or FAIL when ``WD_REQUIRE_K8S=1`` (CI).
"""
from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from tests.services.required import unavailable


def bindir() -> Path | None:
    found = shutil.which("pg_ctl")
    if found:
        return Path(os.path.realpath(found)).parent
    cands = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    return Path(cands[-1]).parent if cands else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_postgres() -> Iterator[str]:
    """Start a server; yields its DSN. Raises RuntimeError (with the server's log) when it cannot start."""
    bins = bindir()
    if bins is None:
        raise RuntimeError("no pg_ctl (install Debian's postgresql package)")
    root = Path(tempfile.mkdtemp(prefix="wd-pg-"))
    as_root = os.geteuid() == 0
    prefix: list[str] = []
    if as_root:
        if not shutil.which("runuser"):
            raise RuntimeError("running as root without runuser: cannot start PostgreSQL as the postgres user")
        root.chmod(0o755)
        shutil.chown(root, "postgres", "postgres")
        prefix = ["runuser", "-u", "postgres", "--"]
    data, log, port = root / "data", root / "server.log", _free_port()

    def run(*cmd: str) -> None:
        p = subprocess.run([*prefix, *cmd], capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise RuntimeError(f"{Path(cmd[0]).name} failed ({p.returncode}): {p.stderr.strip()[-1000:]} {tail}")

    try:
        run(str(bins / "initdb"), "-D", str(data), "-U", "wd", "--auth=trust", "-E", "UTF8", "--no-sync")
        run(str(bins / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60", "-o",
            f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off", "start")
        try:
            yield f"postgresql://wd@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run([*prefix, str(bins / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                           capture_output=True, timeout=60)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """The DSN of a throwaway PostgreSQL server (one per test session)."""
    try:
        cm = running_postgres()
        dsn = cm.__enter__()
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        unavailable("POSTGRESQL", str(e), "PostgreSQL")
    try:
        yield dsn
    finally:
        cm.__exit__(None, None, None)
