"""Where the chat store lives: the XDG state directory by default (0700), else what is configured; a store that
cannot be opened is one InvalidInput line."""
from __future__ import annotations

import stat

import pytest

from workload_diagnose.agent.chat.store import open_checkpointer, state_dir, store_target
from workload_diagnose.tools.runai import InvalidInput


def test_default_is_the_xdg_state_directory_else_home(tmp_path):
    assert state_dir({"XDG_STATE_HOME": str(tmp_path)}) == tmp_path / "workload-diagnose"
    assert str(state_dir({})).endswith("/.local/state/workload-diagnose")
    assert store_target(None, {"XDG_STATE_HOME": str(tmp_path)}) == str(tmp_path / "workload-diagnose" /
                                                                           "chat.sqlite")


def test_explicit_then_env_store_then_postgres_dsn():
    env = {"WD_CHAT_STORE": "/x/a.sqlite", "WD_CHAT_POSTGRES_DSN": "postgresql://u@h/db"}
    assert store_target("/y/b.sqlite", env) == "/y/b.sqlite"
    assert store_target(None, env) == "/x/a.sqlite"
    assert store_target(None, {"WD_CHAT_POSTGRES_DSN": "postgresql://u@h/db"}) == "postgresql://u@h/db"


def test_sqlite_store_directory_is_private(tmp_path):
    target = tmp_path / "state" / "workload-diagnose" / "chat.sqlite"
    with open_checkpointer(str(target)) as cp:
        assert list(cp.list(None)) == []
    assert stat.S_IMODE((tmp_path / "state" / "workload-diagnose").stat().st_mode) == 0o700


def test_unusable_stores_are_one_line_errors(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidInput, match="cannot open the chat store"):
        with open_checkpointer(str(tmp_path / "file" / "chat.sqlite")):
            pass
    with pytest.raises(InvalidInput, match="cannot connect to the PostgreSQL chat store") as e:
        with open_checkpointer("postgresql://wd:s3cr3t-pass@127.0.0.1:9/postgres?connect_timeout=2"):
            pass
    assert "s3cr3t-pass" not in str(e.value)


def test_sqlite_store_and_its_wal_files_are_the_owners_alone(tmp_path):
    """Created 0600 (its -wal/-shm too) and its new directories 0700 even under a permissive umask; a store that
    already exists keeps the mode its owner gave it."""
    import os

    old = os.umask(0o002)
    try:
        target = tmp_path / "new" / "chat.sqlite"
        with open_checkpointer(str(target)) as cp:
            cp.put({"configurable": {"thread_id": "t", "checkpoint_ns": ""}},
                   {"v": 1, "id": "1ef0c0de-0000-6000-8000-000000000000", "ts": "2026-01-01T00:00:00+00:00",
                    "channel_values": {}, "channel_versions": {}, "versions_seen": {}}, {}, {})
            files = sorted(p.name for p in target.parent.iterdir())
            modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in target.parent.iterdir()}
        assert files == ["chat.sqlite", "chat.sqlite-shm", "chat.sqlite-wal"]
        assert set(modes.values()) == {0o600}, modes
        assert stat.S_IMODE(target.parent.stat().st_mode) == 0o700
        mine = tmp_path / "mine.sqlite"
        mine.touch(mode=0o640)
        os.chmod(mine, 0o640)
        with open_checkpointer(str(mine)):
            pass
        assert stat.S_IMODE(mine.stat().st_mode) == 0o640
    finally:
        os.umask(old)
