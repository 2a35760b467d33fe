"""Every call to the optional chat model is bounded and checked here, whatever the model is.

* Its own deadline, never the Run:ai one: connect / silence / total bounds on the model's socket (the client
  ``client()`` builds reads through ``tools.transport``'s deadline-clamped backend, so a server that drips one
  byte every few seconds ends at the total bound too), and a hard bound around the call itself, so a model
  object of any kind (a caller's own) cannot hold a turn past it.
* One :class:`Budget` per turn: all of a turn's model calls share ``ModelBounds.total`` seconds, so a turn lasts
  at most the Run:ai ``--timeout`` plus that (the time a model spends is not taken from the Run:ai reads).
* The answer must be text, non-empty, at most ``max_chars`` characters (``max_bytes`` on the wire): anything
  else (``content: null``, a malformed body, 5 MB, a late answer, an exception) is :class:`ModelFailed`, which
  callers treat as "no model": the deterministic text is used and the reason is reported.
"""
from __future__ import annotations

import contextvars
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from workload_diagnose.tools.deadline import Deadline

# One per process: it only carries each calling thread's own scope (Deadline.scope is thread-local), never an
# overall bound, so model calls of different turns do not share time.
_MODEL_DEADLINE = Deadline(None)
_GRACE = 0.25  # seconds a call may overrun its bound while its socket read returns


class ModelFailed(Exception):
    """The model gave no usable answer; ``str(e)`` says why in one line."""


@dataclass(frozen=True)
class ModelBounds:
    total: float = 30.0  # seconds for all of one turn's model calls together
    connect: float = 5.0  # seconds to connect to the model's endpoint
    read: float = 15.0  # seconds of silence before a read fails
    max_chars: int = 16_000  # the longest answer used as text
    max_bytes: int = 1 << 20  # the longest HTTP body read from the endpoint

    @classmethod
    def from_env(cls) -> "ModelBounds":
        """``WD_LLM_TIMEOUT`` (seconds, the total per turn) or the defaults; InvalidInput (one line) if invalid."""
        raw = os.environ.get("WD_LLM_TIMEOUT")
        if not raw:
            return cls()
        from workload_diagnose.tools.deadline import parse_timeout
        from workload_diagnose.tools.runai import InvalidInput

        try:
            total = parse_timeout(raw, "WD_LLM_TIMEOUT")
        except ValueError as e:
            raise InvalidInput(str(e)) from None
        return cls(total=total, connect=min(cls.connect, total), read=min(cls.read, total))


class Bounded:
    """A chat model with the bounds its calls run under (``from_settings`` builds one; any other model is wrapped
    with ``ModelBounds.from_env()`` by :func:`bounded`)."""

    def __init__(self, model: Any, bounds: ModelBounds | None = None):
        self.model = model
        self.bounds = bounds or ModelBounds.from_env()


def bounded(model: Any) -> Bounded:
    return model if isinstance(model, Bounded) else Bounded(model)


class Budget:
    """One turn's model time: every call gets what is left of ``bounds.total``; after a failure, no more calls."""

    def __init__(self, bounds: ModelBounds):
        self.bounds = bounds
        self._until = time.monotonic() + bounds.total
        self.failure: str | None = None

    def left(self) -> float:
        return max(0.0, self._until - time.monotonic())


def call(model: Bounded, messages: list[Any], budget: Budget) -> tuple[Any, str]:
    """(the model's message, its text). Raises ModelFailed (and remembers it in ``budget``) for no usable answer."""
    if budget.failure:
        raise ModelFailed(budget.failure)
    try:
        msg = _invoke(model.model, messages, budget)
        return msg, _text(msg, model.bounds.max_chars)
    except ModelFailed as e:
        budget.failure = str(e)
        raise


def _invoke(model: Any, messages: list[Any], budget: Budget) -> Any:
    left = budget.left()
    if left <= 0.01:
        raise ModelFailed(f"the model's {budget.bounds.total:g} s for this turn were used up")
    box: dict[str, Any] = {}
    ctx = contextvars.copy_context()

    def run() -> None:
        try:
            with _MODEL_DEADLINE.scope(left):
                box["out"] = ctx.run(model.invoke, messages)
        except BaseException as e:  # noqa: BLE001 - reported to the caller's thread below
            box["err"] = e

    worker = threading.Thread(target=run, name="llm-call", daemon=True)
    worker.start()
    worker.join(left + _GRACE)
    late = f"the model did not answer in time (its bound: {budget.bounds.total:g} s a turn, " \
           f"{budget.bounds.read:g} s of silence)"
    if worker.is_alive():  # a model object that ignores every bound: the turn goes on without it
        raise ModelFailed(late)
    err = box.get("err")
    if err is not None:
        raise ModelFailed(late if _is_timeout(err) else f"the model call failed: {_describe(err)}")
    return box.get("out")


def _is_timeout(e: BaseException) -> bool:
    names = {t.__name__ for t in type(e).__mro__}
    return bool(names & {"TimeoutException", "APITimeoutError", "ReadTimeout", "TimeoutError", "ConnectTimeout"}) \
        or "timed out" in str(e).lower() or (e.__cause__ is not None and _is_timeout(e.__cause__))


def _describe(e: BaseException) -> str:
    chain, cur = [], e
    while cur is not None and len(chain) < 4:
        chain.append(cur)
        cur = cur.__cause__ or cur.__context__
    if any(isinstance(x, AnswerTooLarge) for x in chain):
        return "the answer was larger than the cap"
    return type(e).__name__


def _text(msg: Any, max_chars: int) -> str:
    content = getattr(msg, "content", None)
    if isinstance(content, list):  # content parts: only text parts count
        parts = [p.get("text") if isinstance(p, dict) else p for p in content]
        if not all(isinstance(p, str) for p in parts):
            raise ModelFailed("the model's answer was not text")
        content = "".join(parts)
    if content is None:
        raise ModelFailed("the model answered no text (content: null)")
    if not isinstance(content, str):
        raise ModelFailed("the model's answer was not text")
    if not content.strip():
        raise ModelFailed("the model's answer was empty")
    if len(content) > max_chars:
        raise ModelFailed(f"the model's answer was longer than {max_chars} characters")
    return content


# ------------------------------------------------------------------------------------------------ HTTP client
class AnswerTooLarge(Exception):
    """The endpoint's body passed ``ModelBounds.max_bytes``: reading stops there."""


def _capped_transport(bounds: ModelBounds, ca_file: str | None):
    import httpx

    from workload_diagnose.tools.transport import network_transport

    inner = network_transport(_MODEL_DEADLINE, ca_file)

    class _Capped(httpx.SyncByteStream):
        def __init__(self, stream: Any):
            self._stream, self._seen = stream, 0

        def __iter__(self):
            for chunk in self._stream:
                self._seen += len(chunk)
                if self._seen > bounds.max_bytes:
                    raise AnswerTooLarge(f"more than {bounds.max_bytes} bytes")
                yield chunk

        def close(self) -> None:
            self._stream.close()

    class CappedTransport(httpx.BaseTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            r = inner.handle_request(request)
            return httpx.Response(r.status_code, headers=r.headers, stream=_Capped(r.stream),
                                  extensions=r.extensions)

        def close(self) -> None:
            inner.close()

    return CappedTransport()


def openai_model(model: str, base_url: str | None, api_key: str, bounds: ModelBounds | None = None,
                 *, streaming: bool = False, ca_file: str | None = None) -> Bounded:
    """An OpenAI-compatible chat model (langchain-openai) whose every read is bounded: the one factory."""
    import httpx
    from langchain_openai import ChatOpenAI

    b = bounds or ModelBounds.from_env()
    ca_file = ca_file or os.environ.get("SSL_CERT_FILE")  # as for Run:ai: certifi's bundle unless one is named
    timeout = httpx.Timeout(b.total, connect=b.connect, read=b.read, write=b.connect, pool=b.connect)
    http = httpx.Client(transport=_capped_transport(b, ca_file), timeout=timeout, follow_redirects=False)
    chat = ChatOpenAI(model=model, base_url=base_url, api_key=api_key, temperature=0, timeout=timeout,
                      max_retries=0, max_tokens=600, streaming=streaming, stream_usage=True,
                      http_client=http)
    return Bounded(chat, b)
