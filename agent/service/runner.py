"""One diagnosis for the service: admitted (scope, concurrency) before any read, then run in the bounded thread
pool (the graph is synchronous) under a deadline, through ``agent.api.run_graph``; its Run:ai reads run on the
worker's event loop (``Upstream.reads``), with the speculative ones (``WD_SPECULATIVE_READS``) it did not use
listed in its ``tool_calls``.
"""
from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from workload_diagnose.agent.api import run_graph
from workload_diagnose.agent.model.errors import HANDLED, http_status
from workload_diagnose.agent.model.limits import Limits
from workload_diagnose.agent.model.request import DiagnosisRequest
from workload_diagnose.agent.model.result import DiagnosisResult, ToolCall
from workload_diagnose.agent.service.auth import Principal, ScopeDenied
from workload_diagnose.agent.service.config import ServiceConfig
from workload_diagnose.agent.service.limits import ConcurrencyLimiter
from workload_diagnose.agent.service.metrics import Metrics
from workload_diagnose.agent.service.upstream import Upstream
from workload_diagnose.tools.base import ErrorKind
from workload_diagnose.tools.deadline import Deadline
from workload_diagnose.tools.runai import ApiAuthError, ApiUnavailable

SKILL_READS = frozenset({"list_workloads", "get_workload_status", "get_workload_spec", "get_workload_pods",
                         "get_workload_history", "get_workload_metrics"})
OnCall = Callable[[ToolCall], None]
# many diagnoses at once: each runs its nodes one at a time in its own thread (Limits.concurrent_reads: no thread
# per read); its independent reads still overlap, started ahead on the worker's event loop (upstream.py)
SERVICE_LIMITS = Limits(concurrent_reads=False)


class Busy(Exception):
    """The concurrency limit is full (429 + Retry-After); nothing was read."""


class DeadlineExceeded(ApiUnavailable):
    """The diagnosis did not finish in time (504: the wording is the errors table's timeout rule)."""


class Observed:
    """A Run:ai source that reports each tool call as it completes (SSE progress) and counts failed reads;
    ``speculative``: it starts the reads a procedure names beside the status (``agent.procedures.kit.ahead``)."""

    def __init__(self, inner: Any, metrics: Metrics, on_call: OnCall | None, speculative: bool = False):
        self._inner, self._metrics, self._on_call = inner, metrics, on_call
        self._speculative = speculative

    def speculate(self, tool: str, *args: Any, **kwargs: Any) -> None:
        if self._speculative:
            self._inner.prefetch(tool, *args, **kwargs)

    @property
    def injections(self) -> list[Any]:
        return self._inner.injections

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self._inner, name)
        if name not in SKILL_READS:
            return fn

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                result = fn(*args, **kwargs)
            except ScopeDenied:
                raise
            except (ApiUnavailable, ApiAuthError):  # the token exchange failed inside the read
                self._metrics.upstream_errors.labels(kind="token").inc()
                raise
            if result.error is not None and result.error.kind != ErrorKind.NOT_FOUND:
                self._metrics.upstream_errors.labels(kind=str(result.error.kind.value)).inc()
            if self._on_call is not None:
                for inv in result.invocations:
                    self._on_call(ToolCall(tool=result.tool, request=inv.describe(), status=inv.status_code))
            return result

        return call


def _tier2_progress(on_call: OnCall) -> Callable[[str], None]:
    """Tier 2's Kubernetes reads are one step of the graph: one progress event (its calls are in the result)."""
    def progress(message: str) -> None:
        if message.startswith("kubectl"):
            on_call(ToolCall(tool="kubernetes", request=message))

    return progress


def unused_calls(reads: Any) -> list[ToolCall]:
    """The speculative reads the procedure did not make, as ``tool_calls`` state them (their bodies let go)."""
    return [ToolCall(tool=tool, request=request, status=status,
                     unused="read speculatively beside the status; the procedure did not need it, so it was not "
                            "used as evidence")
            for (tool, request), status in reads.unused()]


class Runner:
    def __init__(self, config: ServiceConfig, upstream: Upstream, metrics: Metrics):
        self.config, self.upstream, self.metrics = config, upstream, metrics
        self.limiter = ConcurrencyLimiter(config.max_concurrent)
        self.pool = ThreadPoolExecutor(max_workers=config.max_concurrent, thread_name_prefix="diagnosis")

    def admit(self, principal: Principal, req: DiagnosisRequest) -> "Admitted":
        """Refuse before any read: out of the token's scope (403), or no free slot (429)."""
        principal.check_request(req)
        if not self.limiter.try_acquire():
            raise Busy()
        self.metrics.in_flight.inc()
        return Admitted(self, principal, req)

    def _release(self) -> None:
        self.metrics.in_flight.dec()
        self.limiter.release()

    def run_sync(self, principal: Principal, req: DiagnosisRequest, on_call: OnCall | None) -> DiagnosisResult:
        # the caller gets its 504 at the deadline; the diagnosis's thread stops reading then too, so a slow Run:ai
        # does not keep the slot (and the upstream connections) busy long after the answer
        deadline = Deadline(self.config.deadline_s)
        reads = self.upstream.reads(deadline)
        client = self.upstream.source(principal.bearer, deadline, reads)
        # speculative reads only where no scope could refuse the workload once its status is read
        speculative = self.config.speculative_reads and reads is not None and (
            principal.token is None or principal.token.sees_everything)
        source = Observed(principal.guard(client), self.metrics, on_call, speculative)
        try:
            result = run_graph(req, source, self.upstream.kube, self.upstream.kube_unavailable,
                               _tier2_progress(on_call) if on_call is not None else None, SERVICE_LIMITS,
                               deadline=deadline)
            if speculative:
                result.tool_calls += unused_calls(reads)
            return result
        except ApiAuthError as e:
            if principal.mode != "passthrough" and not isinstance(e, ScopeDenied) and http_status(e) == 401:
                # the service's own credentials were refused: the caller's are not in question
                raise ApiUnavailable("the Run:ai API refused the service account's credentials") from e
            raise
        finally:
            client.close()

    async def call(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` in the bounded pool under the same concurrency limit (429 when full) and deadline (504) as a
        diagnosis: the chat endpoint's turns, which may diagnose, share the service's capacity."""
        if not self.limiter.try_acquire():
            raise Busy()
        self.metrics.in_flight.inc()
        loop = asyncio.get_running_loop()
        try:
            fut = loop.run_in_executor(self.pool, fn)
        except BaseException:
            self._release()
            raise
        fut.add_done_callback(lambda _f: self._release())
        try:
            return await asyncio.wait_for(asyncio.shield(fut), self.config.deadline_s)
        except asyncio.TimeoutError:
            e = DeadlineExceeded(f"the chat turn timed out (over {self.config.deadline_s:g} s)")
            self.metrics.failures.labels(status=str(http_status(e))).inc()
            raise e from None

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


class Admitted:
    """A diagnosis holding a slot; the slot is freed when its thread has finished, whatever the caller does."""

    def __init__(self, runner: Runner, principal: Principal, req: DiagnosisRequest):
        self.runner, self.principal, self.req = runner, principal, req

    async def result(self, on_call: OnCall | None = None) -> DiagnosisResult:
        r = self.runner
        t0 = time.perf_counter()
        loop = asyncio.get_running_loop()
        try:
            fut = loop.run_in_executor(r.pool, r.run_sync, self.principal, self.req, on_call)
        except BaseException:
            r._release()
            raise
        fut.add_done_callback(lambda _f: r._release())
        try:
            res = await asyncio.wait_for(asyncio.shield(fut), r.config.deadline_s)
        except asyncio.TimeoutError:
            e = DeadlineExceeded(f"the diagnosis timed out (over {r.config.deadline_s:g} s)")
            r.metrics.failures.labels(status=str(http_status(e))).inc()
            raise e from None
        except ScopeDenied:
            raise  # a refusal, counted where it is answered
        except HANDLED as e:
            r.metrics.failures.labels(status=str(http_status(e))).inc()
            raise
        except Exception:
            r.metrics.failures.labels(status="500").inc()
            raise
        # (a procedure whose result has no category, e.g. preempted, is counted under category "none")
        r.metrics.diagnosed(res.outcome, getattr(res, "category", None), time.perf_counter() - t0)
        return res
