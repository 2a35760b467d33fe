"""The deterministic understanding of one chat message (the default; no LLM): identifiers, intent, follow-ups,
out-of-scope questions and requests to act, read with the rules in :mod:`agent.chat.rules`.

``understand`` sees the message only after redaction (``guardrails.sanitize_text``); it reads words, never
decides a category, and never infers a cluster from a workload id.
"""
from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from workload_diagnose.agent.chat import rules as R
from workload_diagnose.agent.chat.handoff import DEFAULT

MAX_CHARS = 4000  # a message is bounded before any rule runs (people paste whole logs)

Followup = Literal["previous", "why_not", "evidence", "recurrence", "recommend", "report"]

_UUID_ANY = re.compile(R.UUID)
_STRONG_ACTIVE = re.compile(r"crash\s*-?loop|crashloop|\bkeeps?\s|\brestarting\b|\bstuck\b|\bright\s+now\b|"
                            r"\bcurrently\b", re.IGNORECASE)
_FILLER = frozenset("""it's its it is the project cluster workload job name named called no nope actually sorry i
meant ok okay yes in on it, that's thats was wrong use try he he's she that this""".split())
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]|[A-Za-z0-9]")


class Parsed(BaseModel):
    """What one message says (every value occurs in the message's own words)."""

    cluster_id: str | None = None
    workload_id: str | None = None
    cluster_name: str | None = None
    vague_cluster: str | None = None
    workload_name: str | None = None
    project: str | None = None
    bare_uuids: list[str] = Field(default_factory=list)  # UUIDs no word labels (assigned by what was asked)
    bare_token: str | None = None  # a one-word answer ("nlp") to the question the assistant asked
    lookback: str | None = None
    intent: Literal["terminal", "active"] | None = None
    followups: list[Followup] = Field(default_factory=list)
    why_not: str | None = None  # the category a "why not X?" names
    out_of_scope: str | None = None  # cluster_health | summary | latency | scheduling
    action: bool = False  # asked to change something (restart, delete, ...): answered read-only
    greeting: bool = False
    correction: bool = False
    failure_words: bool = False
    fleet: bool = False  # a question about many workloads at once (triage answers it)
    yes: bool = False  # a yes to the question asked (a confirmation)
    # the registered procedure the words ask for: a sibling whose declared intent matches, the failed-workload one
    # when failure words are there, else None (the thread's procedure stays)
    procedure: str | None = None

    @property
    def identifies(self) -> bool:
        return bool(self.cluster_id or self.workload_id or self.cluster_name or self.workload_name or self.project
                    or self.bare_uuids or self.vague_cluster)


def _first(rules: tuple[R.Rule, ...], text: str) -> str | None:
    for rule in rules:
        found = rule.find(text)
        if found:
            return found[0]
    return None


def _lookback(text: str) -> str | None:
    kv = R.LOOKBACK[0].find(text)
    if kv:
        return kv[0].replace(" ", "").lower()
    m = R.LOOKBACK[1].rx.search(text)
    if not m:
        return None
    unit = m.group("u").lower()
    u = "m" if unit.startswith("m") else unit[0]
    return f"{int(m.group('n'))}{u}"


def _intent(text: str) -> Literal["terminal", "active"] | None:
    kv = R.INTENT_KV.find(text)
    if kv:
        return kv[0].lower()  # type: ignore[return-value]
    active, past = R.ACTIVE.find(text), R.PAST.find(text)
    if active and (not past or _STRONG_ACTIVE.search(text)):
        return "active"
    if past or R.FAILURE.find(text):
        return "terminal"
    return None


def _why_not(text: str) -> str | None:
    found = R.FOLLOWUP[1].find(text)
    if not found:
        return None
    words = found[0].strip()
    from workload_diagnose.agent.taxonomy import NAMES

    up = words.upper().replace(" ", "_")
    for name in NAMES:
        if up.startswith(name):
            return name
    for pattern, name in R.CATEGORY_ALIASES:
        if re.search(pattern, words, re.IGNORECASE):
            return name
    return None


_CONTRACTION = re.compile(r"(?<=[A-Za-z])['’]s\b", re.IGNORECASE)  # "it's", "that's": never a token "s"


def _bare_token(text: str) -> str | None:
    toks = [t for t in _TOKEN.findall(_CONTRACTION.sub("", text)) if t.lower() not in _FILLER]
    if len(toks) == 1 and not R.is_uuid(toks[0]) and toks[0].lower() not in R.STOPWORDS and not toks[0].isdigit():
        return toks[0]
    return None


def _asks(p: Parsed, text: str) -> None:
    """The first procedure (registry order) whose declared intent the words match; a named group of its pattern
    fills the identifier of that name when no other rule found one (checked like any captured name)."""
    for name, rule in R.procedure_intents():
        m = rule.rx.search(text)
        if m is None:
            continue
        p.procedure = name
        for slot in R.INTENT_SLOTS:
            v = (m.groupdict().get(slot) or "").strip()
            if v and not getattr(p, slot) and R.accepted(v, _NAMED, m):
                setattr(p, slot, v)
        return


_NAMED = R.Rule("asked_name", "", (), strict=True)  # how an intent's captured name is checked (strictly)


def understand(text: str) -> Parsed:
    text = (text or "")[:MAX_CHARS]
    p = Parsed()
    p.cluster_id = _first(R.CLUSTER_ID, text)
    p.workload_id = _first(R.WORKLOAD_ID, text)
    if p.workload_id and p.cluster_id and p.workload_id.lower() == p.cluster_id.lower():
        p.workload_id = None  # one UUID labelled as the cluster is never also the workload
    taken = {x.lower() for x in (p.cluster_id, p.workload_id) if x}
    for u in _UUID_ANY.findall(text):
        if u.lower() not in taken and u.lower() not in (b.lower() for b in p.bare_uuids):
            p.bare_uuids.append(u.lower())
    p.cluster_id = p.cluster_id.lower() if p.cluster_id else None
    p.workload_id = p.workload_id.lower() if p.workload_id else None
    if not p.cluster_id:
        p.cluster_name = _first(R.CLUSTER_NAME, text)
        if not p.cluster_name:
            vague = R.VAGUE_CLUSTER.rx.search(text)
            p.vague_cluster = vague.group("v") if vague else None
    p.workload_name = _first(R.WORKLOAD_NAME, text)
    p.project = _first(R.PROJECT, text)
    if p.project and p.project in (p.workload_name, p.cluster_name):
        p.project = None if p.project == p.cluster_name else p.project
    if p.workload_name and p.workload_name in (p.project, p.cluster_name):
        p.workload_name = None
    p.lookback = _lookback(text)
    p.intent = _intent(text)
    p.failure_words = bool(R.FAILURE.find(text))
    kinds: list[Followup] = ["previous", "why_not", "evidence", "recurrence", "recommend", "report"]
    p.followups = [k for k, rule in zip(kinds, R.FOLLOWUP) if rule.find(text)]
    p.why_not = _why_not(text) if "why_not" in p.followups else None
    if p.failure_words:
        p.procedure = DEFAULT
    else:
        _asks(p, text)
    if not p.failure_words and not p.procedure:
        for rule in R.OUT_OF_SCOPE:
            if rule.find(text):
                p.out_of_scope = rule.name.removeprefix("oos_")
                break
    p.action = bool(R.ACTION.find(text))
    p.greeting = bool(R.GREETING.find(text))
    p.correction = bool(R.CORRECTION.find(text))
    p.fleet = bool(R.FLEET.find(text)) and p.failure_words and not (p.workload_id or p.workload_name)
    p.yes = bool(R.YES.find(text))
    if not (p.identifies or p.lookback or p.action):
        p.bare_token = _bare_token(text)
    return p
