"""Cross-workload patterns: failures that share one cause, each with the facts that tie them together.

A pattern is a (kind, key) shared by at least ``MIN_WORKLOADS`` diagnosed workloads of the categories it explains.
The rules are data (``RULES``), derived from each category's ``triage`` groups in the taxonomy: which category a kind
explains, which fact reader here (``FACTS``) reads its key from what the diagnosis read (pods, submitted spec, cited
evidence) and which action it names. Keys are facts the API returned, never
inferred: a workload whose pods name no node has no node key. Actions are ordered by how many workloads they fix.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Callable, Iterable

from workload_diagnose.agent.procedures.kit.evidence import S_PODS, S_SPEC, S_STATUS
from workload_diagnose.agent.taxonomy import CATEGORIES
from workload_diagnose.agent.taxonomy.record import TriageGroup
from workload_diagnose.agent.triage.run import Item

MIN_WORKLOADS = 2
EVIDENCE_PER_PATTERN = 3


@dataclass(frozen=True)
class Fact:
    key: str
    source: str  # the skill tool the fact was read with
    text: str


@dataclass(frozen=True)
class Rule:
    kind: str
    categories: frozenset[str]
    facts: Callable[[Item], list[Fact]]
    action: Callable[[str, int], str]


def _pods(it: Item) -> list:
    return list(it.reads.pods) if it.reads else []


def _spec(it: Item) -> dict:
    return it.reads.spec if it.reads else {}


def _node_facts(it: Item) -> list[Fact]:
    return [Fact(p.nodeName, S_PODS, f"pod {p.name} ran on node {p.nodeName}")
            for p in sorted(_pods(it), key=lambda p: p.name) if p.nodeName]


def _images(it: Item) -> list[tuple[str, str]]:
    img = _spec(it).get("image")
    if isinstance(img, str) and img:
        return [(img, S_SPEC)]
    return sorted({(img, S_PODS) for p in _pods(it) for img in p.images})


def _image_facts(it: Item) -> list[Fact]:
    return [Fact(img, src, f"submitted image {img}" if src == S_SPEC else f"container image {img}")
            for img, src in _images(it)]


def _registry(image: str) -> str:
    first = image.split("/", 1)[0]
    return first if "/" in image and ("." in first or ":" in first or first == "localhost") else "docker.io"


def _registry_facts(it: Item, group: TriageGroup) -> list[Fact]:
    res = it.result
    line_class = group.line_class
    classes = sorted({line_class(e.text) for e in (res.evidence if res else [])} - {"unspecified"})
    regs = sorted({_registry(img) for img, _ in _images(it)})
    if not classes or not regs:
        return []
    line = next(e for e in res.evidence if line_class(e.text) in classes)
    return [Fact(f"{reg}: {cls}", line.source, line.text) for reg in regs for cls in classes]


def _datasource_facts(it: Item) -> list[Fact]:
    storage = _spec(it).get("storage")
    ns = it.workload.namespace or (f"runai-{it.workload.projectName}" if it.workload.projectName else "?")
    out: list[Fact] = []
    for kind, items in sorted((storage or {}).items()) if isinstance(storage, dict) else []:
        for d in items if isinstance(items, list) else []:
            if not isinstance(d, dict):
                continue
            if kind == "pvc" and d.get("claimName"):
                key = f"pvc {ns}/{d['claimName']}"
            elif kind == "nfs" and d.get("server"):
                key = f"nfs {d['server']}:{d.get('path') or '/'}"
            elif d.get("name"):
                key = f"{kind} {ns}/{d['name']}"
            else:
                continue
            out.append(Fact(key, S_SPEC, f"submitted {kind} data source {key.split(' ', 1)[1]}"))
    return out


def _project_facts(it: Item) -> list[Fact]:
    w = it.workload
    return [Fact(w.projectName, S_STATUS, f"workload {w.name} of project {w.projectName}")] if w.projectName else []


# fact readers by name (a category's ``TriageGroup.facts``); each reads keys the API returned, never inferred
FACTS: dict[str, Callable[[Item, TriageGroup], list[Fact]]] = {
    "node": lambda it, g: _node_facts(it),
    "image": lambda it, g: _image_facts(it),
    "registry_error": _registry_facts,
    "datasource": lambda it, g: _datasource_facts(it),
    "project": lambda it, g: _project_facts(it),
}


def _rule(category: str, g: TriageGroup) -> Rule:
    read = FACTS[g.facts]
    return Rule(g.kind, frozenset({category}), lambda it: read(it, g), g.action)


RULES: tuple[Rule, ...] = tuple(_rule(c.name, g) for c in CATEGORIES for g in c.triage)


def patterns(items: Iterable[Item], window_words: str) -> tuple[list[dict], list[dict]]:
    """(clusters, actions): clusters ``{kind, key, workloads, categories, evidence}`` most workloads first; actions
    ``{action, fixes, category, workloads}`` ordered by how many workloads each one would fix."""
    diagnosed = [it for it in items if it.result is not None and it.result.outcome == "diagnosed"]
    clusters: list[dict] = []
    covered: dict[str, set[str]] = defaultdict(set)  # workload id → categories an action already covers
    actions: list[dict] = []
    for rule in RULES:
        groups: dict[str, list[tuple[Item, Fact]]] = defaultdict(list)
        for it in diagnosed:
            if it.result.category not in rule.categories:
                continue
            for key in {f.key: f for f in rule.facts(it)}.values():
                groups[key.key].append((it, key))
        for key, members in groups.items():
            if len(members) < MIN_WORKLOADS:
                continue
            cats = Counter(it.result.category for it, _ in members)
            ids = sorted(it.workload.id for it, _ in members)
            summary = ", ".join(f"{n} {c}" for c, n in sorted(cats.items(), key=lambda x: (-x[1], x[0])))
            evidence = [{"source": "triage", "text": f"{rule.kind.replace('_', ' ')} {key}: {summary} in "
                                                      f"{window_words}"}]
            for it, fact in sorted(members, key=lambda m: m[0].workload.id)[:EVIDENCE_PER_PATTERN]:
                evidence.append({"source": fact.source, "text": f"{it.workload.name}: {fact.text}"})
            clusters.append({"kind": rule.kind, "key": key, "workloads": ids,
                             "categories": dict(sorted(cats.items())), "evidence": evidence})
            if rule.kind != "registry_error" or not any(c["kind"] == "image" and set(c["workloads"]) >= set(ids)
                                                        for c in clusters):
                actions.append({"action": rule.action(key, len(ids)), "fixes": len(ids),
                                "category": ",".join(sorted(cats)), "workloads": ids})
                for i in ids:
                    covered[i] |= set(cats)
    # what no pattern explains: the procedure's own first recommendation, grouped by its exact text
    rest: dict[tuple[str, str], list[str]] = defaultdict(list)
    for it in diagnosed:
        if it.result.category in covered.get(it.workload.id, set()) or not it.result.recommendations:
            continue
        rest[(it.result.category, it.result.recommendations[0])].append(it.workload.id)
    for (cat, text), ids in rest.items():
        actions.append({"action": text, "fixes": len(ids), "category": cat, "workloads": sorted(ids)})
    clusters.sort(key=lambda c: (-len(c["workloads"]), c["kind"], c["key"]))
    actions.sort(key=lambda a: (-a["fixes"], a["category"], a["action"]))
    return clusters, actions
