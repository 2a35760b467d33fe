"""One turn of a conversation (``workload-diagnose chat`` / ``ask``, the HTTP chat endpoint, the embeddable
``workload_diagnose.chat``): the message filtered, the conversation graph run on its thread, the ``ask --json``
object returned. Diagnoses inside a turn run through :mod:`workload_diagnose.agent.api`."""
from __future__ import annotations

from typing import Any, Callable

import httpx

from workload_diagnose.agent.api import runai_settings
from workload_diagnose.agent.model.chat import ChatReply
from workload_diagnose.agent.model.limits import Limits
from workload_diagnose.agent.model.settings import Settings, make_kube
from workload_diagnose.agent.sources import open_runai
from workload_diagnose.tools.deadline import Deadline, parse_timeout
from workload_diagnose.tools.runai import InvalidInput
from workload_diagnose.tools.runai.registry import missing

__all__ = ["chat", "achat", "MAX_MESSAGE_CHARS"]

_THREAD_LOCKS: dict[str, Any] = {}
_LOCKS_GUARD = __import__("threading").Lock()
_THREAD_ID = __import__("re").compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
MAX_MESSAGE_CHARS = 64_000  # read at most this much of one message (the parser looks at the first 4 000)


def _thread_lock(thread_id: str) -> Any:
    import threading

    with _LOCKS_GUARD:
        return _THREAD_LOCKS.setdefault(thread_id, threading.Lock())


def chat(thread_id: str, message: str, *, runai: Any = None, checkpointer: Any = None, store: str | None = None,
         runai_url: str | None = None, client_id: str | None = None, client_secret: str | None = None,
         kubeconfig: str | None = None, use_kube: bool = True, kube_reader: Any = None, now: str | None = None,
         llm: Any = None, progress: Callable[[str], None] | None = None,
         transport: httpx.BaseTransport | None = None, retry_sleep: Callable[[float], None] | None = None,
         limits: Limits | None = None, timeout: float | str = 60.0, ca_file: str | None = None,
         tier1: str = "rest", on_invocation: Callable[[Any, float], None] | None = None) -> ChatReply:
    """One turn of the conversation ``thread_id``; returns the ``ask --json`` object as a ``ChatReply``.

    The message is redacted and injection-scanned before it is stored or shown to a model. ``runai`` (any
    ``tools.runai.RunaiSource``) and ``checkpointer`` (any LangGraph checkpointer) may be injected, e.g. by a
    service; otherwise a REST client is built from the arguments/environment and the store from ``store`` /
    ``WD_CHAT_STORE`` / ``WD_CHAT_POSTGRES_DSN`` / the XDG state directory. Reentrant and thread-safe: turns of
    one thread run one at a time in this process; different threads run concurrently and never share state.
    Raises InvalidInput, ApiUnavailable or ApiAuthError like ``diagnose``. ``on_invocation(invocation, ms)``:
    after each Run:ai read of the turn (``ask -v``).
    """
    import contextlib

    from workload_diagnose import guardrails
    from workload_diagnose.agent.chat.graph import build_graph
    from workload_diagnose.agent.chat.state import ChatContext
    from workload_diagnose.agent.chat.store import open_checkpointer
    from workload_diagnose.agent.model.time import parse_now

    if not isinstance(thread_id, str) or not _THREAD_ID.match(thread_id):
        raise InvalidInput(f"thread id {str(thread_id)[:80]!r} is not valid (letters, digits, '.', '_', ':', '-'; "
                           "at most 128)")
    if not isinstance(message, str):
        raise InvalidInput("the message must be text")
    try:
        parse_now(now)
    except ValueError as e:
        raise InvalidInput(str(e)) from None
    clean = guardrails.sanitize_text(message[:MAX_MESSAGE_CHARS])
    settings = Settings.from_env()
    own = runai is None
    deadline = None
    if own:
        url, cid, secret = settings.runai(runai_url, client_id, client_secret)
        try:
            seconds = parse_timeout(timeout)
        except ValueError as e:
            raise InvalidInput(str(e)) from None
        deadline = Deadline(seconds)  # one deadline per turn, for its Run:ai and Tier-2 reads
        wanted = runai_settings(settings, runai_url=runai_url, url=url, client_id=cid, client_secret=secret,
                                  needed=False, transport=transport, retry_sleep=retry_sleep, ca_file=ca_file,
                                  limits=limits or Limits(), deadline=deadline, on_invocation=on_invocation)
        runai = open_runai(tier1, wanted)
        unready = missing(tier1, wanted)
        ready = unready is None
    else:
        ready, unready = True, None
    try:
        kube, why = (kube_reader, None) if kube_reader is not None else make_kube(kubeconfig, use_kube, settings)
        ctx = ChatContext(runai=runai, runai_ready=ready, runai_missing=unready, kube=kube, kube_unavailable=why,
                          now=now, llm=llm,
                          progress=progress, limits=limits or Limits(), deadline=deadline)
        with _thread_lock(thread_id):
            with (contextlib.nullcontext(checkpointer) if checkpointer is not None
                  else open_checkpointer(store)) as cp:
                out = build_graph(cp).invoke({"message": clean.text, "flagged": len(clean.injections)},
                                             config={"configurable": {"thread_id": thread_id}}, context=ctx)
    finally:
        if own:
            runai.close()
    return ChatReply(thread_id=thread_id, reply=guardrails.redact(out.get("reply") or ""),
                     needs_input=bool(out.get("needs_input")), missing=out.get("missing") or [],
                     diagnosis=out.get("diagnosis"), usage=ctx.usage.as_dict())


async def achat(thread_id: str, message: str, **kw: Any) -> ChatReply:
    """``chat`` for asyncio callers (an HTTP service): the same turn, run in a worker thread."""
    import asyncio

    return await asyncio.to_thread(chat, thread_id, message, **kw)
