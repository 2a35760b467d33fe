"""Diagnoses spread over worker processes (``--processes N``), for fleets where CPU is the limit.

One Python process runs Python on one core at a time (the GIL): a triage of thousands of workloads spends its
time in the graph's CPU, not waiting for the API, so threads alone cannot use a second core. ``--processes N`` is
this process and N - 1 spawned workers (a spawned interpreter costs its whole memory: the parent, which holds the
listing anyway, diagnoses too). Each runs the same :func:`agent.triage.run.diagnose_all` (a thread pool, the
unchanged graph) over chunks of the listing, taking the next chunk when it is free, with its own source built by
the one factory from the parent's settings and the credential the parent fetched (the source's ``handoff`` /
``adopt``: still one token request per triage). What is shared only within a process: the ``429 Retry-After``
pause and the Tier 2 node/namespace reads (at most once per node per process). Workers are spawned, not forked
(the parent holds threads and sockets).
"""
from __future__ import annotations

import os
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from typing import Any, Callable

from workload_diagnose.agent.triage.listing import TriageRequest
from workload_diagnose.agent.triage.run import Item

_STATE: dict[str, Any] = {}


def _init(tier1: str, settings: Any, handoff: dict, kubeconfig: str | None, use_kube: bool,
          concurrency: int) -> None:
    from workload_diagnose.agent.model.settings import make_kube
    from workload_diagnose.agent.sources import open_runai
    from workload_diagnose.agent.triage.run import SharedKube

    client = open_runai(tier1, settings)
    client.adopt(handoff)
    kube, why = make_kube(kubeconfig, use_kube)
    _STATE.update(client=client, kube=SharedKube(kube) if kube is not None else None, why=why,
                  concurrency=concurrency)


def _chunk(req: TriageRequest, rows: list[tuple[dict, bool]]) -> tuple[list[tuple], dict]:
    from workload_diagnose.agent.triage.run import diagnose_all
    from workload_diagnose.tools.runai import Workload

    s = _STATE
    items = [Item(Workload.model_validate(w), active) for w, active in rows]
    diagnose_all(s["client"], req, items, kube=s["kube"], kube_unavailable=s["why"], concurrency=s["concurrency"])
    out = [(it.result, it.error, it.reads) for it in items]
    k = s["kube"]
    return out, {"pid": os.getpid(), **s["client"].traffic(), "kube_reads": k.reads if k else 0,
                 "kube_saved": k.saved if k else 0}


def diagnose_in_processes(items: list[Item], req: TriageRequest, *, processes: int, tier1: str, settings: Any,
                          handoff: dict, kubeconfig: str | None,
                          use_kube: bool, concurrency: int, progress: Callable[[Item], None] | None = None,
                          here: Callable[[list[Item], int], None] | None = None) -> dict[int, dict]:
    """Fill every item's result (or error) and ``reads`` (a :class:`KeptReads`); returns each worker's counters.
    Each worker builds its source ``tier1`` from ``settings`` (portable: no transport or callback) and adopts
    the parent's ``handoff``.

    ``here(chunk, concurrency)`` (optional) diagnoses a chunk in this process with that many diagnoses in flight
    (each process's share of ``concurrency``): then this process is one of the ``processes``
    (``processes - 1`` are spawned; each spawned one costs a whole interpreter's memory) and takes the next chunk
    whenever it is free, as the workers do."""
    import multiprocessing as mp
    import threading

    if not items:
        return {}
    size = max(10, -(-len(items) // (processes * 8)))  # small chunks: the bar moves, the workers stay balanced
    chunks = [items[i:i + size] for i in range(0, len(items), size)]
    counters: dict[int, dict] = {}
    spawned = processes - 1 if here is not None else processes
    per_process = max(1, -(-concurrency // processes))
    lock = threading.Lock()
    queue = iter(chunks)
    stop = threading.Event()
    failure: list[BaseException] = []

    def take() -> list[Item] | None:
        with lock:
            return None if stop.is_set() else next(queue, None)

    def local() -> None:  # this process's share, chunk after chunk
        try:
            while (c := take()) is not None:
                here(c, per_process)
        except BaseException as e:  # noqa: BLE001 - raised by the caller below, as a worker's would be
            failure.append(e)
            stop.set()

    mine = threading.Thread(target=local, name="triage-here", daemon=True) if here is not None else None
    with ProcessPoolExecutor(max_workers=spawned, mp_context=mp.get_context("spawn"), initializer=_init,
                             initargs=(tier1, settings, handoff, kubeconfig, use_kube, per_process)) as pool:
        futures: dict[Any, list[Item]] = {}

        def submit() -> Any:
            c = take()
            if c is None:
                return None
            f = pool.submit(_chunk, req, [(it.workload.model_dump(mode="json"), it.active) for it in c])
            futures[f] = c
            return f

        for _ in range(spawned * 2):  # two chunks queued per worker: it never waits for the next one
            submit()
        if mine is not None:
            mine.start()
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for f in done:
                if f.exception() is not None:
                    stop.set()
                    for g in pending:
                        g.cancel()
                    raise f.exception()  # ApiAuthError (or a bug): no triage from half the workloads
                rows, stats = f.result()
                if stats["sent"] >= counters.get(stats["pid"], {}).get("sent", -1):  # cumulative per worker
                    counters[stats["pid"]] = stats
                for it, (result, error, reads) in zip(futures.pop(f), rows):
                    it.result, it.error, it.reads = result, error, reads
                    if progress is not None:
                        progress(it)
                if (g := submit()) is not None:
                    pending.add(g)
    if mine is not None:
        mine.join()
    if failure:
        raise failure[0]
    return counters
