"""What the scoreboard checks on every result: the verdict, a valid result, citations, invented values, leaked
secrets, and tool calls against the minimum the skill's rules need for that scenario's path.

Everything here is pure and deterministic (sorted outputs), so the scoreboard JSON is byte-identical run to run.
"""
from __future__ import annotations

import json
import math
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Iterable

from workload_diagnose.agent.taxonomy import NAMES as CATEGORY_NAMES
from workload_diagnose.agent.model import phases
from workload_diagnose.agent.model.result import DiagnosisResult
from workload_diagnose.evals.scenarios import Scenario
from workload_diagnose.evals.worldcalls import history_pages

ROUTES = {"routed": {"preempted", "pending_scheduling", "pod_start"},
          "stopped": {"completed", "suspended", "phase_not_terminal", "cluster_mismatch", "not_pending"},
          "needs_input": {"missing_parameters", "no_matching_workload", "running_without_failure"}}
SKILL_TOOLS = {"get_workload_status", "get_workload_spec", "get_workload_pods", "get_workload_history",
               "get_workload_metrics", "list_workloads", "find_project", "list_node_pools", "list_nodes",
               "get_node_pool_gpus"}


def verdict_of(res: Any) -> tuple[str, str | None, str | None]:
    """(outcome, the verdict's name, route) of any procedure's result: the failed-workload category, the preempted
    procedure's reason or the pending procedure's reason (scored in the same column)."""
    return (res.outcome, getattr(res, "category", None) or getattr(res, "reason", None) or getattr(res, "state", None),
            res.route)


def _preempted(res: Any) -> bool:
    from workload_diagnose.agent.model.preemption import PreemptionResult

    return isinstance(res, PreemptionResult)


def _health(res: Any) -> bool:
    from workload_diagnose.agent.model.health import HealthResult

    return isinstance(res, HealthResult)


def _pending(res: Any) -> bool:
    from workload_diagnose.agent.model.pending import PendingResult

    return isinstance(res, PendingResult)


def label(outcome: str | None, category: str | None, route: str | None) -> str:
    """One label per verdict for the confusion matrix: the category, or the route/stop."""
    if outcome == "diagnosed":
        return category or "UNKNOWN"
    if outcome in (None, "fatal"):
        return "fatal"
    return f"{outcome}:{route}"


def all_labels() -> list[str]:
    from workload_diagnose.agent.taxonomy.health_states import NAMES as STATE_NAMES
    from workload_diagnose.agent.taxonomy.pending_registry import NAMES as PENDING_NAMES
    from workload_diagnose.agent.taxonomy.preemption import NAMES as REASON_NAMES

    out = list(CATEGORY_NAMES)
    out += [n for n in REASON_NAMES + PENDING_NAMES + STATE_NAMES if n not in out]
    for outcome in ("routed", "stopped", "needs_input"):
        out += [f"{outcome}:{r}" for r in sorted(ROUTES[outcome] | ({"not_preempted"} if outcome == "routed"
                                                                     else set()))]
    return out


def verdict_problems(sc: Scenario, res: DiagnosisResult) -> list[str]:
    e = sc.expected
    out = []
    got = verdict_of(res)
    if got != e.verdict():
        out.append(f"verdict {got} != expected {e.verdict()}")
    if e.owner is not None and getattr(res, "owner", None) != e.owner:
        out.append(f"owner {getattr(res, 'owner', None)!r} != expected {e.owner!r}")
    if e.recurrence is not None:
        n = res.recurrence.count if getattr(res, "recurrence", None) else None
        if n != e.recurrence:
            out.append(f"recurrence count {n} != expected {e.recurrence}")
    low = res.report.lower()
    for t in e.report_contains:
        if t.lower() not in low:
            out.append(f"report lacks {t!r}")
    whole = res.model_dump_json().lower()
    for t in e.report_excludes:
        if t.lower() in whole:
            out.append(f"output contains {t!r}")
    return out


def validity_problems(res: DiagnosisResult) -> list[str]:
    """The --json contract, structurally (README): a result that breaks it is not a valid answer."""
    if _preempted(res):
        from workload_diagnose.evals.checks_preempted import validity_problems as preempted_validity

        return preempted_validity(res)
    if _pending(res):
        from workload_diagnose.evals.pending_checks import pending_validity

        return pending_validity(res, ROUTES)
    if _health(res):
        from workload_diagnose.evals.health_checks import health_validity

        return health_validity(res)
    out = []
    if res.outcome == "diagnosed":
        if res.category not in CATEGORY_NAMES:
            out.append(f"diagnosed with category {res.category!r}")
        if res.route is not None:
            out.append("diagnosed with a route")
        outside = any("lookback window" in x and "not counted" in x for x in res.limitations)
        if res.recurrence is None or (res.recurrence.count < 1 and not outside):
            out.append("diagnosed without a recurrence count")
        if not res.report.startswith(f"Category: {res.category}\n"):
            out.append("report does not put the category on line one")
    elif res.outcome in ROUTES:
        if res.category is not None:
            out.append(f"{res.outcome} with a category")
        if res.route not in ROUTES[res.outcome]:
            out.append(f"{res.outcome} with route {res.route!r}")
        if not res.report.startswith("Category: none ("):
            out.append("report line one is not 'Category: none (...)'")
        if res.outcome == "needs_input" and not res.question:
            out.append("needs_input without a question")
    else:
        out.append(f"unknown outcome {res.outcome!r}")
    for e in res.evidence:
        if not e.text.strip():
            out.append("an empty evidence line")
    return out


def citations(res: DiagnosisResult) -> tuple[int, int]:
    """(evidence lines citing a known source, evidence lines)."""
    ok = sum(1 for e in res.evidence if e.source in SKILL_TOOLS or e.source.startswith("kubectl ")
             or e.source == "guardrails")
    return ok, len(res.evidence)


# ------------------------------------------------------------------------------------------------ invented values
_UUID = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_TS = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
_BYTES = re.compile(r"\b(\d+(?:\.\d+)?) (B|KiB|MiB|GiB|TiB)\b")
_RAW_BYTES = re.compile(r"\((\d+) bytes\)")
_PCT = re.compile(r"\b(\d+)% of the\b")
# Numbers the report derives from counting or from fixed wording, not from a tool response.
_DERIVED = [re.compile(p) for p in (
    r"History: \d+ ", r"Recurring: \d+ ", r"in the last \d+ \w+", r"from \d+ samples", r"after \d+ attempts",
    r"after \d+ pages", r"returned \d+ value\(s\)", r"\d+ history record\(s\)", r"\d+ more \(from",
    r"×\d+ similar lines", r"cut at \d+ lines", r"Exit 12[67] means", r"Exit 1(?:37|43) \(SIG[A-Z]+\)",
    r"Tier [12]\b", r"\(x\d+\)", r"\bHTTP \d{3}\b", r"\bv[12]\b", r"\b[45]xx\b", r"\b(?:exit|exit code) 137\b "
    r"\(SIGKILL\)", r"limit=\d+", r"offset=\d+", r"stopped after \d+ pages",
    # the pending diagnosis's counts and durations: how long it waited (from its own timestamps and the clock),
    # how many nodes/pods a read listed
    r"Waiting: (?:\d+[dhm] ?)+", r"\d+ node\(s\) listed", r"and \d+ more node\(s\)", r"\d+ pod\(s\) listed",
    r"of another node pool", r"\d+ listed node\(s\)",
    # the health snapshot's tallies (counted over what was listed or diagnosed) and its own limits
    r"Workloads by phase \(\d+ listed\):[^\n]*", r"(?m)^- [A-Z_]+: \d+$", r"(?m)^- not a category \(\w+\): \d+$",
    r"for \d+ Running workload\(s\)", r"and \d+ more\)", r"limited to \d+: \d+ more workload\(s\)",
    r"preempted \d+ time\(s\) in the lookback")]
_TOKEN = re.compile(r"[A-Za-z0-9_./:+=-]*[0-9][A-Za-z0-9_./:+=-]*")
_NUM = re.compile(r"[0-9]+(?:\.[0-9]+)?")


class Corpus:
    """Everything the diagnosis was told: response bodies (and request URIs) plus the case arguments."""

    def __init__(self, bodies: Iterable[bytes | str], uris: Iterable[str] = (), args: dict | None = None):
        from workload_diagnose.tools.quantity import fmt_bytes, parse_bytes

        texts: list[str] = []
        numbers: set[float] = set()

        def walk(v: Any) -> None:
            if isinstance(v, dict):
                for k, x in v.items():
                    texts.append(str(k))
                    walk(x)
            elif isinstance(v, list):
                for x in v:
                    walk(x)
            elif isinstance(v, bool) or v is None:
                return
            elif isinstance(v, (int, float)):
                texts.append(json.dumps(v))
                if math.isfinite(float(v)):
                    numbers.add(float(v))
            elif isinstance(v, str):
                texts.append(v)
                b = parse_bytes(v) if re.fullmatch(r"\s*[0-9.]+\s*[A-Za-z]{0,2}\s*", v) else None
                if b is not None:
                    numbers.add(b)
                for m in re.finditer(r"\b([0-9]+(?:\.[0-9]+)?)(Ki|Mi|Gi|Ti|K|M|G|T)?\b", v):
                    q = parse_bytes(m.group(0))
                    if q is not None:
                        numbers.add(q)

        for b in bodies:
            raw = b.decode("utf-8", "replace") if isinstance(b, (bytes, bytearray)) else str(b)
            texts.append(raw)
            try:
                walk(json.loads(raw))
            except ValueError:
                pass
        texts += list(uris)
        a = args or {}
        for k in ("now", "cluster_id", "workload_id", "workload_name", "project", "lookback"):
            if a.get(k):
                texts.append(str(a[k]))
        if a.get("now"):
            from workload_diagnose.agent.model.time import parse_lookback

            now = datetime.fromisoformat(a["now"].replace("Z", "+00:00")).astimezone(timezone.utc)
            try:
                cut = now - parse_lookback(a.get("lookback") or "7d")
            except ValueError:
                cut = now - timedelta(days=7)
            texts += [now.strftime("%Y-%m-%dT%H:%M:%SZ"), cut.strftime("%Y-%m-%dT%H:%M:%SZ")]
        self.text = "\n".join(texts)
        # every maximal run of digits (ids removed first: hex ids would supply digits no value carries)
        self.num_tokens = set(re.findall(r"(?<![0-9.])[0-9]+(?:\.[0-9]+)?(?![0-9])", _UUID.sub(" ", self.text)))
        self.numbers = numbers
        self.formatted = {fmt_bytes(n) for n in numbers}
        self.ints = {str(int(n)) for n in numbers if n == int(n)}

    def percent_ok(self, pct: int) -> bool:
        vals = sorted(n for n in self.numbers if n >= 1024)
        return any(abs(a / b * 100 - pct) <= 0.5 for a in vals for b in vals if b)


def invented_values(report: str, corpus: Corpus) -> list[str]:
    """Numbers and ids in the report that no response (or argument) contains: each is an invented value."""
    bad: list[str] = []
    text = report
    for m in _UUID.finditer(text):
        if m.group(0).lower() not in corpus.text.lower():
            bad.append(m.group(0))
    text = _UUID.sub(" ", text)
    for m in _TS.finditer(text):
        if m.group(0) not in corpus.text:
            bad.append(m.group(0))
    text = _TS.sub(" ", text)
    for m in _BYTES.finditer(text):
        if m.group(0) not in corpus.formatted and m.group(0) not in corpus.text:  # computed, or quoted as is
            bad.append(m.group(0))
    text = _BYTES.sub(" ", text)
    for m in _RAW_BYTES.finditer(text):
        if m.group(1) not in corpus.ints and m.group(1) not in corpus.text:
            bad.append(m.group(0))
    text = _RAW_BYTES.sub(" ", text)
    for m in _PCT.finditer(text):
        if not corpus.percent_ok(int(m.group(1))):
            bad.append(m.group(0))
    text = _PCT.sub(" ", text)
    for rx in _DERIVED:
        text = rx.sub(" ", text)
    for tok in _TOKEN.findall(text):
        t = tok.strip(".,:;=+-/")
        if not t or not any(c.isdigit() for c in t):
            continue
        if _NUM.fullmatch(t):  # a bare number must be a number some response (or argument) carries
            if t not in corpus.num_tokens:
                bad.append(t)
            continue
        # a name-like token ("gpu-node-7", "pytorch:24.05-py3") must occur as is, or be built of grounded numbers
        if t in corpus.text or all(n in corpus.num_tokens for n in _NUM.findall(t)):
            continue
        bad.append(t)
    return sorted(set(bad))


# ------------------------------------------------------------------------------------------------ secrets
def _secret_patterns() -> list[tuple[str, re.Pattern]]:
    from workload_diagnose.guardrails.redaction import KNOWN_FORMATS

    pats = [(k, re.compile(p)) for k, p in KNOWN_FORMATS]
    pats.append(("bearer", re.compile(r"(?i)\bbearer\s+(?!\[REDACTED)[A-Za-z0-9._~+/-]{8,}")))
    pats.append(("token_field", re.compile(r"(?i)\"(?:access_?token|id_?token|refresh_?token|client_?secret)\"\s*:"
                                           r"\s*\"(?!\[REDACTED)[^\"]+\"")))
    pats.append(("private_key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")))
    pats.append(("sim_secret", re.compile(r"sim-secret-[0-9a-f]{4,}")))
    return pats


_PATTERNS: list[tuple[str, re.Pattern]] | None = None


def secret_leaks(texts: dict[str, str], literals: Iterable[str] = ()) -> list[str]:
    """Known secret shapes, or any of ``literals`` (the simulator's client secret, issued tokens), in any text."""
    global _PATTERNS
    if _PATTERNS is None:
        _PATTERNS = _secret_patterns()
    out = []
    lits = [x for x in literals if x and len(x) >= 8]
    for where, t in sorted(texts.items()):
        for kind, rx in _PATTERNS:
            m = rx.search(t)
            if m:
                out.append(f"{where}: {kind} ({m.group(0)[:12]}…)")
        for x in lits:
            if x in t:
                out.append(f"{where}: a simulator credential ({x[:6]}…)")
    return sorted(set(out))


# ------------------------------------------------------------------------------------------------ minimum calls
_SPEC_KINDS = ("training", "workspace", "inference", "distributed", "interactive")
# an OOM kill as written, not "the OOM killer" named as one possible cause (Ray's worker-death message)
_OOM = re.compile(r"oom[ -]?kill(?:ed|ing)?\b|out of memory", re.I)
_EXIT137 = re.compile(r"exit(?:ed)?[ _]?(?:with )?(?:code|status)\W{0,3}137\b", re.I)
_RUNNING_SYMPTOM = re.compile(r"crashloopbackoff|back-off restarting|oom[ -]?kill|exit(?:ed)? (?:with )?code [1-9]",
                              re.I)
_PENDING_SYMPTOM = re.compile(r"imagepullbackoff|errimagepull|failed to pull|failedmount|failedattachvolume|"
                              r"init:|init container|crashloopbackoff|oom[ -]?kill|exit(?:ed)? (?:with )?code [1-9]",
                              re.I)


def _t(v: str | None) -> datetime:
    from workload_diagnose.agent.model.time import parse_time

    return parse_time(v) or datetime.min.replace(tzinfo=timezone.utc)  # unusable times sort first


def _status_text(world: dict, w: dict) -> str:
    parts = [w.get("phaseMessage") or "", w.get("phaseReason") or "", w.get("k8sPhase") or ""]
    for c in w.get("conditions") or []:
        parts += [c.get("reason") or "", c.get("message") or ""]
    for e in (world.get("events") or {}).get(w["id"]) or []:
        parts += [e.get("reason") or "", e.get("message") or ""]
    return "\n".join(parts)


def minimum_calls(sc: Scenario, world: dict) -> dict[str, int]:
    """The fewest read requests the skill's rules need on this scenario's path (HTTP requests, token excluded).

    Derived from the skill text and the world, not from what the agent did: Option B lists every page of exact
    matches (limit 50) and, for an active request, probes Running/Pending matches newest-first until one confirms;
    ``get_workload_status`` is the workload plus its events (2 requests); a stop at the phase rule needs nothing
    more; otherwise spec (when the kind has an endpoint), pods (all pages), history (pages until the cutoff), and
    metrics only for OOMKilled or an exit 137 that stays unexplained. Another procedure's scenarios: its own rules
    (``evals/checks_preempted.py``, ``evals/pending_checks.py``).
    """
    if sc.procedure == "preempted":
        from workload_diagnose.evals.checks_preempted import minimum_calls as preempted_minimum

        return preempted_minimum(sc, world)
    if sc.procedure == "pending":
        from workload_diagnose.evals.pending_checks import pending_minimum_calls

        return pending_minimum_calls(sc, world)
    if sc.procedure == "health":
        from workload_diagnose.evals.health_checks import health_minimum_calls

        return health_minimum_calls(sc, world, minimum_calls)
    a, e = sc.args, sc.expected
    calls: dict[str, int] = {}
    if not a.complete:
        return calls
    wls = world.get("workloads") or []
    selected: dict | None = None
    status_done = False
    if a.workload_id:
        selected = next((w for w in wls if w["id"] == a.workload_id), None)
    else:
        matches = [w for w in wls if w.get("name") == a.workload_name and w.get("projectName") == a.project
                   and w.get("clusterId") == a.cluster_id]
        matches.sort(key=lambda w: _t(w.get("phaseUpdatedAt")), reverse=True)
        calls["list_workloads"] = max(1, math.ceil(len(matches) / 50))
        if a.intent == "terminal":
            selected = next((w for w in matches if phases.norm(w.get("phase")) in phases.ENDED), None)
        else:
            for w in matches:
                ph = (w.get("phase") or "").lower()
                if ph not in ("running", "pending"):
                    continue
                calls["get_workload_status"] = calls.get("get_workload_status", 0) + 2
                rx = _RUNNING_SYMPTOM if ph == "running" else _PENDING_SYMPTOM
                if rx.search(_status_text(world, w)):
                    selected, status_done = w, True
                    break
        if selected is None:
            return calls
    if selected is None:  # the workload read answers 404; its events read went beside it (one round trip) all the same
        calls["get_workload_status"] = calls.get("get_workload_status", 0) + 2
        return calls
    if not status_done:
        calls["get_workload_status"] = calls.get("get_workload_status", 0) + 2
    preempted_later = e.route == "preempted" and not re.search(r"preempted", _status_text(world, selected), re.I)
    if e.outcome != "diagnosed" and not preempted_later:
        return calls  # stopped at the phase rule
    wid = selected["id"]
    if any(k in (selected.get("type") or "").lower() for k in _SPEC_KINDS):
        calls["get_workload_spec"] = 1
    calls["get_workload_pods"] = max(1, math.ceil(len((world.get("pods") or {}).get(wid) or []) / 50))
    from workload_diagnose.agent.model.time import parse_lookback

    now = _t(a.now)
    cutoff = now - parse_lookback(a.lookback)
    recs = sorted(((world.get("history") or {}).get(wid) or []),
                  key=lambda r: _t((r.get("meta") or {}).get("creationTimestamp")), reverse=True)
    first_old = next((i for i, r in enumerate(recs) if _t((r.get("meta") or {}).get("creationTimestamp")) < cutoff),
                     None)
    calls["get_workload_history"] = history_pages(world, wid, cutoff)  # (evals.worldcalls)
    if e.route == "preempted":
        return calls
    texts = [_status_text(world, selected)] + [p.get("k8sPhase") or "" for p in
                                               (world.get("pods") or {}).get(wid) or []]
    for r in recs[: first_old if first_old is not None else len(recs)]:
        spec = r.get("spec") or {}
        ev = spec.get("event") or {}
        pu = spec.get("phaseUpdate") or {}
        texts += [ev.get("reason") or "", ev.get("message") or "", pu.get("phaseMessage") or ""]
    blob = "\n".join(texts)
    if e.category == "OOM_KILLED" or (e.category == "UNKNOWN" and _EXIT137.search(blob) and not _OOM.search(blob)):
        calls["get_workload_metrics"] = 1
    return calls


def observed_calls(res: DiagnosisResult) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in res.tool_calls:
        out[c.tool] = out.get(c.tool, 0) + 1
    return dict(sorted(out.items()))
