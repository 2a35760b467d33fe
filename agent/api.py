"""The embeddable Python API: one call, one DiagnosisResult. Used by the CLI, the eval runner and bots."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable

import httpx

from agent.entrypoints.settings import Settings, make_kube
from agent.model.limits import Limits
from agent.model.request import DiagnosisRequest, build_request
from agent.model.result import DiagnosisResult
from agent.sources import open_runai, source_settings
from tools.deadline import Deadline, parse_timeout
from tools.runai import ApiAuthError, ApiUnavailable, InvalidInput, RunaiSource
from tools.runai.registry import spec

if TYPE_CHECKING:
    from agent.model.chat import ChatReply

__all__ = ["diagnose", "run_procedure", "run_graph", "chat", "achat", "ApiAuthError", "ApiUnavailable", "InvalidInput",
           "DiagnosisRequest", "DiagnosisResult"]


def run_graph(request: DiagnosisRequest, runai: RunaiSource, kube: Any = None, kube_unavailable: str | None = None,
              progress: Callable[[str], None] | None = None, limits: Limits | None = None, *,
              deadline: Deadline | None = None) -> DiagnosisResult:
    """Run the Run:ai procedure that takes this request's type (``DiagnosisRequest``: the failed-workload one) with
    the given sources (``deadline``: the one of the source's reads, which then bounds the Tier-2 Kubernetes reads as
    well). The runner behind every entry point: ``agent.procedures.run`` with the kit's ``Context``."""
    from agent.procedures import for_request, run
    from agent.procedures.kit.context import Context

    ctx = Context(runai=runai, kube=kube, kube_unavailable=kube_unavailable, progress=progress,
                  limits=limits or Limits(), deadline=deadline)
    return run(for_request(request).name, request, ctx)


def diagnose(*, cluster_id: str | None = None, workload_id: str | None = None, workload_name: str | None = None,
             project: str | None = None, intent: str = "terminal", lookback: str = "7d", now: str | None = None,
             runai_url: str | None = None, client_id: str | None = None, client_secret: str | None = None,
             kubeconfig: str | None = None, use_kube: bool = True, kube_reader: Any = None,
             transport: httpx.BaseTransport | None = None, retry_sleep: Callable[[float], None] | None = None,
             progress: Callable[[str], None] | None = None, llm: Any = None, timeout: float | str = 60.0,
             ca_file: str | None = None, limits: Limits | None = None,
             on_invocation: Callable[[Any, float], None] | None = None, tier1: str = "rest",
             source: RunaiSource | None = None) -> DiagnosisResult:
    """Diagnose one workload. Raises InvalidInput, ApiUnavailable or ApiAuthError; anything else is a result.

    ``timeout`` (seconds) is the one deadline of every Run:ai read of the diagnosis (and of its Tier-2 Kubernetes
    reads, through ``KubeReader.bounded_by``): when it is reached, reads in progress are abandoned and what was
    not read is a stated limitation (exit 3 when it was the workload itself).
    ``ca_file`` is a PEM CA bundle for TLS (else SSL_CERT_FILE / REQUESTS_CA_BUNDLE, else certifi's); plain
    ``http://`` to a host that is not loopback is allowed (``tools.transport.plain_http_warning`` says why not to:
    the CLI prints it). Ctrl-C
    (in the main thread) cancels every read at once and raises KeyboardInterrupt.
    ``llm`` (optional, any langchain-core chat model) only adds a validated ``explanation``; it never changes
    the outcome, category, evidence or recommendations. ``on_invocation(invocation, elapsed_ms)`` is called after
    each Run:ai read (the ``tools.base.Invocation`` that ``tool_calls`` cite; ``failed -v`` prints them).
    ``tier1`` picks the Run:ai source (a name registered in ``tools.runai.registry``: ``rest`` or ``mcp``, the
    official Run:ai MCP server); ``source`` (optional) is a ready :class:`tools.runai.RunaiSource` used instead
    (the caller closes it).
    """
    return run_procedure("runai_failed", **locals())  # (locals: exactly the keywords above)


def run_procedure(name: str, *, cluster_id: str | None = None, workload_id: str | None = None,
                  workload_name: str | None = None, project: str | None = None, intent: str = "terminal",
                  lookback: str = "7d", now: str | None = None, runai_url: str | None = None,
                  client_id: str | None = None, client_secret: str | None = None, kubeconfig: str | None = None,
                  use_kube: bool = True, kube_reader: Any = None, transport: httpx.BaseTransport | None = None,
                  retry_sleep: Callable[[float], None] | None = None, progress: Callable[[str], None] | None = None,
                  llm: Any = None, timeout: float | str = 60.0, ca_file: str | None = None,
                  limits: Limits | None = None, on_invocation: Callable[[Any, float], None] | None = None,
                  tier1: str = "rest", source: RunaiSource | None = None) -> Any:
    """``diagnose`` for any registered runai procedure (``agent.procedures.specs()``): the same keywords, the same
    errors; returns the procedure's result. Every runai command, and the eval runner, run procedures through it."""
    from agent.procedures import graph, spec

    proc = spec(name)
    if proc.kind != "runai":
        raise InvalidInput(f"procedure {name!r} does not take a Run:ai request")
    try:
        seconds = parse_timeout(timeout)
    except ValueError as e:
        raise InvalidInput(str(e)) from None
    req = proc.as_input(build_request(cluster_id=cluster_id, workload_id=workload_id, workload_name=workload_name,
                                      project=project, intent=intent, lookback=lookback, now=now))
    settings = Settings.from_env()
    url, cid, secret = settings.runai(runai_url, client_id, client_secret)
    limits = limits or Limits()
    graph(name)  # compiled (and its modules imported) before the clock of the deadline starts
    deadline = Deadline(seconds)
    runai = source if source is not None else _open_source(
        settings, tier1, runai_url=runai_url, url=url, client_id=cid, client_secret=secret, needed=req.complete,
        transport=transport, retry_sleep=retry_sleep, ca_file=ca_file, limits=limits, deadline=deadline,
        on_invocation=on_invocation)
    if kube_reader is not None:
        kube, why = kube_reader, None
    else:
        kube, why = make_kube(kubeconfig, use_kube, settings)
    try:
        with deadline.interruptible():
            result = run_graph(req, runai, kube, why, progress, limits, deadline=deadline)
    finally:
        if source is None:
            runai.close()
    if llm is not None:
        from agent.llm import explain

        result.explanation = explain(result, llm)
    return result


def _open_source(settings: Settings, tier1: str, *, runai_url: str | None, url: str | None, client_id: str | None,
                 client_secret: str | None, needed: bool, transport: Any, retry_sleep: Any, ca_file: str | None,
                 limits: Limits, deadline: Deadline, on_invocation: Any = None) -> RunaiSource:
    """The Tier-1 source of one diagnosis or chat turn, with every bound of a Run:ai read (``agent.sources``)."""
    return open_runai(tier1, _source_settings(settings, runai_url=runai_url, url=url, client_id=client_id,
                                              client_secret=client_secret, needed=needed, transport=transport,
                                              retry_sleep=retry_sleep, ca_file=ca_file, limits=limits,
                                              deadline=deadline, on_invocation=on_invocation))


def _source_settings(settings: Settings, *, runai_url: str | None, url: str | None, client_id: str | None,
                     client_secret: str | None, needed: bool, transport: Any, retry_sleep: Any,
                     ca_file: str | None, limits: Limits, deadline: Deadline, on_invocation: Any = None) -> Any:
    ca_path, ca_origin = settings.ca_file(ca_file)
    if ca_path is not None and not os.path.isfile(ca_path):
        raise InvalidInput(f"{ca_origin} {ca_path}: no such file")
    return source_settings(settings, url=url, client_id=client_id, client_secret=client_secret, needed=needed,
                           limits=limits, deadline=deadline, ca_file=ca_path, transport=transport, sleep=retry_sleep,
                           url_origin="--runai-url" if runai_url else "RUNAI_BASE_URL", on_invocation=on_invocation)


# ------------------------------------------------------------------------------------------------ chat (issue 12)
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
         tier1: str = "rest") -> "ChatReply":
    """One turn of the conversation ``thread_id``; returns the ``ask --json`` object as a ``ChatReply``.

    The message is redacted and injection-scanned before it is stored or shown to a model. ``runai`` (any
    ``tools.runai.RunaiSource``) and ``checkpointer`` (any LangGraph checkpointer) may be injected, e.g. by a
    service; otherwise a REST client is built from the arguments/environment and the store from ``store`` /
    ``WD_CHAT_STORE`` / ``WD_CHAT_POSTGRES_DSN`` / the XDG state directory. Reentrant and thread-safe: turns of
    one thread run one at a time in this process; different threads run concurrently and never share state.
    Raises InvalidInput, ApiUnavailable or ApiAuthError like ``diagnose``.
    """
    import contextlib

    import guardrails
    from agent.chat.graph import build_graph
    from agent.chat.state import ChatContext
    from agent.chat.store import open_checkpointer
    from agent.model.chat import ChatReply
    from agent.model.time import parse_now

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
        wanted = _source_settings(settings, runai_url=runai_url, url=url, client_id=cid, client_secret=secret,
                                  needed=False, transport=transport, retry_sleep=retry_sleep, ca_file=ca_file,
                                  limits=limits or Limits(), deadline=deadline)
        runai = open_runai(tier1, wanted)
        ready = spec(tier1).ready(wanted)
    else:
        ready = True
    try:
        kube, why = (kube_reader, None) if kube_reader is not None else make_kube(kubeconfig, use_kube, settings)
        ctx = ChatContext(runai=runai, runai_ready=ready, kube=kube, kube_unavailable=why, now=now, llm=llm,
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


async def achat(thread_id: str, message: str, **kw: Any) -> "ChatReply":
    """``chat`` for asyncio callers (an HTTP service): the same turn, run in a worker thread."""
    import asyncio

    return await asyncio.to_thread(chat, thread_id, message, **kw)
