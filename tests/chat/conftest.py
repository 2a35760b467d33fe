from __future__ import annotations

import copy
import uuid

import pytest


class Conversation:
    """One thread against a running simulator, through agent.chat.api.chat (real HTTP, real graphs, SQLite)."""

    def __init__(self, sim, saver, now: str, **kw):
        self.sim, self.saver, self.now, self.kw = sim, saver, now, kw
        self.thread = str(uuid.uuid4())

    def say(self, text: str, thread: str | None = None):
        from workload_diagnose.agent.chat.api import chat

        before = len(self.sim.requests)
        r = chat(thread or self.thread, text, checkpointer=self.saver, now=self.now, runai_url=self.sim.url,
                 client_id=self.sim.client_id, client_secret=self.sim.client_secret, use_kube=False,
                 retry_sleep=lambda s: None, **self.kw)
        self.requests = [p for _, p in self.sim.requests[before:] if not p.startswith("/api/v1/token")]
        return r


@pytest.fixture
def saver(tmp_path):
    from workload_diagnose.agent.chat.store import open_checkpointer

    with open_checkpointer(str(tmp_path / "chat.sqlite")) as cp:
        yield cp


@pytest.fixture
def conversation(saver):
    """``conversation(world, **chat kwargs)`` → a Conversation on a fresh simulator (closed at the end)."""
    from workload_diagnose.evals.simulator import running_simulator
    from tests.chat.worlds import NOW

    stack = []

    def _open(world: dict, **kw) -> Conversation:
        cm = running_simulator(copy.deepcopy(world))
        sim = cm.__enter__()
        stack.append(cm)
        return Conversation(sim, saver, NOW, **kw)

    yield _open
    for cm in reversed(stack):
        cm.__exit__(None, None, None)
