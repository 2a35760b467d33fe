"""Tier 1 over the Run:ai control-plane REST API (``--tier1 rest``), read-only.

* :mod:`tools.runai.rest.client` — :class:`RunaiClient`: the six skill reads, their paging, the ``fleet`` capability.
* :mod:`tools.runai.rest.wire` — the guarded GET: read-only transport, body cap, deadlines, retries, sanitising.
* :mod:`tools.runai.rest.token` — the bearer token (client credentials, a caller's own, or a shared cache).
* :mod:`tools.runai.rest.listing` — a fleet's listing by phase; :mod:`tools.runai.rest.paced` — 429 pacing.
* :mod:`tools.runai.rest.pool` — the read pool; :mod:`tools.runai.rest.spec` — its registration.
"""
from workload_diagnose.tools.runai.rest.client import RunaiClient
from workload_diagnose.tools.runai.rest.wire import check_base_url, request_text

__all__ = ["RunaiClient", "check_base_url", "request_text"]
