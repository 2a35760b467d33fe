"""A Run:ai control-plane simulator: a real HTTP server on 127.0.0.1 serving a scenario "world" through the
real API paths (``shared/reference/runai-api.md``). Responses are shaped to validate against Run:ai's OpenAPI
spec (tests check that). It is how cassettes are recorded and how the demo runs.

A world is JSON::

    {"workloads": [Workload, ...],                 # compact: missing required fields get neutral defaults
     "events":  {"<workloadId>": [Event, ...] | null},   # null → the events endpoint fails (HTTP 500)
     "pods":    {"<workloadId>": [Pod, ...]},
     "history": {"<workloadId>": [HistoryRecord, ...]},  # any order; served newest first
     "metrics": {"<workloadId>": {"CPU_MEMORY_USAGE_BYTES": [{"value": "1", "timestamp": "..."}], ...}},
     "specs":   {"<workloadId>": {...flat spec body...}},  # absent → 404 on the per-kind endpoint
     "faults":  [{"path": "regex", "status": 503, "times": 1, ...}],  # optional, see evals.faults (status, 429 +
                                                                      # Retry-After, timeout, malformed, short read,
                                                                      # wrong shape, endless/repeated next, truncated
                                                                      # page, metric garbage)
     "auth":    {"v1": false},                                        # optional: only the v2 OAuth2 token flow
     "clusters": [{"uuid": "...", "name": "..."}],  # optional: GET /api/v1/clusters; default one per clusterId
     "projects": [...], "nodepools": [...],  # optional: GET /api/v1/org-unit/projects, /api/v1/node-pools
                                             # (format: evals/simulator_orgunits.py)
     "nodes": [...], "nodepool_gpus": {...}}  # optional: GET /api/v1/nodes, a node pool's GPU metrics
                                             # (format: evals/simulator_nodes.py)
"""
from __future__ import annotations

import contextlib
import copy
import json
import re
import secrets
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qsl, urlsplit

TENANT = 1001
_FILTER = re.compile(r"^(?P<field>[A-Za-z]+)(?P<op>==|!=|<=|>=|=@|!@|=\^|=\$)(?P<value>.*)$")


def _ts(v: str | None) -> float:
    if not v:
        return 0.0
    s = v.replace(" ", "T", 1) if "T" not in v else v
    s = s[:-1] + "+00:00" if s.endswith("Z") else s
    try:
        dt = datetime.fromisoformat(s)
    except ValueError:
        return 0.0
    return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).timestamp()


def _uuid_for(*parts: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "/".join(parts)))


def complete_workload(w: dict) -> dict:
    """Fill the OpenAPI-required Workload fields a compact world leaves out, with neutral values."""
    w = copy.deepcopy(w)
    created = w.get("createdAt") or "2026-01-01T00:00:00Z"
    project = w.get("projectName") or "default"
    defaults = {"type": "Training", "source": "Control-plane", "priority": 50, "priorityClassName": "train",
                "projectId": "1", "departmentName": "default", "departmentId": "1",
                "namespace": f"runai-{project}", "createdAt": created, "conditions": [], "k8sPhase": "",
                "tenantId": TENANT, "runningPods": 0, "phaseUpdatedAt": created, "k8sPhaseUpdatedAt": created,
                "updatedAt": w.get("phaseUpdatedAt") or created, "deletedAt": None, "category": "Train",
                "projectName": project}
    for k, v in defaults.items():
        w.setdefault(k, v)
    return w


def complete_pod(p: dict, w: dict) -> dict:
    p = copy.deepcopy(p)
    created = p.get("createdAt") or w.get("createdAt") or "2026-01-01T00:00:00Z"
    defaults = {"priorityClassName": w.get("priorityClassName", "train"), "id": _uuid_for(w["id"], p["name"]),
                "workloadId": w["id"], "clusterId": w.get("clusterId"), "createdAt": created, "containers": [],
                "k8sPhase": "Unknown", "tenantId": TENANT, "k8sPhaseUpdatedAt": p.get("completedAt") or created,
                "updatedAt": p.get("completedAt") or created, "projectName": w.get("projectName"),
                "workloadName": w.get("name")}
    for k, v in defaults.items():
        p.setdefault(k, v)
    return p


def complete_event(e: dict, w: dict) -> dict:
    e = copy.deepcopy(e)
    e.setdefault("clusterId", w.get("clusterId"))
    e.setdefault("type", "Normal")
    e.setdefault("message", "")
    e.setdefault("createdAt", w.get("phaseUpdatedAt") or "2026-01-01T00:00:00Z")
    e.setdefault("id", _uuid_for(w["id"], "event", e.get("createdAt", ""), e.get("reason", ""), e.get("message", "")))
    io = e.get("involvedObject")
    if isinstance(io, dict):
        io.setdefault("kind", "Pod")
        io.setdefault("namespace", w.get("namespace") or f"runai-{w.get('projectName')}")
        io.setdefault("uid", _uuid_for(w["id"], "obj", io.get("name", "")))
    return e


def complete_record(r: dict, w: dict) -> dict:
    r = copy.deepcopy(r)
    spec = r.setdefault("spec", {})
    meta = r.setdefault("meta", {})
    if "event" in spec and spec["event"] is not None:
        spec["event"] = complete_event(spec["event"], w)
        meta.setdefault("type", "Event")
        meta.setdefault("creationTimestamp", spec["event"]["createdAt"])
    elif "phaseUpdate" in spec:
        meta.setdefault("type", "PhaseUpdate")
        spec["phaseUpdate"].setdefault("phaseMessage", "")
    meta.setdefault("creationTimestamp", "2026-01-01T00:00:00Z")
    return r


def complete_spec(s: dict, w: dict) -> dict:
    s = copy.deepcopy(s)
    defaults = {"name": w["name"], "requestedName": w["name"], "workloadId": w["id"], "projectId": w.get("projectId", "1"),
                "clusterId": w.get("clusterId"), "createdBy": w.get("submittedBy", "researcher@example.com"),
                "createdAt": w.get("createdAt"), "desiredPhase": "Running", "actualPhase": w.get("phase"),
                "spec": {}}
    for k, v in defaults.items():
        s.setdefault(k, v)
    return s


@dataclass
class World:
    data: dict

    @classmethod
    def load(cls, path_or_dict: str | Path | dict) -> "World":
        if isinstance(path_or_dict, dict):
            return cls(copy.deepcopy(path_or_dict))
        p = Path(path_or_dict)
        if p.is_dir():
            p = p / "world.json"
        return cls(json.loads(p.read_text()))

    def workloads(self) -> list[dict]:
        return [copy.deepcopy(w) for w in self._completed()[0]]

    def workload(self, wid: str) -> dict | None:
        w = self._completed()[1].get(wid)
        return copy.deepcopy(w) if w is not None else None

    def _completed(self) -> tuple[list[dict], dict[str, dict]]:
        """The completed workloads and an id index, built once per workloads list (a fleet world has thousands)."""
        raw = self.data.get("workloads", [])
        key = (id(raw), len(raw))
        if getattr(self, "_cache_key", None) != key:
            done = [complete_workload(w) for w in raw]
            index: dict[str, dict] = {}
            for w in done:
                index.setdefault(w["id"], w)
            self._cache, self._cache_key = (done, index), key
        return self._cache

    def clusters(self) -> list[dict]:
        """The world's ``clusters``, else one per distinct workload ``clusterId`` named ``gpu-<first 8 hex>``."""
        if self.data.get("clusters") is not None:
            listed = self.data["clusters"]
        else:
            ids = dict.fromkeys(w["clusterId"] for w in self.workloads() if w.get("clusterId"))
            listed = [{"uuid": cid, "name": default_cluster_name(cid)} for cid in ids]
        return [{"tenantId": TENANT, "createdAt": "2026-01-01T00:00:00Z", "version": "2.22.0", **c} for c in listed]


def default_cluster_name(cluster_id: str) -> str:
    return f"gpu-{cluster_id[:8].lower()}"


class SimServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, world: World, delay_ms: int = 0):
        super().__init__(addr, Handler)
        self.world = world
        self.delay = delay_ms / 1000.0
        self.client_id = "sim-client"
        self.client_secret = "sim-secret-" + secrets.token_hex(8)
        self.tokens: set[str] = set()
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str]] = []  # (method, path?query) in arrival order
        self.exchanges: list[tuple[str, str, int, bytes]] = []  # (method, path?query, status, body) as served
        self.answered: list[tuple[str, str, int]] = []  # (method, path?query, status) of every answer sent
        self.inflight = 0
        self.max_inflight = 0  # the most requests being served at once (proves the client overlaps reads)
        self.timeline: list[tuple[float, float]] = []  # (arrived, answered) of each answer, perf_counter seconds
        from workload_diagnose.evals.faults import FaultPlan

        self.faults = FaultPlan(world.data.get("faults") or [])

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def handle_error(self, request, client_address):  # noqa: D401
        """A client that gave up (timeout fault) closes its socket: that is expected, not an error to print."""
        import sys

        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError, OSError)):
            return
        super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    server: SimServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: without this, keep-alive stalls 40 ms

    def log_message(self, *a):  # quiet
        pass

    def send_response(self, code, message=None):  # records the status of every answer (retries vs duplicates)
        with self.server.lock:
            self.server.answered.append((self.command, self.path, code))
        super().send_response(code, message)

    # ------------------------------------------------------------------ plumbing
    def _send(self, status: int, body: Any, headers: dict | None = None, raw: bytes | None = None,
              declared_length: int | None = None) -> None:
        post = getattr(self, "_post_fault", None)
        if post is not None and raw is None and 200 <= status < 300:
            self._post_fault = None
            return post.transform(self, status, body)
        data = raw if raw is not None else json.dumps(body).encode()
        with self.server.lock:
            self.server.exchanges.append((self.command, self.path, status, data))
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(declared_length if declared_length is not None else len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        arrived = getattr(self, "_arrived", None)
        if arrived is not None:
            with self.server.lock:
                self.server.timeline.append((arrived, time.perf_counter()))
        if declared_length is not None and declared_length > len(data):
            self.close_connection = True  # a short read: the peer sees the connection end mid-body

    def _error(self, status: int, message: str) -> None:
        self._send(status, {"code": status, "message": message})

    def _pre(self) -> tuple[str, list[tuple[str, str]]] | None:
        parts = urlsplit(self.path)
        # read the request body first: a fault that answers early must not leave it in the keep-alive stream
        length = int(self.headers.get("Content-Length") or 0)
        self._raw_body = self.rfile.read(length) if length else b""
        self._arrived = time.perf_counter()
        with self.server.lock:
            self.server.requests.append((self.command, self.path))
            self.server.inflight += 1
            self.server.max_inflight = max(self.server.max_inflight, self.server.inflight)
        try:
            if self.server.delay:
                time.sleep(self.server.delay)
        finally:
            with self.server.lock:
                self.server.inflight -= 1
        self._post_fault = None
        fault = self.server.faults.match(self.command, parts.path, parts.query)
        if fault is not None:
            if fault.is_post:
                self._post_fault = fault  # shapes the real response (pages, truncation, metric values)
            else:
                fault.apply(self)
                return None
        return parts.path, parse_qsl(parts.query, keep_blank_values=True)

    def _authorized(self) -> bool:
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Bearer ") or auth[7:] not in self.server.tokens:
            self._error(401, "Unauthorized")
            return False
        return True

    # ------------------------------------------------------------------ verbs
    def do_POST(self):  # noqa: N802
        pre = self._pre()
        if pre is None:
            return
        path, _ = pre
        body = self._raw_body
        auth = self.server.world.data.get("auth") or {}
        if path == "/api/v1/token" and auth.get("v1", True) is False:
            return self._error(404, "no such path")
        if path == "/api/v1/token":
            try:
                req = json.loads(body or b"{}")
            except ValueError:
                return self._error(400, "invalid JSON")
            if req.get("grantType") != "client_credentials":
                return self._error(400, "unsupported grantType")
            if req.get("clientID") != self.server.client_id or req.get("clientSecret") != self.server.client_secret:
                return self._error(401, "invalid client credentials")
            token = secrets.token_urlsafe(24)
            with self.server.lock:
                self.server.tokens.add(token)
            return self._send(200, {"accessToken": token, "idToken": token, "refreshToken": secrets.token_urlsafe(16),
                                    "expiresIn": 3600})
        if path == "/api/v2/token":
            form = dict(parse_qsl(body.decode(errors="replace")))
            if form.get("client_id") != self.server.client_id or form.get("client_secret") != self.server.client_secret:
                return self._send(401, {"error": "invalid_client", "error_description": "bad credentials"})
            token = secrets.token_urlsafe(24)
            with self.server.lock:
                self.server.tokens.add(token)
            return self._send(200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600})
        return self._error(405, "method not allowed")

    def do_PUT(self):  # noqa: N802
        self._error(405, "method not allowed")

    do_DELETE = do_PATCH = do_PUT

    def do_GET(self):  # noqa: N802
        pre = self._pre()
        if pre is None:
            return
        path, query = pre
        if not self._authorized():
            return
        q: dict[str, list[str]] = {}
        for k, v in query:
            q.setdefault(k, []).append(v)
        w = self.server.world
        m = re.fullmatch(r"/api/v1/workloads", path)
        if m:
            return self._list(q)
        if path == "/api/v1/clusters":
            return self._send(200, w.clusters())
        from workload_diagnose.evals.simulator_nodes import serve as serve_nodes
        from workload_diagnose.evals.simulator_orgunits import serve as serve_orgunits

        answer = serve_orgunits(path, q, w.data) or serve_nodes(path, q, w.data)
        if answer is not None:
            return self._send(*answer)
        m = re.fullmatch(r"/api/v1/workloads/(trainings|workspaces|inferences|distributed)/([^/]+)", path)
        if m:
            wl = w.workload(m.group(2))
            spec = (w.data.get("specs") or {}).get(m.group(2))
            if wl is None or spec is None or _kind_of(wl) != m.group(1):
                return self._error(404, "Resource id not found.")
            return self._send(200, complete_spec(spec, wl))
        m = re.fullmatch(r"/api/v1/workloads/([^/]+)(/(pods|events|history|metrics))?", path)
        if not m:
            return self._error(404, "no such path")
        wl = w.workload(m.group(1))
        if wl is None:
            return self._error(404, "Resource id not found.")
        sub = m.group(3)
        if sub is None:
            return self._send(200, wl)
        if sub == "events":
            evs = (w.data.get("events") or {}).get(wl["id"], [])
            if evs is None:
                return self._error(500, "events backend unavailable")
            evs = sorted((complete_event(e, wl) for e in evs), key=lambda e: _ts(e["createdAt"]),
                         reverse=(q.get("sortOrder", ["desc"])[0] != "asc"))
            return self._send(200, self._page({"events": evs}, "events", q))
        if sub == "pods":
            pods = [complete_pod(p, wl) for p in (w.data.get("pods") or {}).get(wl["id"], [])]
            return self._send(200, self._page({"pods": pods}, "pods", q))
        if sub == "history":
            recs = [complete_record(r, wl) for r in (w.data.get("history") or {}).get(wl["id"], [])]
            recs.sort(key=lambda r: _ts(r["meta"]["creationTimestamp"]), reverse=True)
            return self._send(200, self._page({"records": recs}, "records", q))
        if sub == "metrics":
            return self._metrics(wl, q)
        return self._error(404, "no such path")

    # ------------------------------------------------------------------ endpoints
    def _page(self, body: dict, key: str, q: dict) -> dict:
        try:
            offset = int(q.get("offset", ["0"])[0])
            limit = int(q.get("limit", ["50"])[0])
        except ValueError:
            offset, limit = 0, 50
        limit = max(1, min(limit, 500))
        items = body[key]
        post = getattr(self, "_post_fault", None)
        if post is not None and post.kind in ("next_endless", "next_repeats"):
            self._post_fault = None
            # next_endless: every page repeats the first page and points one page further, forever;
            # next_repeats: every page repeats the first page and names the same ``next`` (one page) again.
            if post.kind == "next_endless":
                return {key: items[:limit], "next": offset + limit}
            return {key: items[:limit], "next": limit}
        page = items[offset: offset + limit]
        out = {key: page}
        if offset + limit < len(items):
            out["next"] = offset + limit
        return out

    def _list(self, q: dict) -> None:
        items = self.server.world.workloads()
        for f in q.get("filterBy", []):
            fm = _FILTER.match(f)
            if not fm:
                return self._error(400, f"invalid filterBy {f!r}")
            field, op, value = fm.group("field"), fm.group("op"), fm.group("value")
            if op not in _FILTER_OPS:
                return self._error(400, "the simulator supports only the == != <= >= filters")
            if op in ("<=", ">=") and not field.endswith("At"):
                return self._error(400, f"{op} is supported on dates only (ISO 8601), not on {field!r}")
            items = [w for w in items if _filter_match(w.get(field), op, value, field.endswith("At"))]
        sort_by = q.get("sortBy", [None])[0]
        if sort_by:
            desc = q.get("sortOrder", ["asc"])[0] == "desc"
            key = (lambda w: _ts(w.get(sort_by))) if sort_by.endswith("At") else (lambda w: str(w.get(sort_by)))
            items.sort(key=key, reverse=desc)
        self._send(200, self._page({"workloads": items}, "workloads", q))

    def _metrics(self, wl: dict, q: dict) -> None:
        types: list[str] = []
        for v in q.get("metricType", []):  # repeated, or comma-separated (the spec's explode: false form)
            types += [t for t in v.split(",") if t]
        if not types or "start" not in q or "end" not in q:
            return self._error(400, "metricType, start and end are required")
        start, end = _ts(q["start"][0]), _ts(q["end"][0])
        if not start or not end or end < start:
            return self._error(400, "invalid start/end")
        series = (self.server.world.data.get("metrics") or {}).get(wl["id"], {})
        out = []
        for t in types:
            vals = [v for v in series.get(t, []) if not v.get("timestamp") or start <= _ts(v["timestamp"]) <= end]
            out.append({"type": t, "labels": None, "values": vals})
        self._send(200, {"measurements": out})


_FILTER_OPS = ("==", "!=", "<=", ">=")


def _filter_match(have: Any, op: str, value: str, is_date: bool) -> bool:
    """One ``filterBy`` term as the API documents it: dates (ISO 8601) compare as instants with ``== != <= >=``."""
    if is_date:
        a, b = _ts(have) if isinstance(have, str) else 0.0, _ts(value)
        if not a or not b:  # a workload without the date, or an unparsable value, matches no date comparison
            return op == "!="
        return {"==": a == b, "!=": a != b, "<=": a <= b, ">=": a >= b}[op]
    return (str(have) == value) if op == "==" else (str(have) != value)


def _kind_of(w: dict) -> str:
    from workload_diagnose.tools.runai import spec_kind_path

    return spec_kind_path(w.get("type")) or ""


def dependent_depth(timeline: list[tuple[float, float]]) -> int:
    """The longest chain of requests each sent after the one before it was answered (``SimServer.timeline``):
    for requests of one diagnosis at a time, its dependent round trips (requests that overlap count once)."""
    depth: list[tuple[float, int]] = []  # (answered, chain length ending there), in arrival order
    best = 0
    for arrived, answered in sorted(timeline):
        d = 1 + max((n for done, n in depth if done <= arrived), default=0)
        depth.append((answered, d))
        best = max(best, d)
    return best


@contextlib.contextmanager
def running_simulator(world: World | dict | str | Path, port: int = 0, delay_ms: int = 0):
    wd = world if isinstance(world, World) else World.load(world)
    srv = SimServer(("127.0.0.1", port), wd, delay_ms=delay_ms)
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.005}, name="runai-simulator",
                         daemon=True)
    t.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()


def serve_forever(world: str | Path | dict, port: int = 8780, delay_ms: int = 0,
                  banner: Callable[[SimServer], str] | None = None) -> None:
    """Serve until Ctrl-C; ``banner(server)`` is printed once it listens (default: its URL and credentials)."""
    wd = World.load(world)
    srv = SimServer(("127.0.0.1", port), wd, delay_ms=delay_ms)
    text = banner(srv) if banner is not None else (
        f"Run:ai simulator on {srv.url}\nexport RUNAI_BASE_URL={srv.url}\nexport RUNAI_CLIENT_ID={srv.client_id}\n"
        f"export RUNAI_CLIENT_SECRET={srv.client_secret}")
    print(text, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()
