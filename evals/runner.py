"""Run one scenario: record it from the simulator, replay it from its cassette, or run it live."""
from __future__ import annotations

from pathlib import Path

from agent.state import DiagnosisResult
from evals.scenarios import REPLAY_URL, Scenario


def _kwargs(sc: Scenario) -> dict:
    a = sc.args
    return dict(cluster_id=a.cluster_id, workload_id=a.workload_id, workload_name=a.workload_name,
                project=a.project, intent=a.intent, lookback=a.lookback, now=a.now)


def replay(sc: Scenario, *, cassette: Path | None = None, kube_reader=None) -> DiagnosisResult:
    from agent.api import diagnose
    from evals.cassettes import player

    if kube_reader is None and sc.tier2:
        from evals.kubeworld import replay_reader

        kube_reader = replay_reader()
    with player().use_cassette(str(cassette or sc.cassette)):
        return diagnose(**_kwargs(sc), runai_url=REPLAY_URL, client_id="replay", client_secret="replay",
                        use_kube=kube_reader is not None, kube_reader=kube_reader, retry_sleep=lambda s: None)


def live(sc: Scenario, *, delay_ms: int = 0, world: dict | None = None, kube_reader=None,
         retry_sleep=None) -> tuple[DiagnosisResult, list[tuple[str, str]]]:
    """Run against a fresh simulator serving the scenario's world; returns the result and the requests served."""
    from agent.api import diagnose
    from evals.simulator import running_simulator

    with running_simulator(world if world is not None else sc.world, delay_ms=delay_ms) as sim:
        res = diagnose(**_kwargs(sc), runai_url=sim.url, client_id=sim.client_id, client_secret=sim.client_secret,
                       use_kube=kube_reader is not None, kube_reader=kube_reader,
                       retry_sleep=retry_sleep or (lambda s: None))
        return res, list(sim.requests)


def record(sc: Scenario, *, cassette: Path | None = None, kube_reader=None,
           kube_server: str | None = None) -> DiagnosisResult:
    """Record from the simulator (and, for Tier 2, from the live kube-apiserver ``kube_reader`` talks to)."""
    from agent.api import diagnose
    from evals.cassettes import recorder
    from evals.simulator import running_simulator

    path = Path(cassette or sc.cassette)
    if path.exists():
        path.unlink()
    with running_simulator(sc.world) as sim:
        with recorder(path, sim.url, kube_server).use_cassette(str(path)):
            res = diagnose(**_kwargs(sc), runai_url=sim.url, client_id=sim.client_id,
                           client_secret=sim.client_secret, use_kube=kube_reader is not None,
                           kube_reader=kube_reader, retry_sleep=lambda s: None)
    if not path.exists():  # no request at all (e.g. missing parameters): an empty cassette replays that
        path.write_text("interactions: []\nversion: 1\n")
    else:
        from evals.cassettes import normalise_order

        normalise_order(path)
    return res
