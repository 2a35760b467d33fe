"""Fixtures for the service tests: the Run:ai simulator on the merged core world and a real uvicorn server."""
from __future__ import annotations

import pytest

from workload_diagnose.evals.bench_serve import http_scenarios, merged_world
from workload_diagnose.evals.simulator import running_simulator
from tests.service.live import config_for, live_service


@pytest.fixture(scope="session", autouse=True)
def _chat_store_in_tmp(tmp_path_factory):
    """Chat turns the service tests make (the schemathesis run included) never write the user's state directory."""
    import os

    old = os.environ.get("WD_CHAT_STORE")
    os.environ["WD_CHAT_STORE"] = str(tmp_path_factory.mktemp("chat") / "chat.sqlite")
    yield
    if old is None:
        os.environ.pop("WD_CHAT_STORE", None)
    else:
        os.environ["WD_CHAT_STORE"] = old


@pytest.fixture(scope="module")
def scenarios():
    return {sc.id: sc for sc in http_scenarios()}


@pytest.fixture(scope="module")
def sim(scenarios):
    with running_simulator(merged_world(list(scenarios.values()))) as s:
        yield s


@pytest.fixture(scope="module")
def service(sim):
    """(base URL, simulator) of a service without caller auth (loopback), service account = the simulator's."""
    with live_service(config_for(sim)) as url:
        yield url


def body_of(sc) -> dict:
    return sc.args.model_dump(exclude_none=True)


def reads(sim) -> list[tuple[str, str]]:
    with sim.lock:
        return list(sim.requests)


def clear(sim) -> None:
    with sim.lock:
        sim.requests.clear()
