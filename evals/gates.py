"""Release gates over a scored selection, per suite and overall (``workload-diagnose eval``, REST or MCP).

* **top-1**: the expected label (category, or route/stop) is the one given; known defects count as misses.
* **evidence-link precision**: every evidence line that cites something (a quoted message, a reason, a phase, a
  pod/node/container name, a timestamp, a quantity) is found VERBATIM in the recorded reads of the source it names
  (the cassette / simulator bodies of that tool's calls, or of that kubectl command's objects), after the same
  normalisation and redaction the product applies to every body. A line stating an absence cites nothing.
* **abstention**: a case marked ``"undecidable": true`` is answered with the fallback category and a stated
  limitation (or with a question), never with a guess.
* **groundless answers**: a category none of whose cited lines is, read by the taxonomy's own rules, a direct
  signal of that category (the submitted spec never is; a container's log line only through the log rules).
* **writes**: requests other than GET/HEAD and the token exchange, as the product's transport classifies them,
  and MCP tools outside the read allow-list.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable
from urllib.parse import unquote, urlsplit
from workload_diagnose.evals.checks import verdict_of

THRESHOLDS = {"top1": 0.98, "link_precision": 1.0, "abstention": 1.0, "groundless": 0, "writes": 0}
# the skill tool → the Run:ai endpoint classes (``evals.faultmatrix.ENDPOINTS``) its reads hit; used when a call is
# not an HTTP request line (through MCP the stand-in reads the workload first to find a spec's kind)
TOOL_ENDPOINTS = {"get_workload_status": ("workload", "events"), "get_workload_spec": ("spec", "workload"),
                  "get_workload_pods": ("pods",), "get_workload_history": ("history",),
                  "get_workload_metrics": ("metrics",), "list_workloads": ("list",)}
_NOT_CITED = {"none", "n/a", "unknown", "not", "not set", "not available", "not reported", "no", "time"}
_KUBECTL_WORDS = {"kubectl", "describe", "get", "logs", "pod", "pods", "node", "nodes", "event", "events",
                  "namespace", "namespaces", "top"}


@dataclass(frozen=True)
class Read:
    method: str
    uri: str  # path?query (Run:ai) or the full URL (Kubernetes)
    body: str
    kube: bool


def cassette_reads(text: str) -> list[Read]:
    """Every recorded exchange of a cassette (Run:ai and Kubernetes)."""
    from workload_diagnose.evals.cassettes import parse
    from workload_diagnose.evals.scenarios import REPLAY_URL

    data = parse(text)
    out = []
    for i in data.get("interactions") or []:
        req = i.get("request") or {}
        uri = req.get("uri") or ""
        body = ((i.get("response") or {}).get("body") or {}).get("string") or ""
        kube = not uri.startswith(REPLAY_URL)
        out.append(Read(str(req.get("method") or "GET").upper(), uri if kube else _path(uri),
                        body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body), kube))
    return out


def _path(uri: str) -> str:
    p = urlsplit(uri)
    return p.path + (f"?{p.query}" if p.query else "")


# ------------------------------------------------------------------------------------------------ reads a line names
def reads_for(source: str, calls: Iterable[Any], reads: list[Read]) -> list[Read]:
    """The recorded reads of the source an evidence line names: a skill tool's calls, or a kubectl command's
    objects (every Kubernetes read whose URL carries each name, namespace and container the command gives)."""
    if source.startswith("kubectl"):
        ids = _kubectl_ids(source)
        return [r for r in reads if r.kube and all(x in unquote(r.uri) for x in ids)]
    from workload_diagnose.evals.faultmatrix import endpoint_of

    out: list[Read] = []
    calls = list(calls)
    if source == "get_workload_status":
        out += _stood_in(calls, reads)
    for c in calls:
        if c.tool != source:
            continue
        m = re.match(r"^([A-Z]+) (/\S*)$", c.request or "")
        if m:
            want = unquote(m.group(2))
            out += [r for r in reads if not r.kube and r.method == m.group(1) and unquote(r.uri) == want]
        else:  # an MCP invocation: the tool's endpoint classes
            eps = TOOL_ENDPOINTS.get(source, ())
            out += [r for r in reads if not r.kube and endpoint_of(r.method, r.uri.split("?", 1)[0]) in eps]
    return list(dict.fromkeys(out))


def _stood_in(calls: list[Any], reads: list[Read]) -> list[Read]:
    """The listing reads, when a workload's status was read as its events alone: the listed object stood in for
    ``GET /api/v1/workloads/{id}`` (``tools.runai.fleet.STANDS_IN_PHASES``, in a triage or a health snapshot)."""
    mine = [c.request or "" for c in calls if c.tool == "get_workload_status"]
    ids = {m.group(1) for r in mine if (m := re.match(r"^GET /api/v1/workloads/([^/?\s]+)/events", r))}
    if not any(f"GET /api/v1/workloads/{i}" not in {r.split("?", 1)[0] for r in mine} for i in ids):
        return []
    lists = {unquote(c.request.split(" ", 1)[1]) for c in calls
             if c.tool == "list_workloads" and re.match(r"^GET /api/v1/workloads\?", c.request or "")}
    return [r for r in reads if not r.kube and r.method == "GET" and unquote(r.uri) in lists]


def _kubectl_ids(cmd: str) -> list[str]:
    toks = cmd.split()
    ids, i = [], 1
    while i < len(toks):
        t = toks[i]
        if t in ("-n", "--namespace", "-c", "--container") and i + 1 < len(toks):
            ids.append(toks[i + 1])
            i += 2
            continue
        if t.startswith("--field-selector"):
            val = t.split("=", 1)[1] if "=" in t else (toks[i + 1] if i + 1 < len(toks) else "")
            ids += [kv.split("=", 1)[-1] for kv in val.split(",") if kv]
            i += 1 if "=" in t else 2
            continue
        if not t.startswith("-") and t not in _KUBECTL_WORDS:
            ids.append(t)
        i += 1
    return ids


class Haystack:
    """What a set of reads said, as the product saw it: every body normalised and redacted (``guardrails``), each
    string whitespace-collapsed; plus the numbers and byte quantities the bodies carry."""

    def __init__(self, reads: list[Read]):
        from workload_diagnose import guardrails
        from workload_diagnose.agent.model.time import parse_time
        from workload_diagnose.evals.checks import Corpus

        strings: list[str] = []

        def walk(v: Any) -> None:
            if isinstance(v, dict):
                for x in v.values():
                    walk(x)
            elif isinstance(v, list):
                for x in v:
                    walk(x)
            elif isinstance(v, str):
                strings.append(" ".join(v.split()))
                t = parse_time(v) if re.match(r"\d{4}-\d\d-\d\dT", v) else None
                if t is not None:
                    strings.append(t.strftime("%Y-%m-%dT%H:%M:%SZ"))
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                strings.append(json.dumps(v))

        for r in reads:
            try:
                parsed: Any = json.loads(r.body)
            except ValueError:
                parsed = r.body.splitlines() + [r.body]
            clean, _ = guardrails.sanitize_value(parsed)
            walk(guardrails.redact_value(clean))
        self.text = "\n".join(strings)
        self.corpus = Corpus([r.body for r in reads])

    def has(self, fragment: str) -> bool:
        return bool(fragment) and fragment in self.text

    def has_token(self, value: str) -> bool:
        return bool(re.search(r"(?<![\w.-])" + re.escape(value) + r"(?![\w-])", self.text))

    def has_quantity(self, q: str) -> bool:
        return q in self.corpus.formatted or q in self.corpus.text

    def has_number(self, n: str) -> bool:
        return self.has_token(n) or n in self.corpus.ints


# ------------------------------------------------------------------------------------------------ citations
_TS = r"\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?"
_OPEN = re.compile(r'(?:(?<=: )|(?<=; )|^)"')
_CLOSE_TAIL = re.compile(r'$|[;,)]| at | \(| since ')
_LABELS = [re.compile(p) for p in (
    r"\b(?:reason|phaseReason|k8sPhase|node|nodePool|Phase): ([^\s;,()]+)", r"\breason ([^\s;,()]+)",
    r"^(?:Pod|Node(?! pools?\b)|Init container|Container) ([^\s;,()]+)", r"\(pod ([^\s)]+)\)",
    r"\bSubmitted image: (\S+)", r"\bRestart policy: (\w+)", r"\bbackoffLimit: (\d+)",
    r"\b[Cc]ondition (\w+)=(\w+)", r"\btaint ([^\s:]+):(\w+)", r"\bPhase update at " + _TS + r": ([^\s;]+)")]
_STAMPS = re.compile(r"\b(?:at|since|first|last) (" + _TS + ")")
_NUMBERS = re.compile(r"\b(?:exit code|restarts:) (\d+)\b|\(x(\d+)\)$|\((\d+) bytes\)")
_QTY = re.compile(r"\b\d+(?:\.\d+)? (?:B|KiB|MiB|GiB|TiB)\b")
_RAW_QTY = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)(?![\w.])")
_LIMIT_FROM = re.compile(r"of the (\d+(?:\.\d+)? (?:B|KiB|MiB|GiB|TiB)) limit \(limit from (\S+)\)")
_REPEATS = re.compile(r" \(×\d+ similar lines(?:, first (" + _TS + r"), last (" + _TS + r"))?\)$")


@dataclass
class LineCheck:
    atoms: int = 0
    missing: list[str] = field(default_factory=list)


def check_line(text: str, hay: Haystack, other: Any = None) -> LineCheck:
    """The citations of one evidence line, each looked up in ``hay``; ``other(source)`` gives another source's
    haystack (a limit the line says comes from another tool)."""
    out = LineCheck()

    def need(ok: bool, what: str) -> None:
        out.atoms += 1
        if not ok:
            out.missing.append(what)

    m = _REPEATS.search(text)
    if m:
        for t in (m.group(1), m.group(2)):
            if t:
                need(hay.has(t), t)
        text = text[:m.start()]
    rest, quoted = _quoted(text, hay)
    for q in quoted:
        for frag in (f.strip() for f in q.split("…")):
            if frag:
                need(hay.has(frag), f'"{frag}"')
    for m in list(_LIMIT_FROM.finditer(rest)):
        src_hay = other(m.group(2)) if other else None
        need(src_hay is not None and src_hay.has_quantity(m.group(1)), f"{m.group(1)} (from {m.group(2)})")
    rest = _LIMIT_FROM.sub(" ", rest)
    for rx in _LABELS:
        for m in rx.finditer(rest):
            for v in m.groups():
                v = (v or "").rstrip(":.")
                if v and v.lower() not in _NOT_CITED:
                    need(hay.has_token(v), v)
    for m in _STAMPS.finditer(rest):
        need(hay.has(m.group(1)), m.group(1))
    for m in _NUMBERS.finditer(rest):
        n = next(g for g in m.groups() if g)
        need(hay.has_number(n), n)
    for m in _QTY.finditer(rest):
        need(hay.has_quantity(m.group(0)), m.group(0))
    for m in _RAW_QTY.finditer(rest):
        need(hay.has_token(m.group(0)), m.group(0))
    return out


def _quoted(text: str, hay: Haystack) -> tuple[str, list[str]]:
    """The quoted spans of a line (a system message may itself contain quotes: the closing quote is the one that
    ends the field, preferring a span found in the reads), and the line without them."""
    spans, rest, pos = [], [], 0
    while True:
        m = _OPEN.search(text, pos)
        if not m:
            rest.append(text[pos:])
            break
        start = m.end()
        closes = [j for j in range(start, len(text)) if text[j] == '"' and _CLOSE_TAIL.match(text, j + 1)]
        rest.append(text[pos:m.start()])
        if not closes:  # cut at a length bound: the rest is the span
            spans.append(text[start:].rstrip("…"))
            break
        end = next((j for j in reversed(closes) if all(hay.has(f.strip()) for f in text[start:j].split("…")
                                                     if f.strip())), closes[-1])
        spans.append(text[start:end])
        pos = end + 1
    return " ".join(rest), spans


def link_check(evidence: Iterable[Any], calls: list[Any], reads: list[Read]) -> tuple[int, int, list[str]]:
    """(lines found in the read they name, lines that cite something, the lines that were not found)."""
    cache: dict[str, Haystack] = {}

    def hay(source: str) -> Haystack:
        if source not in cache:
            cache[source] = Haystack(reads_for(source, calls, reads))
        return cache[source]

    linked = cited = 0
    bad: list[str] = []
    for e in evidence:
        chk = check_line(e.text, hay(e.source), hay)
        if not chk.atoms:
            continue  # a statement (an absence, a window): it cites nothing
        cited += 1
        if chk.missing:
            bad.append(f"{e.text} (source: {e.source}): not in that read: {', '.join(chk.missing[:3])}")
        else:
            linked += 1
    return linked, cited, bad


# ------------------------------------------------------------------------------------------------ grounding
_KUBE_STATE = re.compile(r"^(Init container|Container) \S+ \(pod \S+\) (?:last )?state terminated: reason (\S+), "
                         r"exit code (\d+)")
_KUBE_NODE = re.compile(r"^Node \S+ (?:condition Ready=(?:False|Unknown)|taint node\.kubernetes\.io/"
                        r"(?:not-ready|unreachable):)")
_NAMES = re.compile(r"^(?:Pod|Node|Init container|Container) ([^\s;,()]+)|\(pod ([^\s)]+)\)|"
                    r"\bcontainer ([a-z0-9][a-z0-9.-]+) in pod ([a-z0-9][a-z0-9.-]+)")


def line_kinds(text: str, names: list[str]) -> set:
    """The signal kinds the taxonomy's own rules read in one rendered evidence line."""
    from workload_diagnose.agent.evidence.rules import exit_code_kinds, kinds_from_reason_message
    from workload_diagnose.agent.model.signals import Kind

    kinds: set = set()
    m = _KUBE_STATE.match(text)
    if m:
        oom = m.group(2).lower() == "oomkilled"
        kinds |= {k for k, _, _ in exit_code_kinds(int(m.group(3)), is_init=m.group(1) == "Init container", oom=oom)}
        kinds |= {Kind.OOM} if oom else set()
    if _KUBE_NODE.match(text):
        kinds.add(Kind.NODE_FAILURE)
    reason = _first(r"\breason:? ([^\s;,]+)", text) or _first(r"\bphaseReason: ([^\s;,]+)", text)
    phase = _first(r"\bk8sPhase: ([^\s;,]+)", text)
    _, quoted = _quoted(text, _NoHay())
    message = quoted[0] if quoted else None
    for r, msg in ((reason, message), (None, message), (phase, phase), (reason, text.replace('"', " "))):
        if r or msg:
            kinds |= {k for k, _, _ in kinds_from_reason_message(r, msg, names)}
    return kinds


def _first(rx: str, text: str) -> str | None:
    m = re.search(rx, text)
    return m.group(1) if m and m.group(1).lower() not in _NOT_CITED else None


class _NoHay(Haystack):
    def __init__(self) -> None:  # noqa: D107 - the quote splitter without reads: the outermost span
        self.text = ""


def grounded(res: Any) -> bool | None:
    """Whether a diagnosed category is backed by a cited direct signal of it (None: nothing to ground)."""
    from workload_diagnose.agent.taxonomy import BY_NAME

    cat = BY_NAME.get(getattr(res, "category", None) or "")
    if res.outcome != "diagnosed" or cat is None or not cat.kinds:
        return None
    w = res.workload
    names = [x for x in ((w.name, w.project) if w else ()) if x]
    for e in res.evidence:
        names += [g for m in _NAMES.finditer(e.text) for g in m.groups() if g]
    for e in res.evidence:
        if e.source.startswith("kubectl logs"):  # a log line is a signal only through the strict log rules
            if log_line_kinds(e.text) & cat.kinds:
                return True
            continue
        if e.source == "get_workload_spec":
            continue  # configuration corroborates
        if line_kinds(e.text, names) & cat.kinds:
            return True
    return False


def log_line_kinds(text: str) -> set:
    """The signal kinds the taxonomy's log rules (``SignalRule.reads_log``) read in the log line a rendered evidence
    line quotes."""
    from workload_diagnose.agent.evidence.rules import kinds_from_log_line

    _, quoted = _quoted(text, _NoHay())
    return {k for q in quoted for k, _, _ in kinds_from_log_line(q)}


def abstained(res: Any) -> bool:
    """The fallback category with a stated limitation, or a question: not a guess."""
    from workload_diagnose.agent.taxonomy import UNKNOWN

    if res.outcome == "needs_input":
        return bool(res.question)
    return res.outcome == "diagnosed" and verdict_of(res)[1] == UNKNOWN.name and bool(res.limitations)


def writes(requests: Iterable[tuple[str, str, bool]]) -> list[str]:
    """Requests (method, path or URL, Kubernetes?) that are not reads: the product's own transport rule for Run:ai
    (GET/HEAD and the token exchange), GET/HEAD only for Kubernetes."""
    from workload_diagnose.tools.transport import classify_request

    out = []
    for method, uri, kube in requests:
        m = method.upper()
        if (m not in ("GET", "HEAD")) if kube else classify_request(m, urlsplit(uri).path) == "write":
            out.append(f"{m} {uri}")
    return out


# ------------------------------------------------------------------------------------------------ per scenario
def record_gates(res: Any, reads: list[Read], requests: Iterable[tuple[str, str, bool]], *,
                 undecidable: bool, extra_writes: Iterable[str] = ()) -> tuple[dict, list[str]]:
    """The gate facts of one scored result (stored on its scoreboard record) and the problems they make."""
    linked, cited, unlinked = link_check(res.evidence, list(res.tool_calls), reads)
    ground = grounded(res)
    wr = writes(requests) + list(extra_writes)
    facts = {"links": [linked, cited], "unlinked": unlinked, "grounded": ground, "undecidable": undecidable,
             "abstained": abstained(res), "writes": wr}
    problems = [f"evidence line not found verbatim in the read it names: {x}" for x in unlinked]
    if ground is False:
        problems.append(f"groundless: {getattr(res, 'category', None)} with no cited direct signal of it")
    if undecidable and not facts["abstained"]:
        _, name, route = verdict_of(res)
        problems.append(f"undecidable case answered {name or route}, not an abstention")
    problems += [f"write request: {x}" for x in wr]
    return facts, problems


def no_result_gates(undecidable: bool) -> dict:
    """A run that gave no result: nothing cited, nothing answered (a miss for top-1, not an abstention)."""
    return {"links": [0, 0], "unlinked": [], "grounded": None, "undecidable": undecidable, "abstained": False,
            "writes": []}


# ------------------------------------------------------------------------------------------------ the board
def figures(recs: list[dict]) -> dict:
    """The gate figures per suite and overall, what failed, and whether the selection passes."""
    from workload_diagnose.evals.checks import label

    def fig(rs: list[dict]) -> dict:
        top = sum(1 for r in rs if label(*_v(r["expected"])) == label(*_v(r["got"])))
        linked = sum(r["gates"]["links"][0] for r in rs)
        cited = sum(r["gates"]["links"][1] for r in rs)
        und = [r for r in rs if r["gates"]["undecidable"]]
        abst = sum(1 for r in und if r["gates"]["abstained"])
        return {"top1": {"correct": top, "total": len(rs), "ratio": _ratio(top, len(rs))},
                "link_precision": {"linked": linked, "cited": cited, "ratio": _ratio(linked, cited)},
                "abstention": {"abstained": abst, "undecidable": len(und), "ratio": _ratio(abst, len(und))},
                "groundless": {"count": sum(1 for r in rs if r["gates"]["grounded"] is False),
                               "items": sorted(r["id"] for r in rs if r["gates"]["grounded"] is False)},
                "writes": {"count": sum(len(r["gates"]["writes"]) for r in rs),
                           "items": sorted(f"{r['id']}: {w}" for r in rs for w in r["gates"]["writes"])}}

    by_suite: dict[str, list[dict]] = {}
    for r in recs:
        by_suite.setdefault(r["suite"] or "(none)", []).append(r)
    overall = fig(recs)
    suites = {s: fig(rs) for s, rs in sorted(by_suite.items())}
    missed = [f"overall: {x}" for x in missed_gates(overall)]
    missed += [f"{s}: {x}" for s, f in suites.items() for x in missed_gates(f, top1=False)]
    return {"thresholds": dict(THRESHOLDS), "overall": overall, "suites": suites, "missed": missed,
            "ok": not missed}


def missed_gates(f: dict, *, top1: bool = True) -> list[str]:
    """The gates one figure set misses (top-1 is gated on the whole selection, the zero-tolerance gates on every
    suite too)."""
    t = THRESHOLDS
    out = []
    if top1 and f["top1"]["total"] and f["top1"]["ratio"] < t["top1"]:
        out.append(f"top-1 {f['top1']['ratio']:.4f} < {t['top1']}")
    if f["link_precision"]["cited"] and f["link_precision"]["ratio"] < t["link_precision"]:
        out.append(f"evidence-link precision {f['link_precision']['ratio']:.4f} < {t['link_precision']}")
    if f["abstention"]["undecidable"] and f["abstention"]["ratio"] < t["abstention"]:
        out.append(f"abstention {f['abstention']['ratio']:.4f} < {t['abstention']} on undecidable cases")
    if f["groundless"]["count"] > t["groundless"]:
        out.append(f"{f['groundless']['count']} groundless answer(s): {', '.join(f['groundless']['items'][:5])}")
    if f["writes"]["count"] > t["writes"]:
        out.append(f"{f['writes']['count']} write request(s)")
    return out


def _v(d: dict) -> tuple:
    return d["outcome"], d["category"], d["route"]


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def text(g: dict) -> list[str]:
    """The gate table printed by ``eval``."""
    t = THRESHOLDS
    lines = ["", f"  release gates (top-1 ≥ {t['top1']} on the selection; link precision {t['link_precision']}, "
                 f"abstention {t['abstention']}, groundless {t['groundless']}, writes {t['writes']} on every suite)",
             f"    {'suite':14} {'top-1':>18} {'link precision':>22} {'abstention':>16} {'groundless':>10} "
             f"{'writes':>6}"]

    def row(name: str, f: dict) -> str:
        def r(x):
            return "n/a" if x is None else f"{x:.4f}"
        a, lp, ab = f["top1"], f["link_precision"], f["abstention"]
        cells = (f"{a['correct']}/{a['total']} {r(a['ratio'])}", f"{lp['linked']}/{lp['cited']} {r(lp['ratio'])}",
                 f"{ab['abstained']}/{ab['undecidable']} {r(ab['ratio'])}")
        return (f"    {name[:14]:14} {cells[0]:>18} {cells[1]:>22} {cells[2]:>16} {f['groundless']['count']:>10} "
                f"{f['writes']['count']:>6}")
    lines += [row(s, f) for s, f in g["suites"].items()]
    lines.append(row("overall", g["overall"]))
    lines.append("    gates: " + ("PASS" if g["ok"] else "MISSED — " + "; ".join(g["missed"][:10])))
    return lines
