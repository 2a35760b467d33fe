"""Work an inbound integration acknowledges at once and finishes afterwards (an Alertmanager webhook expects a
quick 2xx, Slack an answer within 3 s): a bounded queue per process and a few workers on the event loop.

A job is an ``async`` function. A diagnosis it runs goes through the service's runner like any other (same scope
checks, concurrency limit, thread pool, deadline); when every slot is taken it waits for one (at most
``WAIT_FOR_SLOT_S``) instead of failing, since nobody is waiting on the line to retry it. A full queue refuses new
work (the webhook answers 503, which Alertmanager retries; Slack is told to try again).
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable

from workload_diagnose.agent.service.auth import Principal
from workload_diagnose.agent.service.errors import one_line
from workload_diagnose.agent.service.runner import Busy, Runner

log = logging.getLogger("workload_diagnose.service")
QUEUE_SIZE = 256
WORKERS = 2
WAIT_FOR_SLOT_S = 60.0
Job = Callable[[], Awaitable[None]]


class Jobs:
    def __init__(self, size: int = QUEUE_SIZE, workers: int = WORKERS):
        self._queue: asyncio.Queue[Job] = asyncio.Queue(maxsize=size)
        self._n = workers
        self._tasks: list[asyncio.Task] = []

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._work(), name=f"wd-job-{i}") for i in range(self._n)]

    def submit(self, job: Job) -> bool:
        """Queue ``job``; False when the queue is full."""
        try:
            self._queue.put_nowait(job)
        except asyncio.QueueFull:
            return False
        return True

    async def _work(self) -> None:
        while True:
            job = await self._queue.get()
            try:
                await job()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001  (a job records its own failures; this is the last resort)
                log.error("a background job failed: %s: %s", type(e).__name__, one_line(e, 200))
            finally:
                self._queue.task_done()

    async def stop(self) -> None:
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []


async def diagnose(runner: Runner, principal: Principal, request: Any) -> Any:
    """One diagnosis through the runner (scope, slot, deadline), waiting for a free slot."""
    return await _waiting(lambda: runner.admit(principal, request).result())


async def call(runner: Runner, fn: Callable[[], Any]) -> Any:
    """``fn()`` in the runner's pool under its limit and deadline, waiting for a free slot."""
    return await _waiting(lambda: runner.call(fn))


async def _waiting(start: Callable[[], Awaitable[Any]]) -> Any:
    loop = asyncio.get_running_loop()
    give_up = loop.time() + WAIT_FOR_SLOT_S
    while True:
        try:
            return await start()
        except Busy:
            if loop.time() >= give_up:
                raise
            await asyncio.sleep(0.25)
