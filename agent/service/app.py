"""``create_app(config)``: the FastAPI app of ``workload-diagnose serve``.

One :class:`Service` per process (built in the lifespan): the Run:ai connection pool and token cache
(``upstream``), the bounded runner, the metrics, the integrations' background jobs and records. Routes come from
``agent.service.routes.ROUTERS`` (every module of that package, ``/docs`` included). Middleware, outermost first:
the access log, the trusted hosts, the body limits.
"""
from __future__ import annotations

import asyncio
import threading
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

import httpx
from fastapi import FastAPI, HTTPException, Request, Security
from fastapi.security import HTTPBearer

from workload_diagnose.agent.service import errors
from workload_diagnose.agent.service.access import AccessLog, configure, set_caller
from workload_diagnose.agent.service.auth import Principal, authenticate
from workload_diagnose.agent.service.config import ServiceConfig
from workload_diagnose.agent.service.connections import quiet_descriptor_exhaustion
from workload_diagnose.agent.service.hosts import TrustedHosts
from workload_diagnose.agent.service.jobs import Jobs
from workload_diagnose.agent.service.limits import LARGER_BODIES, MAX_BODY_BYTES, BodySizeLimit
from workload_diagnose.agent.service.metrics import Metrics
from workload_diagnose.agent.service.results import Results, StoreUnavailable
from workload_diagnose.agent.service.routes import ROUTERS
from workload_diagnose.agent.service.runner import Runner
from workload_diagnose.agent.service.upstream import Upstream

TITLE = "workload-diagnose"
CHAT_STORE_UNAVAILABLE = "the chat store is unavailable (the reason is in the service's log)"
RESULTS_UNAVAILABLE = "the integrations' store is unavailable (the reason is in the service's log)"
DESCRIPTION = ("Read-only, deterministic diagnosis of failed Run:ai GPU workloads. `POST /v1/diagnoses` answers "
               "exactly the `workload-diagnose failed --json` object.")


@dataclass
class Service:
    config: ServiceConfig
    upstream: Upstream
    runner: Runner
    metrics: Metrics
    jobs: Jobs = field(default_factory=Jobs)
    results: Results = field(default_factory=Results)
    _chat: Any = None  # the chat store's checkpointer, opened on the first chat turn (agent.chat.store)
    _chat_exit: Any = None
    _chat_lock: Any = field(default_factory=threading.Lock)

    def chat_store(self) -> Any:
        """The one checkpointer of this process (PostgreSQL with ``WD_CHAT_POSTGRES_DSN``, so replicas share
        threads; else ``WD_CHAT_STORE`` / the state directory's SQLite file). 503 when it cannot be opened: the
        reason (a path, an errno text, a database host) goes to the log, never to the caller."""
        with self._chat_lock:
            if self._chat is None:
                from workload_diagnose.agent.chat.store import open_checkpointer
                from workload_diagnose.tools.runai import InvalidInput

                stack = ExitStack()
                try:
                    self._chat = stack.enter_context(open_checkpointer(None))
                except InvalidInput as e:
                    stack.close()
                    errors.log.error("the chat store is unavailable: %s", errors.one_line(e))
                    raise HTTPException(503, CHAT_STORE_UNAVAILABLE) from None
                self._chat_exit = stack
            return self._chat

    def close(self) -> None:
        self.results.close()
        with self._chat_lock:
            if self._chat_exit is not None:
                self._chat_exit.close()
                self._chat = self._chat_exit = None


def _caller(config: ServiceConfig):
    """The auth dependency: a bearer security requirement in the OpenAPI document unless auth is off."""
    if not config.authenticated:
        async def anonymous(request: Request) -> Principal:
            return _known(request, authenticate(config, None))

        return anonymous
    bearer = HTTPBearer(auto_error=False, description="an API token (auth mode tokens) or your own Run:ai "
                                                      "bearer token (auth mode passthrough)")

    async def secured(request: Request, _creds: Any = Security(bearer)) -> Principal:
        return _known(request, authenticate(config, request.headers.get("authorization")))

    return secured


def _known(request: Request, principal: Principal) -> Principal:
    set_caller(request.scope, principal.name)  # the access log's token=: a token's name or the mode, never a secret
    return principal


def create_app(config: ServiceConfig, *, transport: httpx.BaseTransport | None = None) -> FastAPI:
    """``transport`` (tests) replaces the network under the shared Run:ai pool; the read-only guard stays."""
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        quiet_descriptor_exhaustion(asyncio.get_running_loop())
        upstream = Upstream(config, transport, asyncio.get_running_loop())
        runner = Runner(config, upstream, metrics)
        app.state.service = service = Service(config, upstream, runner, metrics)
        service.jobs.start()
        try:
            yield
        finally:
            await service.jobs.stop()
            runner.shutdown()
            service.close()
            await upstream.aclose()

    # /docs and /redoc are routes/docs.py's: the bundled assets, no CDN
    app = FastAPI(title=TITLE, version="0.1.0", description=DESCRIPTION, lifespan=lifespan, docs_url=None,
                  redoc_url=None)
    errors.install(app, metrics)

    @app.exception_handler(StoreUnavailable)
    async def _no_store(request: Request, exc: StoreUnavailable) -> Any:
        return errors.error(503, RESULTS_UNAVAILABLE)

    caller = _caller(config)
    for module in ROUTERS:
        app.include_router(import_module(module).build(caller))
    def rejected(reason: str) -> None:
        metrics.rejected.labels(reason=reason).inc()

    app.add_middleware(BodySizeLimit, limit=MAX_BODY_BYTES, on_reject=rejected, timeout_s=config.header_timeout_s,
                       larger=LARGER_BODIES)
    if config.checks_host:  # a request for an untrusted host name is answered before anything else
        app.add_middleware(TrustedHosts, hosts=frozenset(config.allowed_hosts), on_reject=rejected)
    app.add_middleware(AccessLog, enabled=config.access_log)  # outermost: every answer has its line
    return app


def from_env() -> FastAPI:
    """The app for ``uvicorn --factory`` (``serve --workers N`` starts one per worker process)."""
    config = ServiceConfig.from_env()
    configure(config.access_log)
    return create_app(config)
