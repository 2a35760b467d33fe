"""Optional LLM help for the chat (any langchain-core chat model; an OpenAI-compatible endpoint through
``langchain-openai``, the ``llm`` extra). With none configured the chat is fully deterministic.

At most two calls a turn, each bounded and checked (``agent.llm_bounds``: the model's own deadline, shared by
the turn's calls; a reply cap; a failed, empty, malformed, oversized or late answer is "no model" for the rest of
the turn, and ``usage["llm_error"]`` says why):

* ``extract``: identifiers as JSON (validated by pydantic). A value is kept only if it occurs in the user's own
  (redacted) words and passes the identifier checks; it only fills what the deterministic parser left empty.
* ``phrase``: rewords the deterministic reply. The text must pass ``guardrails.validate_llm_output`` against the
  deterministic reply and the stored evidence (no other category, no invented id, number or quote, nothing
  secret-shaped, no claimed action, no image, no link outside the evidence) and must keep the verdict's
  category, or the reason of another procedure's answer (and name no other reason); else the deterministic reply
  is used. The model never chooses which procedure answers (``agent.chat.handoff``).
"""
from __future__ import annotations

import json
import os
import re
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, ValidationError

from workload_diagnose.agent.chat.parse import Parsed
from workload_diagnose.agent.llm_bounds import Budget, Bounded, ModelFailed, call, openai_model
from workload_diagnose.tools.runai import InvalidInput, check_id, check_name

FIELDS = ("cluster_id", "cluster_name", "workload_id", "workload_name", "project")
_JSON = re.compile(r"\{.*\}", re.DOTALL)


class Extraction(BaseModel):
    model_config = ConfigDict(extra="ignore")
    cluster_id: str | None = None
    cluster_name: str | None = None
    workload_id: str | None = None
    workload_name: str | None = None
    project: str | None = None


class Usage:
    """Token counts over a turn's model calls (``usage`` in ``ask --json``); ``llm_error`` (only when a call gave
    no usable answer) says why the turn went on without the model."""

    def __init__(self) -> None:
        self.calls = self.input_tokens = self.output_tokens = 0
        self.error: str | None = None

    def add(self, msg: Any) -> None:
        self.calls += 1
        meta = getattr(msg, "usage_metadata", None) or {}
        self.input_tokens += int(meta.get("input_tokens") or 0)
        self.output_tokens += int(meta.get("output_tokens") or 0)

    def failed(self, reason: str) -> None:
        self.calls += 1
        self.error = self.error or reason

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"llm_calls": self.calls, "input_tokens": self.input_tokens,
                               "output_tokens": self.output_tokens,
                               "total_tokens": self.input_tokens + self.output_tokens}
        if self.error:
            out["llm_error"] = self.error
        return out


def _ask(model: Bounded, messages: list[Any], budget: Budget, usage: Usage) -> str | None:
    """The model's text, or None (the reason in ``usage``) when it gave no usable answer or already failed."""
    if budget.failure:
        return None
    try:
        msg, text = call(model, messages, budget)
    except ModelFailed as e:
        usage.failed(str(e))
        return None
    usage.add(msg)
    return text


def _in_words(value: str, message: str) -> bool:
    return bool(re.search(rf"(?<![A-Za-z0-9._-]){re.escape(value)}(?![A-Za-z0-9_-])", message, re.IGNORECASE))


def extract(model: Bounded, message: str, budget: Budget, usage: Usage) -> tuple[dict[str, str], list[str]]:
    """(kept values, reasons values were discarded). One model call."""
    from workload_diagnose import guardrails
    from langchain_core.messages import HumanMessage, SystemMessage

    marker = guardrails.new_marker()
    system = ("Extract identifiers of ONE Run:ai workload from the user's message. Answer with one JSON object "
              f"with the keys {', '.join(FIELDS)} (null when the message does not state it). Copy values exactly "
              "as written; never guess or complete one. " + guardrails.spotlight_instructions(marker))
    said = _ask(model, [SystemMessage(content=system), HumanMessage(content=guardrails.spotlight(message, marker))],
                budget, usage)
    if said is None:  # a failing model is not a failed turn
        return {}, [usage.error or "no model"]
    m = _JSON.search(said)
    try:
        ex = Extraction.model_validate(json.loads(m.group(0))) if m else None
    except (ValueError, ValidationError):
        ex = None
    if ex is None:
        return {}, ["the model's answer was not the JSON object asked for"]
    kept, dropped = {}, []
    for f in FIELDS:
        v = getattr(ex, f)
        if not isinstance(v, str) or not v.strip():
            continue
        v = v.strip()
        try:
            (check_id if f.endswith("_id") else check_name)(v, f)
        except InvalidInput:
            dropped.append(f"{f} is not a valid identifier")
            continue
        if not _in_words(v, message):
            dropped.append(f"{f} {v!r} does not occur in the user's words")
            continue
        kept[f] = v.lower() if f.endswith("_id") else v
    return kept, dropped


def fill(p: Parsed, kept: dict[str, str], cluster_listed: Callable[[str], bool]) -> Parsed:
    """The parser's values win; the model only fills what it left empty, and never decides which UUID is which.

    UUIDs the user left unlabelled are assigned by the deterministic rules (``slots.merge``: by what was asked).
    The model's ``workload_id`` is therefore not used, and its ``cluster_id`` only when the message names no
    cluster and that exact id is one ``cluster_listed`` confirms (``GET /api/v1/clusters``): then it is the
    cluster, as if the user had labelled it.
    Names and the project are checked by the reads that use them (an exact cluster name, Option B's list)."""
    upd = {f: v for f, v in kept.items() if not getattr(p, f) and f not in ("cluster_id", "workload_id")}
    claim = kept.get("cluster_id")
    named = p.cluster_id or p.cluster_name or p.vague_cluster  # the user's own words name the cluster: no claim
    if claim and not named and claim in p.bare_uuids and not _about_project(p) and cluster_listed(claim):
        upd["cluster_id"] = claim
        upd["bare_uuids"] = [u for u in p.bare_uuids if u != claim]
    if "cluster_id" in upd or p.cluster_id:
        upd.pop("cluster_name", None)
    return p.model_copy(update=upd)


def _about_project(p: Parsed) -> bool:
    """A question about a project names no workload: its one UUID is the cluster by the deterministic rules
    (``slots.merge``), so the model's claim needs no check (and no read)."""
    from workload_diagnose.agent.chat.handoff import subject

    return bool(p.procedure) and subject(p.procedure) == "project"


def cluster_listed(runai: Any, cluster_id: str) -> bool:
    """Whether the Run:ai API lists ``cluster_id`` as a cluster (an unreadable list confirms nothing)."""
    from workload_diagnose.tools.runai.clusters import list_clusters

    res = list_clusters(runai)
    return bool(res.ok and any(c.uuid == cluster_id.lower() for c in res.data or []))


def phrase(model: Bounded, text: str, diagnosis: dict | None, budget: Budget,
           usage: Usage) -> tuple[str, list[str]]:
    """(the text to show, reasons the model's wording was rejected). One model call."""
    from workload_diagnose import guardrails
    from langchain_core.messages import HumanMessage, SystemMessage

    from workload_diagnose.agent.taxonomy import NAMES, UNKNOWN

    category = (diagnosis or {}).get("category") if (diagnosis or {}).get("outcome") == "diagnosed" else None
    marker = guardrails.new_marker()
    system = ("Reword the assistant's reply below for the user, briefly and plainly. Keep every id, number and "
              "category exactly; add no fact, id, number or quote that is not in it; never include credentials; "
              "you cannot run tools or change anything. " + guardrails.spotlight_instructions(marker))
    said = _ask(model, [SystemMessage(content=system), HumanMessage(content=guardrails.spotlight(text, marker))],
                budget, usage)
    if said is None:
        return text, [usage.error or "no model"]
    evidence = [text] + [e.get("text", "") for e in (diagnosis or {}).get("evidence") or []]
    v = guardrails.validate_llm_output(said, category=category or UNKNOWN.name, evidence_texts=evidence,
                                      categories=NAMES)
    reasons = list(v.reasons)
    if marker in said:
        reasons.append("echoes the spotlight marker")
    if category and category not in said:
        reasons.append(f"drops the category {category}")
    if not category:
        named = sorted(n for n in NAMES if n != UNKNOWN.name and n in said and n not in text)
        reasons += [f"names category {n} that the reply does not" for n in named]
    from workload_diagnose.agent.chat.handoff import reason_names, verdict_fields

    d = diagnosis or {}
    reason = next((d[f] for f in sorted(verdict_fields()) if isinstance(d.get(f), str)), None) \
        if d.get("outcome") == "diagnosed" else None
    if reason and reason not in said:  # another procedure's verdict (agent.chat.handoff) is kept like a category
        reasons.append(f"drops the reason {reason}")

    reasons += [f"names reason {n} that the reply does not" for n in sorted(reason_names())
                if n != reason and n not in text and re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", said)]
    if reasons:
        return text, sorted(set(reasons))
    return guardrails.redact(said), []


def from_settings(model: str | None, base_url: str | None = None) -> Bounded | None:
    """An OpenAI-compatible chat model (vLLM, NVIDIA NIM, Ollama) from flags, else WD_LLM_MODEL /
    WD_LLM_BASE_URL / WD_LLM_API_KEY (or OPENAI_API_KEY), bounded by WD_LLM_TIMEOUT (seconds for a turn's model
    calls, default 30); None when no model is configured."""
    model = model or os.environ.get("WD_LLM_MODEL")
    if not model or model.lower() in ("off", "none", "0"):
        return None
    try:
        import langchain_openai  # noqa: F401
    except ImportError:
        raise InvalidInput("--llm needs the llm extra: pip install 'workload-diagnose[llm]'") from None
    from workload_diagnose.agent.llm_bounds import ModelBounds

    base = base_url or os.environ.get("WD_LLM_BASE_URL")
    key = os.environ.get("WD_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY") or "not-needed"
    return openai_model(model, base, key, ModelBounds.from_env())
