"""Where conversations live: a LangGraph checkpointer keyed by ``thread_id``.

* default: SQLite, ``$XDG_STATE_HOME/workload-diagnose/chat.sqlite`` (else ``~/.local/state/...``);
* ``WD_CHAT_STORE`` / ``--store``: a SQLite file path, ``sqlite:///PATH``, or ``postgresql://...``;
* ``WD_CHAT_POSTGRES_DSN``: PostgreSQL (``langgraph-checkpoint-postgres``) when several replicas serve one
  conversation.

Only redacted text is ever written (``agent.chat.api.chat`` redacts a message before the graph sees it). A SQLite
store is its owner's alone: the file is created 0600 (SQLite gives its ``-wal``/``-shm`` files the database
file's mode) and a directory this creates 0700, whatever the umask.
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any, Iterator, Mapping

from workload_diagnose.tools.runai import InvalidInput

STATE_FILE = "chat.sqlite"


def state_dir(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "workload-diagnose"


def store_target(store: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The configured store: the explicit value, else WD_CHAT_STORE, else WD_CHAT_POSTGRES_DSN, else the
    default SQLite file."""
    env = os.environ if environ is None else environ
    return store or env.get("WD_CHAT_STORE") or env.get("WD_CHAT_POSTGRES_DSN") or str(state_dir(env) / STATE_FILE)


def is_postgres(target: str) -> bool:
    return target.startswith(("postgresql://", "postgres://"))


@contextlib.contextmanager
def open_checkpointer(store: str | None = None) -> Iterator[Any]:
    """A ready checkpointer for ``store`` (see the module docstring); closed on exit."""
    target = store_target(store)
    if is_postgres(target):
        with _postgres(target) as saver:
            yield saver
        return
    path = Path(target.removeprefix("sqlite:///") if target.startswith("sqlite:///") else target).expanduser()
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    try:
        _private_file(path)
        conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
    except (OSError, sqlite3.Error) as e:
        raise InvalidInput(f"cannot open the chat store {path}: {e}") from None
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")  # WAL: durable at each checkpoint, no fsync per write
        saver = SqliteSaver(conn)
        saver.setup()
        yield saver
    finally:
        conn.close()


def _private_file(path: Path) -> None:
    """Create ``path`` 0600 (and each missing directory above it 0700) unless it exists; OSError otherwise."""
    missing = [p for p in reversed(path.parents) if not p.exists()]
    for d in missing:
        d.mkdir(mode=0o700, exist_ok=True)
        os.chmod(d, 0o700)  # mkdir's mode is masked by the umask
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, 0o600)  # the umask could only have narrowed it; say it once
    finally:
        os.close(fd)


@contextlib.contextmanager
def _postgres(dsn: str) -> Iterator[Any]:
    try:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row
    except ImportError:
        raise InvalidInput("a PostgreSQL chat store needs the postgres extra: "
                           "pip install 'workload-diagnose[postgres]'") from None
    try:
        conn = psycopg.connect(dsn, autocommit=True, prepare_threshold=0, row_factory=dict_row, connect_timeout=10)
    except psycopg.Error as e:
        from workload_diagnose import guardrails

        first = str(e).splitlines()[0] if str(e) else ""
        raise InvalidInput(f"cannot connect to the PostgreSQL chat store: {type(e).__name__}: "
                           f"{guardrails.redact(first)}") from None
    try:
        saver = PostgresSaver(conn)
        saver.setup()
        yield saver
    finally:
        conn.close()
