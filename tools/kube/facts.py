"""The typed facts the Kubernetes reader returns (what ``kubectl describe``/``logs``/``get events`` would show),
and their construction from the official client's objects. Every free-text string passes
``guardrails.sanitize_text``; findings land in each fact's ``injections``. ``source`` is the kubectl command the
fact corresponds to (reports cite it)."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Iterable, Literal

from pydantic import BaseModel, Field

from workload_diagnose.tools.timeutil import as_utc

__all__ = ["GPU_RESOURCE", "Condition", "ContainerFacts", "PodFacts", "LogExcerpt", "KubeEvent", "Taint",
           "NodeFacts", "describe_pod_cmd", "logs_cmd", "events_cmd", "describe_node_cmd",
           "node_events_cmd"]

GPU_RESOURCE = "nvidia.com/gpu"


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
    uid: str | None = None  # metadata.uid: which pod this is (a same-name pod created later has another one)
    created_at: datetime | None = None  # metadata.creationTimestamp
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
    # the pod as ``kubectl get pod -o json`` shows it (metadata without managedFields/annotations, spec, status),
    # redacted and injection-scanned: what the lifecycle phase rules read. Never part of a dump.
    manifest: dict[str, Any] = Field(default_factory=dict, exclude=True, repr=False)

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


def node_events_cmd(node: str) -> str:
    return f"kubectl get events -A --field-selector involvedObject.kind=Node,involvedObject.name={node}"


class _Cleaner:
    """Runs every free-text string through guardrails and collects the injection findings."""

    def __init__(self, location: str = "") -> None:
        from workload_diagnose import guardrails  # lazy: imported when the first object is converted, not at module import

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


_tz = as_utc  # Kubernetes datetimes (and the odd string) → aware UTC: the project's one parser


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
        uid=str(_g(md, "uid")) if _g(md, "uid") else None,
        created_at=_tz(_g(md, "creation_timestamp")),
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


def _pod_manifest(api_client: Any, pod: Any) -> dict[str, Any]:
    """The pod as JSON (the API's own field names), without managedFields and annotations, redacted."""
    from workload_diagnose import guardrails

    doc = api_client.sanitize_for_serialization(pod) or {}
    md = {k: v for k, v in (doc.get("metadata") or {}).items() if k not in ("managedFields", "annotations")}
    clean, _ = guardrails.sanitize_value({"metadata": md, "spec": doc.get("spec") or {},
                                         "status": doc.get("status") or {}})
    return clean  # injection findings are the facts' own (the same strings, scanned once for the facts)


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _event_facts(ev: Any, source: str) -> KubeEvent:
    clean = _Cleaner(f"{source}: event {_g(_g(ev, 'metadata'), 'name', '')}")
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
        source=source,
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
