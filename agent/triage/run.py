"""Diagnose every listed workload with the unchanged ``runai_failed`` graph, concurrently and sharing reads.

* Bounded concurrency: a pool of ``concurrency`` workers; each diagnosis reads its steps one after the other
  (``Limits.concurrent_reads``: the concurrency is across workloads, threads inside one would only add CPU).
* Shared: one client (one connection pool, the token fetched once), the listed workload for the status read of a
  terminal workload (``tools.runai.fleet.WorkloadReads``), and Tier 2 node descriptions and namespace checks, read
  once for every workload that needs them (:class:`SharedKube`).
* A workload whose diagnosis cannot finish (the API stopped answering for it) is a limitation of the triage, not a
  verdict; credentials refused ends the whole triage (exit 4, as ``failed``).
"""
from __future__ import annotations

import threading
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Callable

from workload_diagnose.agent.api import run_graph
from workload_diagnose.agent.model.limits import Limits
from workload_diagnose.agent.model.request import build_request
from workload_diagnose.agent.model.result import DiagnosisResult
from workload_diagnose.agent.model.time import iso
from workload_diagnose.agent.triage.listing import TriageRequest
from workload_diagnose.tools.runai import ApiUnavailable, InvalidInput, Workload
from workload_diagnose.tools.runai.fleet import WorkloadReads


# many diagnoses at once: each reads its steps one after the other (Limits.concurrent_reads)
FLEET_LIMITS = Limits(concurrent_reads=False)


@dataclass(frozen=True)
class PodFact:
    name: str
    nodeName: str | None
    images: tuple[str, ...]  # the containers' images, in the order Run:ai listed them


@dataclass(frozen=True)
class KeptReads:
    """What the patterns group by, kept of one diagnosis's reads once it is done (the reads themselves, a client
    view and whole bodies, are let go: a fleet of thousands is held in memory until its report; this also crosses
    from a worker process): the pods (name, node, images) when the pods read succeeded, the submitted spec's
    ``image`` and ``storage`` when the spec read did, and whether the listed workload stood in for its status."""

    pods: tuple[PodFact, ...]
    spec: dict
    stood_in: bool

    @classmethod
    def of(cls, reads: WorkloadReads) -> "KeptReads":
        p, sp = reads.pods, reads.spec
        pods = tuple(PodFact(x.name, x.nodeName, tuple(c["image"] for c in x.containers if isinstance(c, dict)
                                                      and isinstance(c.get("image"), str) and c["image"]))
                     for x in (p.data or [])) if p is not None and p.ok else ()
        body = sp.data.body if sp is not None and sp.ok and sp.data else {}
        spec = body.get("spec") if isinstance(body, dict) else None
        kept = {k: spec[k] for k in ("image", "storage") if k in spec} if isinstance(spec, dict) else {}
        return cls(pods, kept, reads.stood_in)


@dataclass
class Item:
    """One workload of the triage: its listing, the diagnosis (or why there is none) and what it read."""

    workload: Workload
    active: bool
    reads: KeptReads | None = None  # what the patterns need of its reads, once diagnosed
    result: DiagnosisResult | None = None
    error: str | None = None


class SharedKube:
    """A Tier 2 reader shared by all diagnoses: what a node says (``get_node``, ``node_events``, ``gpu_health``) and
    ``namespace_exists`` are read once per key (also when several diagnoses ask at the same moment); every other
    read goes to the wrapped reader."""

    def __init__(self, inner: Any):
        self._inner = inner
        self._lock = threading.Lock()
        self._memo: dict[tuple, tuple[threading.Event, list]] = {}
        self.reads = 0  # how many shared reads really left the process
        self.saved = 0  # how many were answered from an earlier one

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def get_node(self, name: str):
        return self._once(("node", name), lambda: self._inner.get_node(name))

    def node_events(self, name: str):
        return self._once(("node_events", name), lambda: self._inner.node_events(name))

    def gpu_health(self, nodes: list[str]):
        from workload_diagnose.tools.kube.metrics import read_gpu_health

        return self._once(("gpu_health", tuple(nodes)), lambda: read_gpu_health(self._inner, nodes))

    def namespace_exists(self, ns: str) -> bool:
        return self._once(("ns", ns), lambda: self._inner.namespace_exists(ns))

    def _once(self, key: tuple, read: Callable[[], Any]) -> Any:
        with self._lock:
            slot = self._memo.get(key)
            mine = slot is None
            if mine:
                slot = self._memo[key] = (threading.Event(), [])
                self.reads += 1
            else:
                self.saved += 1
        done, box = slot
        if mine:
            try:
                box.append(("ok", read()))
            except BaseException as e:  # the same failure for everyone who asked (a KubeError is a limitation)
                box.append(("err", e))
            done.set()
        else:
            done.wait()
        kind, value = box[0]
        if kind == "err":
            raise value
        return value


def diagnose_all(client: Any, req: TriageRequest, items: list[Item], *, kube: Any = None,
                 kube_unavailable: str | None = None, concurrency: int = 16, limits: Limits | None = None,
                 progress: Callable[[Item], None] | None = None) -> None:
    """Fill ``item.result`` (or ``item.error``) for every item; raises ApiAuthError at the first refusal."""
    now = iso(req.now)

    def one(item: Item) -> None:
        w = item.workload
        reads = WorkloadReads(client, None if item.active else w)
        try:
            dreq = build_request(cluster_id=req.cluster_id, workload_id=w.id, lookback=req.lookback, now=now)
            item.result = run_graph(dreq, reads, kube, kube_unavailable, None, limits or FLEET_LIMITS)
        except (ApiUnavailable, InvalidInput) as e:
            item.error = str(e)
        finally:
            item.reads = KeptReads.of(reads)
            if progress is not None:
                progress(item)

    if not items:
        return
    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="triage") as pool:
        futures = [pool.submit(one, it) for it in items]
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        failed = next((f for f in done if f.exception() is not None), None)
        if failed is not None:
            for f in futures:
                f.cancel()
            raise failed.exception()  # ApiAuthError (or a bug): no triage from half the workloads
