"""The one registry: every category module under ``categories/`` in precedence order, every signal set under
``signals/``, and everything derived from them (names, the rules in matching order, which objects may carry which
kinds, chat words, triage groups). Adding a category is adding a module; nothing here names one."""
from __future__ import annotations

import importlib
import pkgutil

from workload_diagnose.agent.model.signals import Kind
import workload_diagnose.agent.taxonomy.categories as _categories_pkg
import workload_diagnose.agent.taxonomy.signals as _signals_pkg
from workload_diagnose.agent.taxonomy.record import Category, ChatWords, SignalRule, SignalSet


def _load(pkg, attr: str) -> list:
    return [getattr(importlib.import_module(f"{pkg.__name__}.{m.name}"), attr)
            for m in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name)]


CATEGORIES: list[Category] = sorted(_load(_categories_pkg, "CATEGORY"), key=lambda c: c.precedence)
SIGNAL_SETS: list[SignalSet] = sorted(_load(_signals_pkg, "SIGNAL"), key=lambda s: s.order)
BY_NAME: dict[str, Category] = {c.name: c for c in CATEGORIES}
NAMES: list[str] = [c.name for c in CATEGORIES]
# the fallback: the one category without signals, last in precedence
UNKNOWN: Category = CATEGORIES[-1]


def _check() -> None:
    if len(BY_NAME) != len(CATEGORIES) or len({c.precedence for c in CATEGORIES}) != len(CATEGORIES):
        raise ValueError("taxonomy: category names and precedences must be unique")
    if UNKNOWN.kinds or any(not c.kinds for c in CATEGORIES[:-1]):
        raise ValueError("taxonomy: exactly one category (the last) has no signal kinds")
    owners: dict[Kind, str] = {}
    for owner, kinds in [(c.name, c.kinds) for c in CATEGORIES] + [(s.kind.value, {s.kind}) for s in SIGNAL_SETS]:
        for k in kinds:
            if owners.setdefault(k, owner) != owner:
                raise ValueError(f"taxonomy: kind {k.value} belongs to {owners[k]} and {owner}")


_check()


def _matching_order() -> list[tuple[int, bool, tuple[SignalRule, ...]]]:
    """(position, exclusive, rules): exclusive sets first, then categories and signal sets by precedence/order."""
    groups = [(c.precedence, False, c.rules) for c in CATEGORIES if c.rules]
    groups += [(s.order, s.exclusive, s.rules) for s in SIGNAL_SETS]
    return sorted(groups, key=lambda g: (not g[1], g[0]))


# Every rule, in the order the interpreter (``agent.evidence.rules``) tries and lists them
EXCLUSIVE_RULES: tuple[SignalRule, ...] = tuple(r for _, ex, rs in _matching_order() if ex for r in rs
                                                if not r.reads_log)
MESSAGE_RULES: tuple[SignalRule, ...] = tuple(r for _, ex, rs in _matching_order() if not ex for r in rs
                                              if not r.exit_codes and not r.reads_log)
EXIT_CODE_RULES: tuple[SignalRule, ...] = tuple(r for _, ex, rs in _matching_order() if not ex for r in rs
                                                if r.exit_codes and not r.reads_log)
# the rules over one line of the workload's own container output (``SignalRule.reads_log``), never a system message
LOG_RULES: tuple[SignalRule, ...] = tuple(r for _, _, rs in _matching_order() for r in rs if r.reads_log)
ALL_RULES: tuple[SignalRule, ...] = EXCLUSIVE_RULES + MESSAGE_RULES + EXIT_CODE_RULES + LOG_RULES

# object kinds other than the workload's own → the signal kinds an event about them may carry
OBJECT_KINDS: dict[str, frozenset[Kind]] = {}
for _owner_kinds, _objects in [(c.kinds, c.objects) for c in CATEGORIES] + [({s.kind}, s.objects)
                                                                              for s in SIGNAL_SETS]:
    for _o in _objects:
        OBJECT_KINDS[_o] = OBJECT_KINDS.get(_o, frozenset()) | frozenset(_owner_kinds)

# what the kinds mean to the phase rules and the fallback, from the records' flags
_RECORDS = [(c.kinds, c) for c in CATEGORIES] + [(frozenset({s.kind}), s) for s in SIGNAL_SETS]
# direct failed-pod signals: a Pending workload showing one is in scope
DIRECT_FAILURE_KINDS: frozenset[Kind] = frozenset(k for ks, r in _RECORDS if r.pod_failure for k in ks)
# signals that confirm a Running workload's CrashLoopBackOff / repeated container crashes
CRASH_CONFIRMING_KINDS: frozenset[Kind] = frozenset(k for ks, r in _RECORDS if r.confirms_crash for k in ks)
# symptoms kept as supporting evidence of the fallback verdict
UNEXPLAINED_KINDS: frozenset[Kind] = frozenset(s.kind for s in SIGNAL_SETS if s.unexplained)

# kind -> the kinds whose earlier signal makes a later signal of it a symptom (``SignalRule.yields_to_earlier``); a
# kind a category owns stands for all of that category's kinds (a node's GPU fault is a node failure too)
YIELDS_TO_EARLIER: dict[Kind, frozenset[Kind]] = {}
for _r in ALL_RULES:
    for _k in _r.yields_to_earlier:
        _same = next((c.kinds for c in CATEGORIES if _k in c.kinds), frozenset({_k}))
        YIELDS_TO_EARLIER[_r.kind] = YIELDS_TO_EARLIER.get(_r.kind, frozenset()) | _same

# kind -> how long after the signal it yields to it may still be that one's symptom (``SignalRule.yields_within``)
YIELD_WINDOW = {r.kind: r.yields_within for r in ALL_RULES if r.yields_within is not None}


def _kind_map(attr: str) -> dict[Kind, frozenset[Kind]]:
    out: dict[Kind, frozenset[Kind]] = {}
    for r in ALL_RULES:
        if getattr(r, attr):
            out[r.kind] = out.get(r.kind, frozenset()) | getattr(r, attr)
    return out


# kind -> the kinds whose signals, anywhere in the evidence, are its symptoms (``SignalRule.explains``)
EXPLAINS: dict[Kind, frozenset[Kind]] = _kind_map("explains")
# kind -> the kinds whose reading of the same line it overrides (``SignalRule.overrides_on_line``)
OVERRIDES_ON_LINE: dict[Kind, frozenset[Kind]] = _kind_map("overrides_on_line")
# the kinds of the categories whose evidence is read on the node (what the node's own conditions, events and GPU
# gauges may show; never, e.g., an OOM kill of another pod on the same node)
NODE_READ_KINDS: frozenset[Kind] = frozenset(k for c in CATEGORIES if c.reads_node for k in c.kinds)
# kinds that a signal of a category which reads the node may explain: with one of them in the verdict, the node is
# read for the explanation (an application's exit may be the symptom of the node's GPU fault)
NODE_EXPLAINABLE_KINDS: frozenset[Kind] = frozenset(
    k for c in CATEGORIES if c.reads_node for kind in c.kinds for k in EXPLAINS.get(kind, ()))

# the words the chat understands for each category: specific words first (precedence order), generic ones last
CHAT_WORDS: list[tuple[ChatWords, str]] = sorted(
    [(c.words, c.name) for c in CATEGORIES if c.words], key=lambda w: w[0].after_specific)


def metrics_needed_by(kinds: set[Kind]) -> bool:
    """Whether evidence of a category that needs metrics (OOM) is already present (Step 4 may start early)."""
    return any(c.needs_metrics and c.kinds & kinds for c in CATEGORIES)


def names_pattern(*, failures_only: bool = False) -> str:
    """A regular expression matching any category name as a word (``failures_only``: not the fallback)."""
    names = [n for n in NAMES if not (failures_only and n == UNKNOWN.name)]
    return r"\b(?:" + "|".join(names) + r")\b"
