"""What the inbound integrations keep past a request: an alert's diagnosis (``GET`` by id), the Slack events
already answered. A LangGraph key-value store (``langgraph.store``) in the same place as the chat store, so every
worker and every replica sees the same records:

* PostgreSQL (``PostgresStore``) when the chat store is (``WD_CHAT_POSTGRES_DSN`` / ``WD_CHAT_STORE``);
* else SQLite (``SqliteStore``), ``integrations.sqlite`` beside the chat's SQLite file (created 0600).

A record lives in its owner's namespace (``Principal.owner``: one credential), so one API token never reads
another's; it expires after ``TTL_MINUTES``. Only redacted text and the products' own result objects are stored.
"""
from __future__ import annotations

import contextlib
import logging
import os
import threading
from pathlib import Path
from typing import Any

from workload_diagnose.agent.chat.store import is_postgres, store_target
from workload_diagnose.agent.service.errors import one_line

log = logging.getLogger("workload_diagnose.service")
TTL_MINUTES = 7 * 24 * 60
FILE = "integrations.sqlite"
ROOT = "workload-diagnose"


class StoreUnavailable(Exception):
    """The store cannot be opened (503; the reason is in the log)."""


class Results:
    """Opened on first use, shared by the process's threads; ``close`` at shutdown."""

    def __init__(self) -> None:
        self._store: Any = None
        self._stack = contextlib.ExitStack()
        self._lock = threading.Lock()
        self._puts = 0

    def _open(self) -> Any:
        with self._lock:
            if self._store is None:
                try:
                    self._store = self._stack.enter_context(_open_store())
                except Exception as e:  # noqa: BLE001  (a path, an errno, a database host: for the log only)
                    self._stack.close()
                    log.error("the integrations store is unavailable: %s: %s", type(e).__name__, one_line(e, 300))
                    raise StoreUnavailable() from None
            return self._store

    def get(self, kind: str, owner: str, key: str) -> dict | None:
        item = self._open().get((ROOT, kind, owner), key)
        return None if item is None else dict(item.value)

    def put(self, kind: str, owner: str, key: str, value: dict, ttl_minutes: float = TTL_MINUTES) -> None:
        store = self._open()
        store.put((ROOT, kind, owner), key, value, index=False, ttl=ttl_minutes)
        self._puts += 1
        if self._puts % 200 == 1:  # expired records go now and then (no sweeper thread per worker)
            with contextlib.suppress(Exception):
                store.sweep_ttl()

    def delete(self, kind: str, owner: str, key: str) -> None:
        self._open().delete((ROOT, kind, owner), key)

    def close(self) -> None:
        with self._lock:
            self._stack.close()
            self._store = None


@contextlib.contextmanager
def _open_store():
    target = store_target()
    ttl = {"default_ttl": TTL_MINUTES, "refresh_on_read": False}
    if is_postgres(target):
        from langgraph.store.postgres import PostgresStore

        with PostgresStore.from_conn_string(target, ttl=ttl) as store:
            store.setup()
            yield store
        return
    import sqlite3

    from langgraph.store.sqlite import SqliteStore

    chat_file = Path(target.removeprefix("sqlite:///") if target.startswith("sqlite:///") else target).expanduser()
    path = chat_file.with_name(FILE)
    _private_file(path)
    conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        store = SqliteStore(conn, ttl=ttl)
        store.setup()
        yield store
    finally:
        conn.close()


def _private_file(path: Path) -> None:
    """``path`` created 0600 (its missing directories 0700) unless it exists."""
    for d in [p for p in reversed(path.parents) if not p.exists()]:
        d.mkdir(mode=0o700, exist_ok=True)
        os.chmod(d, 0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    os.fchmod(fd, 0o600)
    os.close(fd)
