"""Which procedure answers a chat question, from the procedure registry only (``ProcedureSpec.chat``): the failed-
workload diagnosis by default; a sibling procedure when the user's words match one of its declared intents; and,
when a result's ``next`` names a registered procedure's command (a route that procedure answers: ``kit.routing``'s
``answered_by``), that procedure next, on the same workload. Deterministic: the choice rests on the rules' words and
on the procedures' own results (``next`` is set by procedure code from the phase rules, never from evidence text),
never on a model, and a procedure runs at most once a turn.
"""
from __future__ import annotations

import re
from functools import cache
from typing import Any

from workload_diagnose.agent.procedures import specs
from workload_diagnose.agent.procedures.spec import Chat, ProcedureSpec, load

DEFAULT = "runai_failed"  # the chat's own question: why did this workload fail?
MAX_HOPS = 3  # procedures run in one turn (each at most once)


def chat_specs() -> list[ProcedureSpec]:
    """The runai procedures that declare how the chat offers them, in registry order."""
    return [s for s in specs().values() if s.kind == "runai" and s.chat is not None]


def chat_of(name: str | None) -> Chat | None:
    s = specs().get(name or DEFAULT)
    return s.chat if s is not None else None


def subject(name: str | None) -> str:
    """What a question to ``name`` is about: "workload" (the default) or "project"."""
    c = chat_of(name)
    return c.subject if c is not None else "workload"


def by_command(command: str | None) -> ProcedureSpec | None:
    """The registered runai procedure whose CLI command is ``command`` (a result's ``next``)."""
    if not command:
        return None
    return next((s for s in specs().values()
                 if s.kind == "runai" and s.command is not None and s.command.name == command), None)


def follow(d: dict, ran: list[str]) -> ProcedureSpec | None:
    """The procedure that answers the route of result ``d`` on the same workload, when there is one not yet run
    this turn (``d["next"]`` names its command; the workload was resolved)."""
    nxt = by_command(d.get("next"))
    w = d.get("workload") or {}
    if nxt is None or nxt.name in ran or len(ran) >= MAX_HOPS or not (w.get("id") and w.get("cluster_id")):
        return None
    if (nxt.chat.subject if nxt.chat else "workload") != "workload":
        return None
    return nxt


_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def lead(spec: ProcedureSpec, d: dict) -> str:
    """The line said before ``spec``'s answer to the route of result ``d``: the line ``spec`` declares for that route,
    else the route's own explanation in ``d`` without its pointer to a command (the chat has just run it)."""
    w = d.get("workload") or {}
    name = w.get("name") or w.get("id") or "the workload"
    said = dict(spec.chat.answers) if spec.chat is not None else {}
    if d.get("route") in said:
        return said[d["route"]].format(name=name)
    return stop_words(d) or f"{name}: {d.get('route')}."


def stop_words(d: dict) -> str:
    """What a result that ended early says (its next steps), without pointers to a command: the chat answers
    them itself or, when no procedure answers the route, they are all there is to say."""
    kept = [x for rec in d.get("recommendations") or [] for x in _SENTENCE.split(rec)
            if x and not x.startswith(("Use ", "It is answered by"))]
    return " ".join(kept)


@cache
def _reasons(ref: str) -> dict:
    return load(ref)


def verdict_of(name: str | None, d: dict) -> str | None:
    """The name of the verdict in procedure ``name``'s result ``d`` (its declared ``verdict`` field), if any."""
    c = chat_of(name)
    v = d.get(c.verdict) if c is not None and d.get("outcome") == "diagnosed" else None
    return v if isinstance(v, str) and v else None


def verdict_fields() -> frozenset[str]:
    return frozenset(s.chat.verdict for s in chat_specs() if s.chat is not None)


def reason_summary(name: str | None, reason: str | None) -> str | None:
    """The one-line definition of ``reason`` from the procedure's declared records (``summary`` or
    ``definition``), if any."""
    c = chat_of(name)
    if c is None or not c.reasons or not reason:
        return None
    rec = _reasons(c.reasons).get(reason)
    return (getattr(rec, "summary", None) or getattr(rec, "definition", None)) if rec is not None else None


def reason_names() -> frozenset[str]:
    """Every reason name a chat procedure can give (a model's wording may not introduce one the reply lacks)."""
    out: set[str] = set()
    for s in chat_specs():
        if s.chat is not None and s.chat.reasons:
            out |= set(_reasons(s.chat.reasons))
    return frozenset(out)


def topics() -> list[str]:
    """What each chat procedure answers, in words: "why a workload was preempted"."""
    return [s.chat.topic.format(name=f"a {s.chat.subject}") for s in chat_specs() if s.chat is not None]


def build(name: str, base: Any) -> Any:
    """``base`` (a request built by ``build_request``) as procedure ``name``'s input."""
    return specs()[name].as_input(base)
