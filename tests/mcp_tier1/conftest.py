from __future__ import annotations

import copy
from contextlib import asynccontextmanager

import pytest

from tests.conftest import CL, NOW, WID


class CountingWrite:
    """A transport write stream that records the size of every message that reaches it."""

    def __init__(self, inner, sent: list):
        self._inner, self._sent = inner, sent

    async def send(self, item):
        self._sent.append((getattr(item.message, "method", None),
                           len(item.message.model_dump_json(by_alias=True, exclude_none=True))))
        await self._inner.send(item)

    def __getattr__(self, name):
        return getattr(self._inner, name)

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return None


def counting(connect, sent: list):
    @asynccontextmanager
    async def c():
        async with connect() as (read, write):
            yield read, CountingWrite(write, sent)

    return c


@pytest.fixture
def standin():
    """(Standin, simulator) for a world: ``standin(world_dict, **options)``; closed at the end."""
    from workload_diagnose.evals.mcp_standin import Options, Standin
    from workload_diagnose.evals.simulator import running_simulator

    opened = []

    def make(wd: dict, **options):
        cm = running_simulator(copy.deepcopy(wd))
        sim = cm.__enter__()
        st = Standin(sim.url, sim.client_id, sim.client_secret, Options(**options))
        opened.append((cm, st))
        return st, sim

    yield make
    for cm, st in opened:
        st.close()
        cm.__exit__(None, None, None)


@pytest.fixture
def mcp_diagnose(standin):
    """Diagnose ``world`` through RunaiMcpSource over in-memory MCP streams to the stand-in; returns
    (result, standin, source)."""
    from workload_diagnose.agent.api import diagnose
    from workload_diagnose.evals.mcp_standin import memory_connector
    from workload_diagnose.tools.runai.mcp import RunaiMcpSource

    sources = []

    def run(wd: dict, options: dict | None = None, **kw):
        st, _ = standin(wd, **(options or {}))
        src = RunaiMcpSource(memory_connector(st), describe="stand-in", sleep=lambda s: None)
        sources.append(src)
        args = {"cluster_id": CL, "workload_id": WID, "now": NOW, "use_kube": False}
        args.update(kw)
        return diagnose(tier1="mcp", source=src, **args), st, src

    yield run
    for s in sources:
        s.close()
