"""Run:ai (and Kubernetes) for the whole process: one connection pool, one token cache, one readiness check.

Every diagnosis gets its own Tier-1 source (``WD_TIER1``, built by the one factory: its tool calls and guardrail
findings are its own) over the process's shared, read-only transport (:mod:`tools.transport` still checks every
request), so connections are reused across requests and the service account's token is exchanged once, not per
request. Given the worker's event loop, a diagnosis's Run:ai reads run on it (:mod:`tools.runai.rest.aio`: one
async connection pool per worker process): the reads a step makes are started at once and overlap there, with no
thread per read, so a diagnosis takes as long as its dependent round trips (status, then what it needs).
"""
from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from workload_diagnose.agent.service.config import ServiceConfig
from workload_diagnose.tools.deadline import Deadline
from workload_diagnose.tools.runai import ApiAuthError, ApiUnavailable, RunaiSource
from workload_diagnose.tools.runai.rest.aio import LoopPool, LoopReads
from workload_diagnose.tools.runai.registry import NOT_CONFIGURED, SourceSettings, open_source, spec
from workload_diagnose.tools.transport import make_client

IN_CLUSTER_SA = Path("/var/run/secrets/kubernetes.io/serviceaccount")
KUBE_OFF = "Tier 2 is off for this service (WD_KUBE=off)"
POOL = httpx.Limits(max_connections=512, max_keepalive_connections=256, keepalive_expiry=30.0)


class _Shared(httpx.BaseTransport):
    """The process's connection pool; a per-request client's ``close()`` leaves it open."""

    def __init__(self, inner: httpx.BaseTransport):
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self.inner.handle_request(request)

    def close(self) -> None:
        pass


class TokenCache:
    """The service account's Run:ai token, shared by every request: ``fn(refresh) -> token``. After a 401 many
    requests ask for a refresh at once; the token is exchanged once for them all."""

    MIN_REFRESH_S = 1.0

    def __init__(self, client: Any):
        self._client = client
        self._lock = threading.Lock()
        self._refreshed_at = float("-inf")

    def __call__(self, refresh: bool = False) -> str:
        if refresh:
            with self._lock:
                if time.monotonic() - self._refreshed_at >= self.MIN_REFRESH_S:
                    self._client.ensure_token(refresh=True)
                    self._refreshed_at = time.monotonic()
        return self._client.ensure_token()


class Upstream:
    def __init__(self, config: ServiceConfig, transport: httpx.BaseTransport | None = None,
                 loop: asyncio.AbstractEventLoop | None = None):
        """``loop`` (the worker's running event loop): the diagnoses' reads run on it, unless ``transport`` (tests)
        replaces the network."""
        self.config = config
        self.url = config.runai_url or NOT_CONFIGURED
        self._transport = _Shared(transport or httpx.HTTPTransport(retries=0, limits=POOL))
        self.loop_pool = LoopPool(loop, POOL, fallback=self._transport) if loop is not None and transport is None \
            else None
        self.bearer = spec(config.tier1).bearer  # the source reads with a Run:ai token this service hands it
        self.tokens: TokenCache | None = None
        # the service account's token cache; without its client id and secret the service still starts (/readyz
        # says what is missing, a diagnosis is refused with the same words)
        if config.auth != "passthrough" and self.bearer and config.client_id and config.client_secret:
            self.tokens = TokenCache(open_source(config.tier1, self._settings(
                client_id=config.client_id, client_secret=config.client_secret)))
        self._ready: tuple[float, bool, str] | None = None
        self._ready_lock = threading.Lock()
        self.kube, self.kube_unavailable = make_service_kube(config)

    def _settings(self, **kw: Any) -> SourceSettings:
        c = self.config
        return SourceSettings(url=self.url, env=dict(c.sources), timeout=c.upstream_timeout_s,
                              transport=self._transport, **kw)

    def reads(self, deadline: Deadline | None = None) -> LoopReads | None:
        """One diagnosis's transport on the worker's event loop (None without a loop, or for a source that is not
        the REST client: an MCP source has its own transport)."""
        if self.loop_pool is None or self.config.tier1 != "rest":
            return None
        s = SourceSettings()
        return self.loop_pool.reads(max_body_bytes=s.max_body_bytes, read_total=s.read_total, deadline=deadline)

    def source(self, bearer: str | None = None, deadline: Deadline | None = None,
               reads: LoopReads | None = None) -> RunaiSource:
        """A Run:ai source (``WD_TIER1``) for one diagnosis: one that reads with a bearer token gets the caller's
        (pass-through) or the service account's; one with its own credentials gets the service account's client
        id and secret; ``deadline``: the diagnosis's, after which it starts no read (nor a retry's wait);
        ``reads``: its transport on the event loop (:meth:`reads`; made here when not given)."""
        if self.bearer and self.config.auth != "passthrough" and self.tokens is None:
            raise ApiUnavailable(unconfigured(self.config) or "the service account's credentials are not set")
        if self.bearer:  # never the client credentials: a caller's token in pass-through, else the shared cache
            who: dict[str, Any] = {"bearer_token": bearer if self.config.auth == "passthrough" else self.tokens}
        else:  # the source's own credentials (e.g. an MCP server started on stdio gets the service account's)
            who = {"client_id": self.config.client_id, "client_secret": self.config.client_secret}
        settings = self._settings(concurrent_reads=False, deadline=deadline, **who)
        settings.transport = reads or self.reads(deadline) or settings.transport
        return open_source(self.config.tier1, settings)

    # ------------------------------------------------------------------ readiness
    def ready(self) -> tuple[bool, str]:
        """Whether Run:ai answers, checked for real (a token exchange with the service account; in
        pass-through, an unauthenticated GET that any answer but a 5xx proves reachable), cached briefly."""
        with self._ready_lock:
            now = time.monotonic()
            if self._ready is not None and now - self._ready[0] < self.config.ready_ttl_s:
                return self._ready[1], self._ready[2]
            ok, detail = self._check()
            self._ready = (time.monotonic(), ok, detail)
            return ok, detail

    def _check(self) -> tuple[bool, str]:
        if (why := unconfigured(self.config)) is not None:
            return False, why
        if not self.bearer:  # a source with its own credentials: ready when configured (its reads say the rest)
            return True, f"--tier1 {self.config.tier1} is configured"
        if self.tokens is not None:
            try:
                self.tokens(refresh=True)
            except ApiAuthError:
                return False, "the Run:ai API refused the service account's credentials"
            except ApiUnavailable as e:
                return False, str(e)
            return True, "the Run:ai token exchange succeeded"
        client = make_client(self.url, timeout=min(self.config.upstream_timeout_s, 5.0), transport=self._transport)
        try:
            r = client.get("/api/v1/workloads", params={"limit": "1"})
        except httpx.HTTPError as e:
            return False, f"cannot reach the Run:ai API: {type(e).__name__}"
        finally:
            client.close()
        if r.status_code >= 500:
            return False, f"the Run:ai API answered HTTP {r.status_code}"
        return True, f"the Run:ai API answered HTTP {r.status_code}"

    async def aclose(self) -> None:
        if self.loop_pool is not None:
            await self.loop_pool.aclose()
        self.close()

    def close(self) -> None:
        self._transport.inner.close()
        if self.kube is not None:
            self.kube.close()


def unconfigured(config: ServiceConfig) -> str | None:
    """Why the service's Run:ai source cannot read (``/readyz`` answers 503 with it), or None."""
    if spec(config.tier1).bearer:
        if not config.runai_url:
            return "RUNAI_BASE_URL is not set"
        if config.auth != "passthrough" and not (config.client_id and config.client_secret):
            return "RUNAI_CLIENT_ID / RUNAI_CLIENT_SECRET are not set"
        return None
    return spec(config.tier1).prerequisites(SourceSettings(url=config.runai_url, env=dict(config.sources)))


def make_service_kube(config: ServiceConfig) -> tuple[Any, str | None]:
    """Tier 2 for the service: ``KUBECONFIG``, else the pod's own service account (in the cluster), else none."""
    if config.kube == "off":
        return None, KUBE_OFF
    from workload_diagnose.agent.model.settings import Settings, make_kube

    if config.kubeconfig or not (IN_CLUSTER_SA / "token").is_file():
        return make_kube(config.kubeconfig, True, Settings(kubeconfig=config.kubeconfig))
    try:
        from kubernetes import client
        from kubernetes.config import incluster_config

        from workload_diagnose.tools.kube import KubeReader

        cfg = client.Configuration()
        incluster_config.InClusterConfigLoader(token_filename=str(IN_CLUSTER_SA / "token"),
                                               cert_filename=str(IN_CLUSTER_SA / "ca.crt")).load_and_set(cfg)
        return KubeReader(client.ApiClient(cfg)), None
    except Exception as e:  # noqa: BLE001  (an unusable in-cluster config is a limitation, not a crash)
        host = os.environ.get("KUBERNETES_SERVICE_HOST", "?")
        return None, f"the in-cluster service account could not be used for {host} ({type(e).__name__})"
