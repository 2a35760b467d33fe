"""Where the chat store lives: the XDG state directory by default (0700), else what is configured; a store that
cannot be opened is one InvalidInput line."""
from __future__ import annotations

import stat

import pytest

from agent.chat.store import open_checkpointer, state_dir, store_target
from tools.runai import InvalidInput


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
