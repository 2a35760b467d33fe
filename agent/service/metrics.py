"""Prometheus metrics of one service process (``GET /metrics``), in a registry of the app's own.

* ``workload_diagnose_diagnoses_total{outcome,category}``  diagnoses answered (category ``none`` unless diagnosed)
* ``workload_diagnose_diagnosis_seconds``                   latency of a diagnosis (histogram)
* ``workload_diagnose_upstream_errors_total{kind}``        Run:ai reads that failed (timeout, unreachable, …)
* ``workload_diagnose_rejected_total{reason}``             requests refused before any read (421/413/422/401/403/429)
* ``workload_diagnose_failures_total{status}``             diagnoses that ended in an error status (502/504/…)
* ``workload_diagnose_in_flight``                          diagnoses running now
* ``workload_diagnose_runai_up``                           1 when the last ``/readyz`` check reached Run:ai, else 0
* ``workload_diagnose_alerts_total{status}``               Alertmanager alerts received, by what became of them

With ``serve --workers N`` the workers write their figures to files in ``PROMETHEUS_MULTIPROC_DIR`` (the
supervisor makes one, ``agent.service.workers``) and any worker's ``/metrics`` answers the sum over all of them
(prometheus_client's multiprocess mode): a scrape sees the service, not the one worker that took the connection.
"""
from __future__ import annotations

import os

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client import CONTENT_TYPE_LATEST  # noqa: F401  (re-exported for the route)

SHARED_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"  # prometheus_client's own name for it
BUCKETS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)


class Metrics:
    def __init__(self) -> None:
        self.shared = bool(os.environ.get(SHARED_DIR_ENV))  # (prometheus_client chose its files at import)
        self.registry = CollectorRegistry(auto_describe=True)
        p = "workload_diagnose_"
        self.diagnoses = Counter(p + "diagnoses", "Diagnoses answered, by outcome and category",
                                 ["outcome", "category"], registry=self.registry)
        self.latency = Histogram(p + "diagnosis_seconds", "Time to answer one diagnosis", buckets=BUCKETS,
                                 registry=self.registry)
        self.upstream_errors = Counter(p + "upstream_errors", "Run:ai reads that failed, by kind", ["kind"],
                                       registry=self.registry)
        self.rejected = Counter(p + "rejected", "Requests refused before any read, by reason", ["reason"],
                                registry=self.registry)
        self.failures = Counter(p + "failures", "Diagnoses that ended without a result, by HTTP status",
                                ["status"], registry=self.registry)
        self.in_flight = Gauge(p + "in_flight", "Diagnoses running now", registry=self.registry,
                               multiprocess_mode="livesum")  # summed over the workers alive
        self.runai_up = Gauge(p + "runai_up", "1 when the last readiness check reached Run:ai, else 0",
                              registry=self.registry, multiprocess_mode="livemostrecent")
        self.alerts = Counter(p + "alerts", "Alertmanager alerts received, by what became of them", ["status"],
                              registry=self.registry)

    def diagnosed(self, outcome: str, category: str | None, seconds: float) -> None:
        self.diagnoses.labels(outcome=outcome, category=category or "none").inc()
        self.latency.observe(seconds)

    def render(self) -> bytes:
        if not self.shared:
            return generate_latest(self.registry)
        from prometheus_client import multiprocess

        everyone = CollectorRegistry()
        multiprocess.MultiProcessCollector(everyone)
        return generate_latest(everyone)
