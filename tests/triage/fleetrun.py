"""Helpers of the triage tests: a fleet world served by the real simulator, triage and one-by-one diagnosis."""
from __future__ import annotations

from workload_diagnose.evals.fleet import fleet_world
from workload_diagnose.evals.simulator import running_simulator


def small_fleet(n: int = 40, **kw) -> dict:
    return fleet_world(n, nodes=6, bad_nodes=2, **kw)


def run_triage(world: dict, **kw):
    """(TriageResult, requests the simulator served, stats) for a triage of ``world`` through real HTTP."""
    from workload_diagnose.agent.triage import triage

    stats: dict = {}
    with running_simulator(world) as sim:
        res = triage(cluster_id=world["fleet"]["cluster_id"], now=world["fleet"]["now"], runai_url=sim.url,
                     client_id=sim.client_id, client_secret=sim.client_secret, use_kube=False, stats=stats,
                     retry_sleep=kw.pop("retry_sleep", None), **kw)
        return res, list(sim.requests), stats


def one_by_one(world: dict, ids: list[str], lookback: str = "7d"):
    """{id: DiagnosisResult} diagnosed one at a time, each as ``failed --workload-id`` would (its own client and
    token), and the number of requests they needed together."""
    from workload_diagnose.agent.api import diagnose

    out = {}
    with running_simulator(world) as sim:
        for wid in ids:
            out[wid] = diagnose(cluster_id=world["fleet"]["cluster_id"], workload_id=wid, now=world["fleet"]["now"],
                                lookback=lookback, runai_url=sim.url, client_id=sim.client_id,
                                client_secret=sim.client_secret, use_kube=False)
        return out, len(sim.requests)
