"""The read pool: one thread pool for the reads a diagnosis makes beside another (the events beside the
workload), shared by every REST client of the process, safe across Ctrl-C and fork."""
from __future__ import annotations

import os
import threading
from typing import Any, Callable

__all__ = ["beside", "inline"]

_POOL: Any = None
_POOL_LOCK = threading.Lock()


def _read_pool() -> Any:
    """One thread pool for the reads a diagnosis makes beside another (the events beside the workload), shared
    by every client of the process: threads are started once, not per read."""
    global _POOL
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                from concurrent.futures import ThreadPoolExecutor

                _POOL = ThreadPoolExecutor(max_workers=32, thread_name_prefix="runai-read")
    return _POOL


def beside(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` started on the shared read pool; its future.

    Ctrl-C can land while ``submit`` starts a new pool thread, after the thread runs but before the pool records
    it for the interpreter's exit, which then waits for that thread for ever (the chat hung on Ctrl-C in CI). The
    pool is then shut down, which wakes every thread of it, recorded or not, once its read ends; the next read
    gets a new pool."""
    global _POOL
    pool = _read_pool()
    try:
        return pool.submit(fn, *args)
    except BaseException:
        with _POOL_LOCK:
            if _POOL is pool:
                _POOL = None
        pool.shutdown(wait=False)
        raise


def _forget_pool_in_child() -> None:
    """A forked child makes its own pool: fork copies the parent's but none of its threads (work queued there
    would never run), and the parent's lock may have been held by a thread at the fork."""
    global _POOL, _POOL_LOCK
    _POOL, _POOL_LOCK = None, threading.Lock()


if hasattr(os, "register_at_fork"):  # (no fork, so nothing to forget, where it is missing)
    os.register_at_fork(after_in_child=_forget_pool_in_child)


def inline(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` run now, as a completed future (one read needs no thread)."""
    from concurrent.futures import Future

    f: Future = Future()
    try:
        f.set_result(fn(*args))
    except BaseException as e:  # noqa: BLE001 - delivered through the future like pool.submit would
        f.set_exception(e)
    return f


