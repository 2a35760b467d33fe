"""Tier-2 Kubernetes evidence: a read-only, bounded wrapper over the official ``kubernetes`` client.

``KubeReader`` answers the four ``kubectl`` questions of the diagnose skill (Step 4) and nothing else::

    kubectl describe pod <pod> -n <ns>                                   -> get_pod / find_pods
    kubectl logs <pod> -n <ns> -c <container> --previous                 -> previous_log
    kubectl get events -n <ns> --field-selector involvedObject.name=<pod> -> pod_events
    kubectl describe node <node>                                         -> get_node

Guarantees:

* **Read-only at the transport.** The reader's ``ApiClient`` is a :class:`ReadOnlyApiClient` whose REST client,
  urllib3 ``PoolManager`` and every connection pool refuse any method but ``GET``/``HEAD`` (and the
  ``exec``/``attach``/``portforward``/``proxy`` subresources and ``secrets``) with :class:`KubeWriteRefused`
  *before* a connection is opened, whoever calls them (``CoreV1Api(reader.api_client).delete_namespaced_pod``,
  ``reader.api_client.call_api(..., "DELETE")``, ``kubernetes.stream.stream(...)``, the pool manager itself).
  This guards against mistakes, not against hostile code in the same process.
* **Bounded.** Short timeouts (connect 3 s, read 10 s), at most one reconnect, lists ``limit=100`` and a page cap,
  logs read in chunks and never more than ``limit_bytes + 1`` bytes, whatever the server sends.
* **Sanitised.** Every free-text string from the cluster goes through ``guardrails.sanitize_text``; injection
  findings are collected in each model's ``injections`` list.
* **Typed errors.** Every failure is a :class:`KubeError` with ``kind`` in
  ``unavailable | unauthorized | forbidden | not_found | error``.
* **Replayable.** Plain request/response GETs over urllib3 (no watch, no websocket): vcrpy can record and replay
  them (use ``filter_headers=["authorization"]``).
"""
from __future__ import annotations

import os
import re
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Literal
from urllib.parse import unquote, urlsplit

import urllib3
from pydantic import BaseModel, Field

try:  # the project's shared "nothing was sent" exception, when present
    from tools.base import WriteRefused as _WriteRefusedBase
except Exception:  # pragma: no cover - tools.base is part of this package
    _WriteRefusedBase = Exception  # type: ignore[misc,assignment]

__all__ = [
    "CONNECT_TIMEOUT_S",
    "READ_TIMEOUT_S",
    "LIST_LIMIT",
    "LOG_CHUNK_BYTES",
    "KubeErrorKind",
    "KubeError",
    "KubeWriteRefused",
    "check_read_request",
    "ReadOnlyRESTClient",
    "ReadOnlyApiClient",
    "Condition",
    "ContainerFacts",
    "PodFacts",
    "LogExcerpt",
    "KubeEvent",
    "Taint",
    "NodeFacts",
    "KubeReader",
    "describe_pod_cmd",
    "logs_cmd",
    "events_cmd",
    "describe_node_cmd",
    "kubeconfig_for",
]

CONNECT_TIMEOUT_S = 3.0
READ_TIMEOUT_S = 10.0
LIST_LIMIT = 100
MAX_LIST_PAGES = 5  # find_pods' name-prefix fallback looks at no more than 500 pods
LOG_CHUNK_BYTES = 64 * 1024
DEFAULT_TAIL_LINES = 200
DEFAULT_LIMIT_BYTES = 262_144
MAX_LOG_LINE_CHARS = 4096
GPU_RESOURCE = "nvidia.com/gpu"
WORKLOAD_LABEL_KEYS = ("workloadName", "release", "job-name")

KubeErrorKind = Literal["unavailable", "unauthorized", "forbidden", "not_found", "error"]


# --------------------------------------------------------------------------------------------------- errors


class KubeError(Exception):
    """Any failed Kubernetes read, typed. ``status`` is the HTTP status when the server answered."""

    def __init__(self, kind: KubeErrorKind, message: str, status: int | None = None):
        super().__init__(f"{kind}: {message}" + (f" (HTTP {status})" if status else ""))
        self.kind: KubeErrorKind = kind
        self.message = message
        self.status = status

    def __reduce__(self):  # picklable (xdist, caching)
        return (self.__class__, (self.kind, self.message, self.status))


class KubeWriteRefused(_WriteRefusedBase):
    """A non-read Kubernetes request was attempted through the read-only client. Nothing was sent."""


# ------------------------------------------------------------------------------------ read-only transport

_READ_METHODS = frozenset({"GET", "HEAD"})
# GET-based subresources that act on the cluster (run commands, open tunnels) are not reads.
_REFUSED_SUBRESOURCES = frozenset({"exec", "attach", "portforward", "proxy"})
# Credential contents are never requested (the skill's rule); a missing secret shows in events anyway.
_REFUSED_RESOURCES = frozenset({"secrets"})


def check_read_request(method: Any, url: Any) -> None:
    """Raise :class:`KubeWriteRefused` unless ``method url`` is a plain read. Unknown is refused."""
    m = str(method or "").upper()
    if m not in _READ_METHODS:
        raise KubeWriteRefused(f"refused {m or '?'} {url}: the Kubernetes reader is read-only (GET/HEAD only)")
    try:
        path = urlsplit(str(url)).path
    except ValueError as e:
        raise KubeWriteRefused(f"refused {m} {url!r}: unparseable URL") from e
    segs = [unquote(s) for s in path.split("/") if s]
    if len(segs) >= 2 and segs[0] == "api":
        rest = segs[2:]
    elif len(segs) >= 3 and segs[0] == "apis":
        rest = segs[3:]
    else:
        return  # discovery, /version, /healthz, /openapi ...
    if rest and rest[0] == "watch":  # legacy /api/v1/watch/... paths
        rest = rest[1:]
    if rest and rest[0] == "proxy":  # legacy /api/v1/proxy/...
        raise KubeWriteRefused(f"refused {m} {path}: proxy requests are not reads")
    if len(rest) >= 3 and rest[0] == "namespaces":
        rest = rest[2:]
    if rest and rest[0] in _REFUSED_RESOURCES:
        raise KubeWriteRefused(f"refused {m} {path}: reading {rest[0]} is not allowed (credential contents)")
    if len(rest) >= 3 and rest[2] in _REFUSED_SUBRESOURCES:
        raise KubeWriteRefused(f"refused {m} {path}: the {rest[2]} subresource is not a read")


_guarded_pool_classes: dict[type, type] = {}
_guarded_lock = threading.Lock()


def _guarded_pool_class(cls: type) -> type:
    """A subclass of a urllib3 connection pool class that checks every request it would make.

    Only ``urlopen``/``_make_request`` are overridden, so vcrpy's class-level patches of ``ConnectionCls``,
    ``_get_conn`` and ``_new_conn`` on the base classes still apply.
    """
    with _guarded_lock:
        if cls in _guarded_pool_classes or getattr(cls, "_wd_read_only", False):
            return _guarded_pool_classes.get(cls, cls)

        def urlopen(self, method, url, *args, **kwargs):
            check_read_request(method, url)
            return super(guarded, self).urlopen(method, url, *args, **kwargs)

        def _make_request(self, conn, method, url, *args, **kwargs):
            check_read_request(method, url)
            return super(guarded, self)._make_request(conn, method, url, *args, **kwargs)

        guarded = type(
            "ReadOnly" + cls.__name__,
            (cls,),
            {"urlopen": urlopen, "_make_request": _make_request, "_wd_read_only": True, "__module__": __name__},
        )
        _guarded_pool_classes[cls] = guarded
        return guarded


_guarded_managers: dict[type, type] = {}


def _harden_pool_manager(pm: Any) -> None:
    """Make a PoolManager/ProxyManager (and every pool it will create) refuse non-read requests."""
    cls = type(pm)
    if not getattr(cls, "_wd_read_only", False):
        with _guarded_lock:
            guarded = _guarded_managers.get(cls)
            if guarded is None:

                def urlopen(self, method, url, *args, **kwargs):
                    check_read_request(method, url)
                    return super(guarded_cls, self).urlopen(method, url, *args, **kwargs)

                guarded_cls = type(
                    "ReadOnly" + cls.__name__,
                    (cls,),
                    {"urlopen": urlopen, "_wd_read_only": True, "__module__": __name__},
                )
                guarded = _guarded_managers[cls] = guarded_cls
        pm.__class__ = guarded
    pm.pool_classes_by_scheme = {k: _guarded_pool_class(v) for k, v in pm.pool_classes_by_scheme.items()}
    pm.clear()  # no pool created before hardening survives


def _kube_client():
    from kubernetes import client

    return client


def _rest_base():
    from kubernetes.client import rest

    return rest.RESTClientObject


def _api_client_base():
    from kubernetes.client import api_client

    return api_client.ApiClient


_SEAL = "_wd_sealed"


class _ReadOnlyRESTClientMixin:
    _wd_timeouts: tuple[float, float] = (CONNECT_TIMEOUT_S, READ_TIMEOUT_S)

    def request(self, method, url, headers=None, body=None, post_params=None, _request_timeout=None):
        check_read_request(method, url)
        if _request_timeout is None:
            _request_timeout = self._wd_timeouts
        return super().request(  # type: ignore[misc]
            method, url, headers=headers, body=body, post_params=post_params, _request_timeout=_request_timeout
        )

    def __setattr__(self, name, value):
        if getattr(self, _SEAL, False) and name in ("pool_manager", "request", "__class__"):
            raise KubeWriteRefused(f"refused to replace {name} of the read-only REST client")
        super().__setattr__(name, value)


def _make_rest_client_class():
    return type("ReadOnlyRESTClient", (_ReadOnlyRESTClientMixin, _rest_base()), {"__module__": __name__})


class _ReadOnlyApiClientMixin:
    def call_api(self, method, url, *args, **kwargs):
        check_read_request(method, url)
        return super().call_api(method, url, *args, **kwargs)  # type: ignore[misc]

    def __setattr__(self, name, value):
        if getattr(self, _SEAL, False) and name in ("rest_client", "call_api", "request", "__class__"):
            raise KubeWriteRefused(
                f"refused to replace {name} of the read-only ApiClient (websocket exec/attach/portforward and "
                "transport swaps are not allowed)"
            )
        super().__setattr__(name, value)


_classes: dict[str, type] = {}


def _ro_classes() -> tuple[type, type]:
    if not _classes:
        _classes["rest"] = _make_rest_client_class()
        _classes["api"] = type(
            "ReadOnlyApiClient", (_ReadOnlyApiClientMixin, _api_client_base()), {"__module__": __name__}
        )
    return _classes["rest"], _classes["api"]


def ReadOnlyRESTClient(configuration: Any, timeouts: tuple[float, float] | None = None) -> Any:  # noqa: N802
    """A ``kubernetes.client.rest.RESTClientObject`` that refuses non-reads at three layers."""
    rest_cls, _ = _ro_classes()
    rc = rest_cls(configuration)
    _harden_pool_manager(rc.pool_manager)
    if timeouts:
        object.__setattr__(rc, "_wd_timeouts", tuple(timeouts))
    object.__setattr__(rc, _SEAL, True)
    return rc


def ReadOnlyApiClient(configuration: Any, timeouts: tuple[float, float] | None = None) -> Any:  # noqa: N802
    """A ``kubernetes.client.ApiClient`` whose transport refuses anything but GET/HEAD reads."""
    _, api_cls = _ro_classes()
    ac = api_cls(configuration)
    base_rest = ac.rest_client
    object.__setattr__(ac, "rest_client", ReadOnlyRESTClient(configuration, timeouts))
    try:
        base_rest.close()
    except Exception:  # pragma: no cover
        pass
    ac.user_agent = "workload-diagnose/0.1 (read-only)"
    object.__setattr__(ac, _SEAL, True)
    return ac


# ----------------------------------------------------------------------------------------------- models


class _Facts(BaseModel):
    source: str = ""  # the kubectl command this evidence corresponds to
    injections: list[Any] = Field(default_factory=list)  # guardrails findings in this object's free text


class Condition(BaseModel):
    type: str
    status: str
    reason: str | None = None
    message: str | None = None
    last_transition_time: datetime | None = None


class ContainerFacts(BaseModel):
    name: str
    image: str | None = None
    is_init: bool = False
    ready: bool | None = None
    restart_count: int | None = None
    state: Literal["waiting", "running", "terminated"] | None = None
    waiting_reason: str | None = None
    waiting_message: str | None = None
    started_at: datetime | None = None
    terminated_reason: str | None = None
    exit_code: int | None = None
    signal: int | None = None
    terminated_message: str | None = None
    finished_at: datetime | None = None
    last_terminated_reason: str | None = None
    last_exit_code: int | None = None
    last_signal: int | None = None
    last_terminated_message: str | None = None
    last_finished_at: datetime | None = None
    requests: dict[str, str] = Field(default_factory=dict)  # spec resources (e.g. {"memory": "32Gi"})
    limits: dict[str, str] = Field(default_factory=dict)


class PodFacts(_Facts):
    name: str
    namespace: str
    node_name: str | None = None
    phase: str | None = None
    reason: str | None = None  # pod-level, e.g. Evicted
    message: str | None = None
    conditions: list[Condition] = Field(default_factory=list)
    containers: list[ContainerFacts] = Field(default_factory=list)
    init_containers: list[ContainerFacts] = Field(default_factory=list)
    start_time: datetime | None = None
    restart_policy: str | None = None
    labels: dict[str, str] = Field(default_factory=dict)

    def container(self, name: str) -> ContainerFacts | None:
        for c in [*self.init_containers, *self.containers]:
            if c.name == name:
                return c
        return None


class LogExcerpt(_Facts):
    pod: str
    namespace: str
    container: str
    previous: bool
    lines: list[str] = Field(default_factory=list)
    bytes_read: int = 0  # bytes actually read from the response stream (<= limit_bytes + 1)
    truncated: bool = False  # the byte cap was reached: older/further output may exist


class KubeEvent(_Facts):
    type: str | None = None
    reason: str | None = None
    message: str | None = None
    count: int | None = None
    first_timestamp: datetime | None = None
    last_timestamp: datetime | None = None  # falls back to series.lastObservedTime / eventTime / firstTimestamp
    source_component: str | None = None
    involved_kind: str | None = None
    involved_name: str | None = None
    name: str | None = None  # the Event object's own name


class Taint(BaseModel):
    key: str
    value: str | None = None
    effect: str | None = None


class NodeFacts(_Facts):
    name: str
    conditions: list[Condition] = Field(default_factory=list)
    taints: list[Taint] = Field(default_factory=list)
    allocatable_gpus: int | None = None
    capacity_gpus: int | None = None
    ready: bool | None = None  # Ready condition: True -> True, False/Unknown -> False, absent -> None
    unschedulable: bool = False


# ------------------------------------------------------------------------------------- kubectl strings


def describe_pod_cmd(ns: str, pod: str) -> str:
    return f"kubectl describe pod {pod} -n {ns}"


def logs_cmd(ns: str, pod: str, container: str, previous: bool = True) -> str:
    return f"kubectl logs {pod} -n {ns} -c {container}" + (" --previous" if previous else "")


def events_cmd(ns: str, pod: str) -> str:
    return f"kubectl get events -n {ns} --field-selector involvedObject.name={pod}"


def describe_node_cmd(node: str) -> str:
    return f"kubectl describe node {node}"


# ------------------------------------------------------------------------------------------- helpers

_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
_LABEL_VALUE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")


def _check_name(what: str, value: Any) -> str:
    if not isinstance(value, str) or not _DNS_SUBDOMAIN.match(value):
        raise KubeError("error", f"invalid {what} name {value!r} (expected a DNS-1123 name)")
    return value


class _Cleaner:
    """Runs every free-text string through guardrails and collects the injection findings."""

    def __init__(self, location: str = "") -> None:
        import guardrails  # lazy: imported when the first object is converted, not at module import

        self._sanitize = guardrails.sanitize_text
        self.location = location
        self.injections: list[Any] = []

    def __call__(self, text: Any, where: str = "") -> str | None:
        if text is None:
            return None
        loc = f"{self.location} {where}".strip()
        s = self._sanitize(str(text), location=loc)
        found = getattr(s, "injections", None) or []
        self.injections.extend(found)
        return s.text


def _g(obj: Any, name: str, default: Any = None) -> Any:
    if obj is None:
        return default
    v = getattr(obj, name, default)
    return default if v is None else v


def _as_int(v: Any) -> int | None:
    if v is None:
        return None
    try:
        return int(str(v).strip())
    except (TypeError, ValueError):
        return None


def _tz(dt: Any) -> datetime | None:
    if dt is None:
        return None
    if isinstance(dt, datetime):
        return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)
    try:
        return datetime.fromisoformat(str(dt).replace("Z", "+00:00"))
    except ValueError:
        return None


def _quantities(d: Any) -> dict[str, str]:
    if not d:
        return {}
    return {str(k): str(v) for k, v in sorted(dict(d).items())}


def _container_facts(spec: Any, status: Any, is_init: bool, clean: _Cleaner) -> ContainerFacts:
    name = _g(spec, "name") or _g(status, "name")
    where = f"{'initContainers' if is_init else 'containers'}[{name}]"
    res = _g(spec, "resources")
    cf = ContainerFacts(
        name=name,
        image=clean(_g(spec, "image") or _g(status, "image"), f"{where}.image"),
        is_init=is_init,
        requests=_quantities(_g(res, "requests")),
        limits=_quantities(_g(res, "limits")),
    )
    if status is None:
        return cf
    cf.ready = _g(status, "ready")
    cf.restart_count = _g(status, "restart_count")
    st = _g(status, "state")
    if _g(st, "waiting") is not None:
        w = st.waiting
        cf.state = "waiting"
        cf.waiting_reason = clean(_g(w, "reason"), f"{where}.state.waiting.reason")
        cf.waiting_message = clean(_g(w, "message"), f"{where}.state.waiting.message")
    elif _g(st, "running") is not None:
        cf.state = "running"
        cf.started_at = _tz(_g(st.running, "started_at"))
    elif _g(st, "terminated") is not None:
        t = st.terminated
        cf.state = "terminated"
        cf.terminated_reason = clean(_g(t, "reason"), f"{where}.state.terminated.reason")
        cf.exit_code = _g(t, "exit_code")
        cf.signal = _g(t, "signal")
        cf.terminated_message = clean(_g(t, "message"), f"{where}.state.terminated.message")
        cf.started_at = _tz(_g(t, "started_at"))
        cf.finished_at = _tz(_g(t, "finished_at"))
    lt = _g(_g(status, "last_state"), "terminated")
    if lt is not None:
        cf.last_terminated_reason = clean(_g(lt, "reason"), f"{where}.lastState.terminated.reason")
        cf.last_exit_code = _g(lt, "exit_code")
        cf.last_signal = _g(lt, "signal")
        cf.last_terminated_message = clean(_g(lt, "message"), f"{where}.lastState.terminated.message")
        cf.last_finished_at = _tz(_g(lt, "finished_at"))
    return cf


def _conditions(items: Iterable[Any] | None, clean: _Cleaner) -> list[Condition]:
    out = []
    for c in items or []:
        out.append(
            Condition(
                type=str(_g(c, "type", "")),
                status=str(_g(c, "status", "")),
                reason=clean(_g(c, "reason"), f"conditions[{_g(c, 'type', '')}].reason"),
                message=clean(_g(c, "message"), f"conditions[{_g(c, 'type', '')}].message"),
                last_transition_time=_tz(_g(c, "last_transition_time")),
            )
        )
    return out


def _pod_facts(pod: Any) -> PodFacts:
    md, spec, st = _g(pod, "metadata"), _g(pod, "spec"), _g(pod, "status")
    ns, name = _g(md, "namespace", ""), _g(md, "name", "")
    clean = _Cleaner(describe_pod_cmd(ns, name) + ":")

    def containers(spec_list: Any, status_list: Any, is_init: bool) -> list[ContainerFacts]:
        statuses = {_g(s, "name"): s for s in (status_list or [])}
        out = [_container_facts(c, statuses.pop(_g(c, "name"), None), is_init, clean) for c in (spec_list or [])]
        out += [_container_facts(None, s, is_init, clean) for _, s in sorted(statuses.items())]
        return out

    pf = PodFacts(
        name=name,
        namespace=ns,
        node_name=_g(spec, "node_name"),
        phase=_g(st, "phase"),
        reason=clean(_g(st, "reason"), "status.reason"),
        message=clean(_g(st, "message"), "status.message"),
        conditions=_conditions(_g(st, "conditions"), clean),
        containers=containers(_g(spec, "containers"), _g(st, "container_statuses"), False),
        init_containers=containers(_g(spec, "init_containers"), _g(st, "init_container_statuses"), True),
        start_time=_tz(_g(st, "start_time")),
        restart_policy=_g(spec, "restart_policy"),
        labels={str(k): str(v) for k, v in sorted((_g(md, "labels") or {}).items())},
        source=describe_pod_cmd(ns, name),
    )
    pf.injections = clean.injections
    return pf


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _event_facts(ev: Any, ns: str, pod: str) -> KubeEvent:
    clean = _Cleaner(f"{events_cmd(ns, pod)}: event {_g(_g(ev, 'metadata'), 'name', '')}")
    series = _g(ev, "series")
    last = (
        _tz(_g(ev, "last_timestamp"))
        or _tz(_g(series, "last_observed_time"))
        or _tz(_g(ev, "event_time"))
        or _tz(_g(ev, "first_timestamp"))
    )
    count = _g(ev, "count")
    if count is None:
        count = _g(series, "count")
    src = _g(ev, "source")
    io = _g(ev, "involved_object")
    ke = KubeEvent(
        type=clean(_g(ev, "type"), "type"),
        reason=clean(_g(ev, "reason"), "reason"),
        message=clean(_g(ev, "message"), "message"),
        count=count,
        first_timestamp=_tz(_g(ev, "first_timestamp")) or _tz(_g(ev, "event_time")),
        last_timestamp=last,
        source_component=clean(_g(src, "component") or _g(ev, "reporting_component") or None, "source"),
        involved_kind=_g(io, "kind"),
        involved_name=_g(io, "name"),
        name=_g(_g(ev, "metadata"), "name"),
        source=events_cmd(ns, pod),
    )
    ke.injections = clean.injections
    return ke


def _event_sort_key(e: KubeEvent) -> tuple:
    return (
        e.last_timestamp or _EPOCH,
        e.reason or "",
        e.first_timestamp or _EPOCH,
        e.message or "",
        e.name or "",
    )


def _node_facts(node: Any) -> NodeFacts:
    md, spec, st = _g(node, "metadata"), _g(node, "spec"), _g(node, "status")
    name = _g(md, "name", "")
    clean = _Cleaner(describe_node_cmd(name) + ":")
    conds = _conditions(_g(st, "conditions"), clean)
    ready: bool | None = None
    for c in conds:
        if c.type == "Ready":
            ready = c.status == "True"
    taints = [
        Taint(key=clean(_g(t, "key", ""), "taints.key") or "", value=clean(_g(t, "value"), "taints.value"),
              effect=_g(t, "effect"))
        for t in (_g(spec, "taints") or [])
    ]
    nf = NodeFacts(
        name=name,
        conditions=conds,
        taints=taints,
        allocatable_gpus=_as_int((_g(st, "allocatable") or {}).get(GPU_RESOURCE)),
        capacity_gpus=_as_int((_g(st, "capacity") or {}).get(GPU_RESOURCE)),
        ready=ready,
        unschedulable=bool(_g(spec, "unschedulable", False)),
        source=describe_node_cmd(name),
    )
    nf.injections = clean.injections
    return nf


def _status_message(e: Any) -> str:
    body = getattr(e, "body", None)
    if body:
        try:
            import json

            msg = json.loads(body).get("message")
            if msg:
                return str(msg)[:500]
        except Exception:
            return str(body)[:500]
    return (str(getattr(e, "reason", "") or e) or type(e).__name__)[:500]


def _redacted(text: str) -> str:
    try:
        import guardrails

        return guardrails.sanitize_text(text).text
    except ImportError:  # pragma: no cover - guardrails ships with this package
        return text


def _translate(e: BaseException, what: str) -> KubeError:
    """Map any client/transport exception to a typed KubeError (message sanitised: it can quote the server)."""
    k = _translate_raw(e, what)
    k.message = _redacted(k.message)
    k.args = (f"{k.kind}: {k.message}" + (f" (HTTP {k.status})" if k.status else ""),)
    return k


def _translate_raw(e: BaseException, what: str) -> KubeError:
    if isinstance(e, KubeError):
        return e
    from kubernetes.client.exceptions import ApiException

    if isinstance(e, ApiException):
        status = getattr(e, "status", None) or 0
        msg = _status_message(e)
        if status == 0:  # TLS failure and the like: no usable answer from the server
            return KubeError("unavailable", f"{what}: {msg}", None)
        if status == 401:
            return KubeError("unauthorized", f"{what}: {msg}", status)
        if status == 403:
            return KubeError("forbidden", f"{what}: {msg}", status)
        if status == 404:
            return KubeError("not_found", f"{what}: {msg}", status)
        if status == 400 and "not found" in msg.lower():  # e.g. previous terminated container not found
            return KubeError("not_found", f"{what}: {msg}", status)
        if status in (502, 503, 504):
            return KubeError("unavailable", f"{what}: {msg}", status)
        return KubeError("error", f"{what}: {msg}", status)
    if isinstance(e, (urllib3.exceptions.HTTPError, OSError, TimeoutError)):
        return KubeError("unavailable", f"{what}: {type(e).__name__}: {str(e)[:300]}", None)
    return KubeError("error", f"{what}: {type(e).__name__}: {str(e)[:300]}", None)


def kubeconfig_for(server: str, token: str | None = None, *, ca_file: str | None = None,
                   insecure: bool = False, context: str = "wd") -> dict:
    """A minimal kubeconfig dict for ``server`` (handy for tests and cassette replay)."""
    cluster: dict[str, Any] = {"server": server}
    if ca_file:
        cluster["certificate-authority"] = str(ca_file)
    if insecure:
        cluster["insecure-skip-tls-verify"] = True
    user: dict[str, Any] = {"token": token} if token else {}
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": context, "cluster": cluster}],
        "users": [{"name": context, "user": user}],
        "contexts": [{"name": context, "context": {"cluster": context, "user": context}}],
        "current-context": context,
    }


# -------------------------------------------------------------------------------------------- reader


class KubeReader:
    """Read-only, bounded Kubernetes evidence reader (Tier 2). Construct with :meth:`from_kubeconfig`,
    :meth:`from_url`, or ``KubeReader(api_client)`` (whose configuration is reused through a new read-only
    client; the caller's own client is left as it is)."""

    def __init__(self, api_client: Any, *, timeouts: tuple[float, float] = (CONNECT_TIMEOUT_S, READ_TIMEOUT_S)):
        if api_client is None:
            raise KubeError("unavailable", "no Kubernetes client configuration")
        import copy

        self.timeouts = (float(timeouts[0]), float(timeouts[1]))
        cfg = copy.deepcopy(api_client.configuration)  # never alter the caller's configuration
        _configure(cfg)
        ro = ReadOnlyApiClient(cfg, self.timeouts)
        for k, v in (getattr(api_client, "default_headers", None) or {}).items():
            if k.lower() != "user-agent":
                ro.default_headers[k] = v
        if getattr(api_client, "cookie", None):
            ro.cookie = api_client.cookie
        self.api_client = ro
        self._core = _kube_client().CoreV1Api(ro)

    # -- construction ------------------------------------------------------------------------------
    @classmethod
    def from_kubeconfig(
        cls,
        path: str | os.PathLike | dict | None = None,
        context: str | None = None,
        *,
        server: str | None = None,
        timeouts: tuple[float, float] = (CONNECT_TIMEOUT_S, READ_TIMEOUT_S),
    ) -> "KubeReader":
        """Load a kubeconfig file (or dict). ``path=None`` means ``$KUBECONFIG`` / ``~/.kube/config``.
        ``server`` overrides the cluster URL (e.g. to replay a cassette recorded against another port).
        A missing or unusable kubeconfig raises ``KubeError('unavailable')``."""
        import copy

        import yaml
        from kubernetes.config import kube_config

        cfg = _kube_client().Configuration()
        try:
            if isinstance(path, dict):
                doc, base = copy.deepcopy(path), ""
            else:
                if path is None:
                    env = os.environ.get("KUBECONFIG", "")
                    path = env.split(os.pathsep)[0] if env else str(Path.home() / ".kube" / "config")
                p = Path(path)
                if not p.is_file():
                    raise KubeError("unavailable", f"no kubeconfig at {p}")
                doc, base = yaml.safe_load(p.read_text()), str(p.resolve().parent)
            if not isinstance(doc, dict):
                raise KubeError("unavailable", "unusable kubeconfig: not a mapping")
            if server:
                # In the document, not on the Configuration: the loader's token-refresh hook re-applies the
                # kubeconfig's server before every request.
                _override_server(doc, context, server.rstrip("/"))
            loader = kube_config.KubeConfigLoader(config_dict=doc, active_context=context, config_base_path=base)
            loader.load_and_set(cfg)
        except KubeError:
            raise
        except Exception as e:  # ConfigException, YAML errors, missing context ...
            # first line only: YAML errors quote the offending line, which may hold a token
            first = (str(e).strip().splitlines() or [""])[0][:200]
            raise KubeError("unavailable", f"unusable kubeconfig: {type(e).__name__}: {_redacted(first)}") from e
        return cls(_kube_client().ApiClient(cfg), timeouts=timeouts)

    @classmethod
    def from_url(
        cls,
        server: str,
        token: str | None = None,
        *,
        ca_file: str | None = None,
        verify_ssl: bool = True,
        timeouts: tuple[float, float] = (CONNECT_TIMEOUT_S, READ_TIMEOUT_S),
    ) -> "KubeReader":
        """A reader for ``server`` with an optional bearer token (no kubeconfig file needed)."""
        return cls.from_kubeconfig(
            kubeconfig_for(server, token, ca_file=ca_file, insecure=not verify_ssl), timeouts=timeouts
        )

    def close(self) -> None:
        try:
            self.api_client.close()
        except Exception:  # pragma: no cover
            pass

    def __enter__(self) -> "KubeReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def server(self) -> str:
        return self.api_client.configuration.host

    # -- reads -------------------------------------------------------------------------------------
    def _call(self, what: str, fn, *args, **kwargs):
        kwargs.setdefault("_request_timeout", self.timeouts)
        try:
            return fn(*args, **kwargs)
        except KubeWriteRefused:
            raise
        except Exception as e:
            raise _translate(e, what) from e

    def namespace_exists(self, ns: str) -> bool:
        _check_name("namespace", ns)
        try:
            self._call(f"read namespace {ns}", self._core.read_namespace, ns)
            return True
        except KubeError as e:
            if e.kind == "not_found":
                return False
            raise

    def get_pod(self, ns: str, name: str) -> PodFacts:
        _check_name("namespace", ns)
        _check_name("pod", name)
        pod = self._call(f"read pod {ns}/{name}", self._core.read_namespaced_pod, name, ns)
        return _pod_facts(pod)

    def _list_pods(self, ns: str, what: str, label_selector: str | None = None, pages: int = 1) -> list[Any]:
        items: list[Any] = []
        cont: str | None = None
        for _ in range(pages):
            kw: dict[str, Any] = {"limit": LIST_LIMIT}
            if label_selector:
                kw["label_selector"] = label_selector
            if cont:
                kw["_continue"] = cont
            res = self._call(what, self._core.list_namespaced_pod, ns, **kw)
            items.extend(_g(res, "items") or [])
            md = _g(res, "metadata")
            cont = _g(md, "_continue") or _g(md, "var_continue") or None
            if not cont:
                break
        return items

    def find_pods(self, ns: str, workload_name: str) -> list[PodFacts]:
        """Pods of a workload: the first of ``workloadName=``, ``release=``, ``job-name=`` label selectors that
        matches, else pods named ``<workload_name>-*``. Bounded: 100 pods per selector, 500 for the fallback.
        Sorted by pod name."""
        _check_name("namespace", ns)
        if not isinstance(workload_name, str) or not workload_name:
            raise KubeError("error", f"invalid workload name {workload_name!r}")
        if _LABEL_VALUE.match(workload_name):
            for key in WORKLOAD_LABEL_KEYS:
                items = self._list_pods(ns, f"list pods {ns} {key}={workload_name}", f"{key}={workload_name}")
                if items:
                    return sorted((_pod_facts(p) for p in items), key=lambda p: p.name)
        prefix = workload_name + "-"
        items = self._list_pods(ns, f"list pods {ns}", None, pages=MAX_LIST_PAGES)
        found = [p for p in items if str(_g(_g(p, "metadata"), "name", "")).startswith(prefix)]
        return sorted((_pod_facts(p) for p in found), key=lambda p: p.name)

    def previous_log(
        self,
        ns: str,
        pod: str,
        container: str,
        tail_lines: int | None = DEFAULT_TAIL_LINES,
        limit_bytes: int = DEFAULT_LIMIT_BYTES,
        previous: bool = True,
    ) -> LogExcerpt:
        """The (previous) log of one container: last ``tail_lines`` lines, at most ``limit_bytes`` bytes.

        The response is streamed and read in chunks of at most 64 KiB; reading stops after ``limit_bytes + 1``
        bytes even when the server ignores ``limitBytes``/``tailLines``, and the connection is then closed
        without draining the rest."""
        _check_name("namespace", ns)
        _check_name("pod", pod)
        _check_name("container", container)
        if not isinstance(limit_bytes, int) or limit_bytes <= 0:
            raise KubeError("error", f"limit_bytes must be a positive int, not {limit_bytes!r}")
        kw: dict[str, Any] = {
            "container": container,
            "previous": bool(previous),
            "limit_bytes": limit_bytes,
            "_preload_content": False,
        }
        if tail_lines is not None:
            kw["tail_lines"] = int(tail_lines)
        what = f"read log {ns}/{pod}/{container}" + (" (previous)" if previous else "")
        resp = self._call(what, self._core.read_namespaced_pod_log, pod, ns, **kw)
        buf = bytearray()
        try:
            while len(buf) <= limit_bytes:
                chunk = resp.read(min(LOG_CHUNK_BYTES, limit_bytes + 1 - len(buf)))
                if not chunk:
                    break
                buf += chunk
        except Exception as e:
            raise _translate(e, what) from e
        finally:
            _close_quietly(resp)
        bytes_read = len(buf)
        truncated = bytes_read >= limit_bytes
        text = bytes(buf[:limit_bytes]).decode("utf-8", errors="replace")
        lines = text.splitlines()
        if tail_lines is not None and tail_lines >= 0 and len(lines) > tail_lines:
            lines = lines[len(lines) - tail_lines:] if tail_lines else []
            truncated = True
        lines = [ln if len(ln) <= MAX_LOG_LINE_CHARS else ln[:MAX_LOG_LINE_CHARS] + " …[line truncated]"
                 for ln in lines]
        source = logs_cmd(ns, pod, container, previous)
        clean = _Cleaner(source)
        cleaned = clean("\n".join(lines)) if lines else ""
        out_lines = cleaned.split("\n") if lines else []
        return LogExcerpt(
            pod=pod,
            namespace=ns,
            container=container,
            previous=bool(previous),
            lines=out_lines,
            bytes_read=bytes_read,
            truncated=truncated,
            source=source,
            injections=clean.injections,
        )

    def pod_events(self, ns: str, pod: str, limit: int = LIST_LIMIT) -> list[KubeEvent]:
        """Events whose involvedObject.name is ``pod`` (one page of at most ``limit``), sorted by
        (last_timestamp, reason, first_timestamp, message, name)."""
        _check_name("namespace", ns)
        _check_name("pod", pod)
        res = self._call(
            f"list events {ns} involvedObject.name={pod}",
            self._core.list_namespaced_event,
            ns,
            field_selector=f"involvedObject.name={pod}",
            limit=max(1, min(int(limit), 500)),
        )
        events = [_event_facts(ev, ns, pod) for ev in (_g(res, "items") or [])]
        return sorted(events, key=_event_sort_key)

    def get_node(self, name: str) -> NodeFacts:
        _check_name("node", name)
        node = self._call(f"read node {name}", self._core.read_node, name)
        return _node_facts(node)


def _override_server(doc: dict, context: str | None, server: str) -> None:
    name = context or doc.get("current-context")
    ctx = next((c for c in doc.get("contexts") or [] if c.get("name") == name), None)
    if not ctx:
        raise KubeError("unavailable", f"unusable kubeconfig: no context {name!r}")
    cname = (ctx.get("context") or {}).get("cluster")
    cl = next((c for c in doc.get("clusters") or [] if c.get("name") == cname), None)
    if not cl:
        raise KubeError("unavailable", f"unusable kubeconfig: no cluster {cname!r}")
    cl.setdefault("cluster", {})["server"] = server


def _configure(cfg: Any) -> None:
    """Bounded retries: one reconnect attempt; reads, statuses and redirects are never retried (a hung server
    costs one read timeout, not several)."""
    cfg.retries = urllib3.util.Retry(total=1, connect=1, read=0, redirect=0, status=0, other=0, raise_on_status=False)
    if hasattr(cfg, "client_go_retries"):
        cfg.client_go_retries = False


def _close_quietly(resp: Any) -> None:
    for m in ("close", "release_conn"):
        try:
            getattr(resp, m)()
        except Exception:
            pass
