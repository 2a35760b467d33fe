"""Tier 2's Kubernetes reads end by the diagnosis deadline (``--timeout``), not only by their own timeouts: a
server that accepts and never answers costs what is left of the deadline, then every later read fails at once."""
from __future__ import annotations

import socket
import time

import pytest

from workload_diagnose.tools.deadline import Deadline
from workload_diagnose.tools.kube import KubeError, KubeReader


@pytest.fixture
def silent_server():
    """Accepts TCP connections (the kernel's backlog) and never answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        yield f"http://127.0.0.1:{s.getsockname()[1]}"


def test_a_read_ends_by_the_deadline_and_later_reads_fail_at_once(silent_server):
    reader = KubeReader.from_url(silent_server, "t0k", timeouts=(5.0, 30.0))
    deadline = Deadline(0.6)
    t0 = time.monotonic()
    with reader.bounded_by(deadline), pytest.raises(KubeError):
        reader.get_pod("ml-team", "train-0")
    assert time.monotonic() - t0 < 5.0  # the deadline, not the 30 s read timeout
    time.sleep(max(0.0, 0.7 - (time.monotonic() - t0)))
    t1 = time.monotonic()
    with reader.bounded_by(deadline), pytest.raises(KubeError, match=r"stopped after 0\.6 s .*not read"):
        reader.get_node("dgx-14")
    assert time.monotonic() - t1 < 0.5
    reader.close()


def test_outside_the_block_a_read_keeps_its_own_timeouts(silent_server):
    reader = KubeReader.from_url(silent_server, "t0k", timeouts=(5.0, 0.5))
    expired = Deadline(0.001)
    time.sleep(0.01)
    with reader.bounded_by(expired):
        pass
    t0 = time.monotonic()
    with pytest.raises(KubeError) as e:
        reader.get_pod("ml-team", "train-0")
    assert "stopped after" not in str(e.value) and time.monotonic() - t0 >= 0.4  # its own 0.5 s read timeout
    reader.close()


def test_a_diagnosis_with_a_silent_kubernetes_server_ends_by_its_timeout(silent_server):
    """The whole graph: the Tier-1 reads answer, the Tier-2 reads meet a server that never answers; the diagnosis
    ends by ``timeout`` with Tier 1's verdict and the Tier-2 limitation stated, not after the reads' 30 s."""
    from workload_diagnose.agent.api import diagnose
    from workload_diagnose.evals.runner import _kwargs
    from workload_diagnose.evals.scenarios import all_scenarios
    from workload_diagnose.evals.simulator import running_simulator

    sc = next(s for s in all_scenarios() if s.tier2 and s.expected.category == "OOM_KILLED")
    reader = KubeReader.from_url(silent_server, "t0k", timeouts=(5.0, 30.0))
    with running_simulator(sc.world) as sim:
        t0 = time.monotonic()
        res = diagnose(**_kwargs(sc), runai_url=sim.url, client_id=sim.client_id, client_secret=sim.client_secret,
                       kube_reader=reader, retry_sleep=lambda s: None, timeout=3)
        took = time.monotonic() - t0
    reader.close()
    assert took < 6, took
    assert any("Tier 2" in x for x in res.limitations), res.limitations
    assert not any(c.tool == "kubernetes" and "describe pod" in c.request for c in res.tool_calls)


def test_a_chat_turn_with_a_silent_kubernetes_server_ends_by_its_timeout(silent_server, tmp_path):
    from workload_diagnose.agent.chat.api import chat
    from workload_diagnose.evals.scenarios import all_scenarios
    from workload_diagnose.evals.simulator import running_simulator

    sc = next(s for s in all_scenarios() if s.tier2 and s.expected.category == "OOM_KILLED" and s.args.workload_id)
    reader = KubeReader.from_url(silent_server, "t0k", timeouts=(5.0, 30.0))
    with running_simulator(sc.world) as sim:
        t0 = time.monotonic()
        r = chat("t-deadline", f"why did workload {sc.args.workload_id} fail on cluster {sc.args.cluster_id}?",
                 runai_url=sim.url, client_id=sim.client_id, client_secret=sim.client_secret, kube_reader=reader,
                 store=str(tmp_path / "chat.sqlite"), now=sc.args.now, retry_sleep=lambda s: None, timeout=3)
        took = time.monotonic() - t0
    reader.close()
    assert took < 6, took
    assert r.diagnosis is not None and any("Tier 2" in x for x in r.diagnosis["limitations"])
