"""The fault matrix: every scenario, live against the simulator, with each injected fault in turn.

For every endpoint a scenario's fault-free run touches, each applicable fault variant is injected (one per run):

* transient (cleared by the client's retries: 500/502/503 once, 429 twice with Retry-After, one read timeout, one
  short read): the verdict (and recurrence count) must not change;
* persistent (500/502/503/429/timeouts forever, malformed JSON, a body of the wrong shape, pages whose ``next``
  never ends or repeats, a truncated page, metric values that are not numbers): the result may only become less
  specific, must name what failed in its limitations, and must never turn into a different specific category. A
  persistent failure of the token exchange or of the workload's own status read (or of the workload list, for a
  name lookup) is the documented fatal "API unavailable" error (exit 3): that is the expected behaviour there.

Every run must also: end (no crash), stay within a request bound (no loop), invent no value (every number and id
in the report occurs in what the simulator served), leak no credential, and produce a structurally valid result.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from workload_diagnose.evals import checks
from workload_diagnose.evals.runner import LiveRun
from workload_diagnose.evals.scenarios import Scenario

HOLD = 0.3  # the simulator holds a timed-out response this long ...
READ_TIMEOUT = 0.08  # ... and the client gives up after this long (only on the faulted endpoint; localhost ~2 ms)
HOLD_BIG, READ_TIMEOUT_BIG = 1.5, 0.75  # ... the same for a listing page of more than BIG_LISTING workloads
BIG_LISTING = 100
MAX_ATTEMPTS, MAX_PAGES = 3, 20  # tools.runai.RunaiClient defaults

ENDPOINTS: dict[str, tuple[str, str]] = {
    "token": ("POST", r"^/api/v[12]/token$"),
    "list": ("GET", r"^/api/v1/workloads$"),
    "workload": ("GET", r"^/api/v1/workloads/[0-9a-fA-F-]{36}$"),
    "events": ("GET", r"^/api/v1/workloads/[^/]+/events$"),
    "spec": ("GET", r"^/api/v1/workloads/(?:trainings|workspaces|inferences|distributed)/[^/]+$"),
    "pods": ("GET", r"^/api/v1/workloads/[^/]+/pods$"),
    "history": ("GET", r"^/api/v1/workloads/[^/]+/history$"),
    "metrics": ("GET", r"^/api/v1/workloads/[^/]+/metrics$"),
}
# what a limitation must mention when a persistent fault on that endpoint was not fatal
MENTIONS = {"events": ("events",), "spec": ("spec",), "pods": ("pods",), "history": ("history",),
            "metrics": ("metrics",), "list": ("list",), "workload": ("status", "candidate", "workload")}
PAGED = ("list", "pods", "history")
FATAL_OK = {"token", "workload", "list"}


@dataclass(frozen=True)
class Variant:
    name: str
    transient: bool
    spec: dict
    endpoints: tuple[str, ...] | None = None  # None: every endpoint

    def applies(self, endpoint: str) -> bool:
        return self.endpoints is None or endpoint in self.endpoints


VARIANTS: list[Variant] = [
    Variant("5xx", True, {"status": 500, "times": 1}),  # the code rotates 500/502/503 over endpoints (see plan)
    Variant("429-retry-after", True, {"status": 429, "retry_after": "1", "times": 2}),
    Variant("timeout", True, {"kind": "timeout", "seconds": HOLD, "times": 1}),
    Variant("short-read", True, {"kind": "short_read", "times": 1}),
    Variant("5xx-persistent", False, {"status": 503, "times": -1}),  # rotates 503/500/502
    Variant("429-persistent", False, {"status": 429, "retry_after": "0", "times": -1}),
    Variant("timeout-persistent", False, {"kind": "timeout", "seconds": HOLD, "times": -1}),
    Variant("malformed-json", False, {"kind": "malformed", "times": -1}),
    Variant("wrong-shape", False, {"kind": "wrong_shape", "times": -1}),
    Variant("next-endless", False, {"kind": "next_endless", "times": -1}, PAGED),
    Variant("next-repeats", False, {"kind": "next_repeats", "times": -1}, PAGED),
    Variant("truncated-page", False, {"kind": "truncate", "times": -1}, PAGED),
    Variant("metric-garbage", False, {"kind": "garbage", "times": -1}, ("metrics",)),
]
# 500, 502 and 503 take the same path through the client; instead of tripling every run, the code rotates over a
# scenario's endpoints (transient and persistent offset), so every scenario with three or more endpoints sees
# each code both ways and every endpoint class sees each code across the suite.
CODES = (500, 502, 503)
# Through MCP (``eval --tier1 mcp --faults``, evals/mcp_eval.py) the REST variants above are injected under the MCP
# stand-in, and these are injected at the MCP layer on each tool a scenario calls (``endpoints`` = the REST
# endpoint class of that tool, whose rules apply): a tool error, an answer later than the client's deadline, a
# dropped session — once, and always.
MCP_VARIANTS: list[Variant] = [
    Variant("mcp-tool-error", True, {"kind": "tool_error", "times": 1}),
    Variant("mcp-timeout", True, {"kind": "timeout", "seconds": 2.0, "times": 1}),
    Variant("mcp-drop", True, {"kind": "drop", "times": 1}),
    Variant("mcp-tool-error-persistent", False, {"kind": "tool_error", "times": -1}),
    Variant("mcp-timeout-persistent", False, {"kind": "timeout", "seconds": 2.0, "times": -1}),
    Variant("mcp-drop-persistent", False, {"kind": "drop", "times": -1}),
]
BY_NAME = {v.name: v for v in VARIANTS + MCP_VARIANTS}


def endpoint_of(method: str, path: str) -> str | None:
    p = path.split("?", 1)[0]
    for name, (m, rx) in ENDPOINTS.items():
        if m == method and re.search(rx, p):
            return name
    return None


def endpoints_hit(requests: list[tuple[str, str]]) -> list[str]:
    seen = {endpoint_of(m, p) for m, p in requests}
    return [e for e in ENDPOINTS if e in seen]


def history_pages(requests: list[tuple[str, str]]) -> int:
    return sum(1 for m, p in requests if endpoint_of(m, p) == "history")


def plan(endpoints: list[str]) -> list[tuple[str, str]]:
    """(variant, endpoint) pairs to run for a scenario whose fault-free run touched ``endpoints``.

    The 5xx variants carry their code in the name (``5xx:502``, ``5xx-persistent:500``)."""
    out = []
    for i, ep in enumerate(endpoints):
        for v in VARIANTS:
            if not v.applies(ep):
                continue
            if v.name == "5xx":
                out.append((f"5xx:{CODES[i % 3]}", ep))
            elif v.name == "5xx-persistent":
                out.append((f"5xx-persistent:{CODES[(i + 2) % 3]}", ep))
            else:
                out.append((v.name, ep))
    return out


def variant_of(name: str) -> tuple[Variant, int | None]:
    base, _, code = name.partition(":")
    return BY_NAME[base], int(code) if code else None


def fault_spec(variant: str, endpoint: str, base_requests: list[tuple[str, str]]) -> dict:
    v, code = variant_of(variant)
    method, rx = ENDPOINTS[endpoint]
    spec = {"path": rx, "method": method, **v.spec}
    if code is not None:
        spec["status"] = code
    if v.spec.get("kind") == "truncate" and endpoint == "history" and history_pages(base_requests) > 1:
        spec["query"] = r"(?:^|&)offset=50(?:&|$)"  # cut the second page: the first was read fine
    return spec


def request_bound(base_requests: int) -> int:
    """No loop: at most every request retried, plus the page cap of each paged read, plus a token refresh."""
    return MAX_ATTEMPTS * base_requests + MAX_PAGES * len(PAGED) * MAX_ATTEMPTS + 4


def evaluate(sc: Scenario, base_verdict: tuple, base_requests: int, variant: str, endpoint: str,
             run: LiveRun) -> list[str]:
    """The properties of one fault run; an empty list means it passed."""
    v, _ = variant_of(variant)
    problems: list[str] = []
    if run.error_kind == "crash":
        return [f"crashed: {run.error}"]
    bound = request_bound(base_requests)
    if len(run.requests) > bound:
        problems.append(f"{len(run.requests)} requests > bound {bound} (a loop?)")
    texts = {}
    if run.result is not None:
        texts["result"] = run.result.model_dump_json()
    if run.error:
        texts["error"] = run.error
    leaks = checks.secret_leaks(texts, run.secrets)
    problems += [f"leak: {x}" for x in leaks]
    if run.fired == 0:
        # the endpoint was not reached on this path (e.g. a 404 cut it short): it is a plain run, which must be right
        if run.result is None or checks.verdict_of(run.result) != tuple(base_verdict):
            problems.append("fault never fired, yet the verdict changed")
        return problems
    if run.error_kind is not None:
        if v.transient:
            problems.append(f"transient fault was fatal: {run.error_kind}: {run.error}")
        elif endpoint not in FATAL_OK:
            problems.append(f"fatal {run.error_kind} for a fault on {endpoint}: {run.error}")
        elif run.error_kind != "unavailable":
            problems.append(f"fatal {run.error_kind} (expected 'unavailable', exit 3): {run.error}")
        return problems
    res = run.result
    assert res is not None
    problems += [f"invalid result: {x}" for x in checks.validity_problems(res)]
    corpus = checks.Corpus([b for _, _, _, b in run.exchanges], [p for _, p in run.requests], sc.args.model_dump())
    problems += [f"invented value: {x}" for x in checks.invented_values(res.report, corpus)]
    got = checks.verdict_of(res)
    exp = tuple(base_verdict)
    if v.transient:
        if got != exp:
            problems.append(f"transient fault changed the verdict {exp} -> {got}")
        elif sc.expected.recurrence is not None and res.recurrence and res.recurrence.count != sc.expected.recurrence:
            problems.append(f"transient fault changed the recurrence count to {res.recurrence.count}")
        if variant.startswith("429") and 1.0 not in run.sleeps:
            problems.append(f"Retry-After: 1 not honoured (slept {run.sleeps})")
        return problems
    if got != exp and not _less_specific(exp, got, endpoint):
        problems.append(f"persistent fault changed the verdict {exp} -> {got} (not merely less specific)")
    if got == exp and sc.expected.recurrence is not None and res.recurrence and \
            res.recurrence.count > sc.expected.recurrence:
        problems.append(f"persistent fault inflated the recurrence count to {res.recurrence.count}")
    words = MENTIONS.get(endpoint, ())
    lim = " ".join(res.limitations).lower()
    hits = sum(1 for m, p in run.requests if endpoint_of(m, p) == endpoint)
    if variant.startswith("next-") and hits <= 1 and got == exp:
        return problems  # an empty first page ended the read: the bad ``next`` was never followed, nothing was lost
    if endpoint == "events" and got == exp and exp[2] == "no_matching_workload" and any(
            st == 404 and endpoint_of(m, p) == "workload" for m, p, st, _ in run.exchanges):
        return problems  # the workload does not exist (404): its events could not matter
    if not any(w in lim for w in words):
        problems.append(f"no limitation names the failed {endpoint} read ({variant})")
    return problems


# Fault-run failures that come from a defect reported to the lead and not fixed yet (the file is not ours to
# change). They are reported as expected failures (xfail) with the reason, never silently accepted.
KNOWN_DEFECTS: list[tuple[str, object]] = []


def known_defect(endpoint: str, transient: bool, exp, got) -> str | None:
    for text, pred in KNOWN_DEFECTS:
        if got is not None and pred(endpoint, transient, tuple(exp), tuple(got)):  # type: ignore[operator]
            return text
    return None


def _less_specific(exp, got, endpoint: str) -> bool:
    """Degraded but honest: UNKNOWN instead of a category, or a question when the lookup itself failed."""
    if got in (("diagnosed", "UNKNOWN", None), ("diagnosed", "UNDETERMINED", None)):
        return True  # a category's or a snapshot's state that says the evidence does not decide
    if got[0] == "needs_input" and got[2] == "no_matching_workload" and endpoint in ("list", "workload", "events"):
        return True  # the lookup itself failed: asking for the workload id is the honest answer
    if got == ("needs_input", None, "running_without_failure") and endpoint in ("events", "history") \
            and exp[0] == "diagnosed":
        return True  # a Running workload whose crash evidence could not be read: asking is the honest answer
    if exp == ("routed", None, "pod_start") and endpoint == "pods" and got[0] == "diagnosed":
        return True  # pending: a start failure only the pods show; unread, the status decides (the skill's rule)
    return False
