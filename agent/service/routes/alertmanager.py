"""``POST /v1/alertmanager``: Alertmanager's webhook receiver. Each firing alert whose labels name a Run:ai
workload or a Kubernetes Job is diagnosed in the background; ``GET /v1/alertmanager/diagnoses/{id}`` returns what
became of it, and each finished diagnosis can also be POSTed on (``WD_ALERTMANAGER_POST_URL``).

The payload is Alertmanager's webhook message, version 4, exactly as Alertmanager sends it (prometheus/alertmanager
``notify/webhook/webhook.go``: ``Message`` = ``template.Data`` + ``version``, ``groupKey``, ``truncatedAlerts``;
``template/template.go``: ``Data`` = ``receiver``, ``status``, ``alerts``, ``groupLabels``, ``commonLabels``,
``commonAnnotations``, ``externalURL``; each ``Alert`` = ``status``, ``labels``, ``annotations``, ``startsAt``,
``endsAt``, ``generatorURL``, ``fingerprint``). Fields this does not use are accepted and ignored (Grafana's
webhook adds some). Alertmanager treats any 2xx as delivered and retries a 5xx: a full queue answers 503.

Which labels name what (only these; annotations are never read, so their text steers nothing):

* a Run:ai workload: ``workload_id``, or ``workload_name`` and ``project``; the cluster from ``cluster_id``, else
  from the webhook URL (``/v1/alertmanager?cluster_id=…``, one receiver per cluster); optional ``intent``
  (``terminal``, the default, or ``active``). Diagnosed as ``POST /v1/diagnoses`` would (the same request rules);
* a Kubernetes Job: ``job_name`` and ``namespace`` (kube-state-metrics' labels, those of the kube-prometheus-stack
  ``KubeJobFailed`` alert); walked as ``lifecycle --kind job`` would (needs Tier 2, and an API token that sees
  every cluster and project: a Job is not inside a Run:ai scope).

Every label value is checked with the same rules as the CLI's identifiers before it is used; an alert whose labels
fail them, or name nothing, is skipped with a reason that names the label, never its value. A workload outside
the caller's token scope is refused, as for ``/v1/diagnoses``.

Deduplication: an alert is known by its ``fingerprint`` and ``startsAt`` (Alertmanager repeats a firing alert with
both unchanged; firing again after it resolved starts a new episode). The record id is derived from them and
the caller's credential, so a repeat is answered ``duplicate`` with the same id and is not diagnosed again. Records
live in the integrations' store (``agent.service.results``: shared by workers and, on PostgreSQL, replicas) for
7 days, readable only with the credential that posted the alert.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import re
from typing import Annotated, Any, Callable, Literal

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from workload_diagnose.agent.model.request import build_request, names_workload
from workload_diagnose.agent.service import jobs
from workload_diagnose.agent.service.auth import DENIED, Principal, ScopeDenied
from workload_diagnose.agent.service.errors import one_line, status_and_detail
from workload_diagnose.agent.service.models import ERROR_RESPONSES, ErrorBody, ID_PATTERN
from workload_diagnose.tools.runai import InvalidInput, ids

ORDER = 40
KIND = "alerts"  # the records' namespace in agent.service.results
MAX_ALERTS = 200
MAX_LABELS = 64
POST_MAX_BYTES = 1024 * 1024
RECORD_ID = r"^[0-9a-f]{24}$"
_ALERTNAME = re.compile(r"^[A-Za-z_:][A-Za-z0-9_:.-]{0,127}$")  # a Prometheus alert name; anything else: not shown

Value = Annotated[str, StringConstraints(max_length=1024)]
Labels = Annotated[dict[Annotated[str, StringConstraints(max_length=128)], Value], Field(max_length=MAX_LABELS)]


class Alert(BaseModel):
    model_config = ConfigDict(extra="ignore")
    status: Literal["firing", "resolved"]
    labels: Labels = Field(default_factory=dict)
    annotations: Labels = Field(default_factory=dict, description="Accepted, never read")
    startsAt: str = Field(max_length=64)
    endsAt: str | None = Field(None, max_length=64)
    generatorURL: str | None = Field(None, max_length=4096)
    fingerprint: str = Field(pattern=r"^[0-9a-fA-F]{1,64}$", description="Alertmanager's id of the alert")


class Notification(BaseModel):
    """Alertmanager's webhook message, version 4."""

    model_config = ConfigDict(extra="ignore")
    version: Literal["4"]
    groupKey: str = Field(max_length=8192)
    truncatedAlerts: int = Field(0, ge=0)
    status: Literal["firing", "resolved"]
    receiver: str = Field(max_length=1024)
    groupLabels: Labels = Field(default_factory=dict)
    commonLabels: Labels = Field(default_factory=dict)
    commonAnnotations: Labels = Field(default_factory=dict)
    externalURL: str = Field("", max_length=4096)
    alerts: list[Alert] = Field(max_length=MAX_ALERTS)


class Target(BaseModel):
    kind: Literal["runai", "job"]
    cluster_id: str | None = None
    workload_id: str | None = None
    workload_name: str | None = None
    project: str | None = None
    intent: Literal["terminal", "active"] = "terminal"
    name: str | None = Field(None, description="job: the Job's name")
    namespace: str | None = Field(None, description="job: its namespace")


class Posted(BaseModel):
    status: int | None = Field(None, description="the HTTP status the outbound URL answered")
    error: str | None = None


class AlertDiagnosis(BaseModel):
    id: str
    fingerprint: str
    alertname: str | None = Field(None, description="the alertname label, when it is a plain alert name")
    starts_at: str
    state: Literal["queued", "running", "done", "failed", "refused"]
    target: Target
    result: dict | None = Field(None, description="done: the `failed --json` object (a Run:ai workload) or the "
                                                  "`lifecycle --json` object (a Job)")
    error: str | None = Field(None, description="failed or refused: why, in one line")
    posted: Posted | None = Field(None, description="the outbound POST (WD_ALERTMANAGER_POST_URL), when configured")


class Accepted(BaseModel):
    fingerprint: str
    id: str | None = None
    state: Literal["queued", "duplicate", "refused", "skipped", "resolved"]
    reason: str | None = None


class Receipt(BaseModel):
    alerts: list[Accepted]


class _NoKube(Exception):
    """This service has no Kubernetes reader (its own words say why)."""


class _Skip(Exception):
    """The alert names no workload this can diagnose (the reason names labels, never their values)."""


def _label(labels: dict[str, str], key: str, check: Callable[[str, str], str]) -> str | None:
    value = labels.get(key)
    if value is None or value == "":
        return None
    try:
        return check(value, key)
    except (InvalidInput, ValueError):
        raise _Skip(f"label {key} is not a valid {'identifier' if check is ids.check_id else 'name'}") from None


def target_of(labels: dict[str, str], cluster_id: str | None) -> Target:
    """What the alert's labels name (module docstring), every value checked; :class:`_Skip` otherwise."""
    if labels.get("workload_id") or labels.get("workload_name"):
        cluster = _label(labels, "cluster_id", ids.check_id) or cluster_id
        wid = _label(labels, "workload_id", ids.check_id)
        name = _label(labels, "workload_name", ids.check_name)
        project = _label(labels, "project", ids.check_name)
        intent = labels.get("intent") or "terminal"
        if intent not in ("terminal", "active"):
            raise _Skip("label intent must be terminal or active")
        if cluster is None:
            raise _Skip("no cluster: add a cluster_id label, or ?cluster_id= to the webhook URL")
        if not names_workload(wid, name, project) or (wid and (name or project)):
            raise _Skip("the labels must name one workload: workload_id, or workload_name and project")
        return Target(kind="runai", cluster_id=cluster, workload_id=wid, workload_name=name, project=project,
                      intent=intent)  # type: ignore[arg-type]
    if labels.get("job_name"):
        name = _label(labels, "job_name", ids.check_name)
        namespace = _label(labels, "namespace", ids.check_name)
        if namespace is None:
            raise _Skip("label job_name needs a namespace label")
        return Target(kind="job", name=name, namespace=namespace)
    raise _Skip("the labels name no workload: workload_id, or workload_name and project (Run:ai); job_name and "
                "namespace (a Kubernetes Job)")


def record_id(owner: str, fingerprint: str, starts_at: str) -> str:
    return hashlib.sha256(f"{owner}\0{fingerprint.lower()}\0{starts_at}".encode()).hexdigest()[:24]


def _alertname(labels: dict[str, str]) -> str | None:
    name = labels.get("alertname")
    return name if name is not None and _ALERTNAME.match(name) else None


def _refusal(principal: Principal, target: Target) -> str | None:
    """Why this caller may not have the target diagnosed (decided before anything is read), or None."""
    if target.kind == "job":
        if principal.token is not None and not principal.token.sees_everything:
            return "a Kubernetes Job is not inside a Run:ai scope: only an API token that sees every cluster and " \
                   "project may have one walked"
        return None
    try:
        principal.check_request(_request(target))
    except ScopeDenied:
        return DENIED
    return None


def _request(target: Target) -> Any:
    return build_request(cluster_id=target.cluster_id, workload_id=target.workload_id,
                         workload_name=target.workload_name, project=target.project, intent=target.intent)


def build(caller: Callable[..., Any]) -> APIRouter:
    router = APIRouter(tags=["integrations"])

    @router.post("/v1/alertmanager", status_code=202, response_model=Receipt,
                 summary="Alertmanager's webhook: diagnose each firing alert that names a workload or a Job",
                 responses={**ERROR_RESPONSES, 503: {"model": ErrorBody, "description": "Too many alert diagnoses "
                                                     "queued (Alertmanager retries), or the store is unavailable"}})
    async def receive(body: Notification, request: Request, principal: Principal = Depends(caller),
                      cluster_id: str | None = Query(None, max_length=128, pattern=ID_PATTERN,
                                                     description="the Run:ai cluster of alerts without a "
                                                                 "cluster_id label")) -> Any:
        svc = request.app.state.service
        owner = principal.owner
        out: list[Accepted] = []
        for alert in body.alerts:
            fp = alert.fingerprint.lower()
            if alert.status != "firing":
                out.append(Accepted(fingerprint=fp, state="resolved"))
                continue
            try:
                target = target_of(alert.labels, cluster_id)
            except _Skip as e:
                out.append(Accepted(fingerprint=fp, state="skipped", reason=str(e)))
                continue
            rid = record_id(owner, fp, alert.startsAt)
            if await asyncio.to_thread(svc.results.get, KIND, owner, rid) is not None:
                out.append(Accepted(fingerprint=fp, id=rid, state="duplicate"))
                continue
            rec = AlertDiagnosis(id=rid, fingerprint=fp, alertname=_alertname(alert.labels),
                                 starts_at=alert.startsAt, state="queued", target=target)
            if (why := _refusal(principal, target)) is not None:
                rec.state, rec.error = "refused", why
                await asyncio.to_thread(_save, svc, owner, rec)
                out.append(Accepted(fingerprint=fp, id=rid, state="refused", reason=why))
                continue
            await asyncio.to_thread(_save, svc, owner, rec)
            if not svc.jobs.submit(lambda rec=rec: _diagnose(svc, principal, owner, rec)):
                await asyncio.to_thread(svc.results.delete, KIND, owner, rid)  # the retry queues it again
                _count(svc, out)
                raise HTTPException(503, "too many alert diagnoses are queued: retry later",
                                    headers={"Retry-After": "10"})
            out.append(Accepted(fingerprint=fp, id=rid, state="queued"))
        _count(svc, out)
        return JSONResponse(Receipt(alerts=out).model_dump(mode="json"), status_code=202)

    @router.get("/v1/alertmanager/diagnoses/{diagnosis_id}", response_model=AlertDiagnosis,
                summary="What became of one alert (the id from the webhook's answer)",
                responses={**{k: v for k, v in ERROR_RESPONSES.items() if k in (401, 403)},
                           404: {"model": ErrorBody, "description": "No such record for this caller"},
                           503: {"model": ErrorBody, "description": "The store is unavailable"}})
    async def record(request: Request, principal: Principal = Depends(caller),
                     diagnosis_id: str = Path(pattern=RECORD_ID)) -> Any:
        svc = request.app.state.service
        rec = await asyncio.to_thread(svc.results.get, KIND, principal.owner, diagnosis_id)
        if rec is None:
            raise HTTPException(404, "no alert diagnosis with that id (for this caller)")
        return JSONResponse(rec)

    return router


def _count(svc: Any, out: list[Accepted]) -> None:
    for a in out:
        svc.metrics.alerts.labels(status=a.state).inc()


def _save(svc: Any, owner: str, rec: AlertDiagnosis) -> None:
    svc.results.put(KIND, owner, rec.id, rec.model_dump(mode="json"))


async def _diagnose(svc: Any, principal: Principal, owner: str, rec: AlertDiagnosis) -> None:
    """The background job of one alert: run it, keep the outcome, post it on."""
    rec.state = "running"
    await asyncio.to_thread(_save, svc, owner, rec)
    try:
        if rec.target.kind == "runai":
            res = await jobs.diagnose(svc.runner, principal, _request(rec.target))
        else:
            res = await jobs.call(svc.runner, lambda: _walk(svc, rec.target))
        rec.result, rec.state = res.model_dump(mode="json"), "done"
    except ScopeDenied as e:
        rec.state, rec.error = "refused", str(e)
    except Exception as e:  # noqa: BLE001  (the product's failures, in one line, as the HTTP API says them)
        rec.state, rec.error = "failed", one_line(_detail(e), 300)
    if svc.config.alert_post_url:
        rec.posted = await _post(svc.config, rec)
    await asyncio.to_thread(_save, svc, owner, rec)


def _detail(e: Exception) -> str:
    if isinstance(e, _NoKube):
        return str(e)
    message = getattr(e, "message", None)  # a KubeError's own words
    return message if isinstance(message, str) and message else status_and_detail(e)[1]


def _walk(svc: Any, target: Target) -> Any:
    """The lifecycle walk of one Job over the service's Kubernetes reader (Tier 2)."""
    from workload_diagnose.agent.procedures.lifecycle.api import refresh
    from workload_diagnose.agent.procedures.lifecycle.state import LifecycleRequest
    from workload_diagnose.tools.kube.lifecycle import LifecycleReader

    if svc.upstream.kube is None:
        raise _NoKube(svc.upstream.kube_unavailable or "Tier 2 (Kubernetes) is not available to this service")
    reader = LifecycleReader(svc.upstream.kube)  # its own call list; the shared reader stays open
    return refresh(LifecycleRequest(name=target.name, namespace=target.namespace, kind="job"), reader)


async def _post(config: Any, rec: AlertDiagnosis) -> Posted:
    """One POST of the record to the configured URL: bounded body, timeout, no redirect followed, the answer's
    body never read. The URL itself is never said (it may hold a key)."""
    import httpx

    body = json.dumps(rec.model_dump(mode="json", exclude={"posted"})).encode()
    if len(body) > POST_MAX_BYTES:
        return Posted(error=f"not posted: the record is over {POST_MAX_BYTES // 1024} KiB")
    try:
        async with httpx.AsyncClient(timeout=config.alert_post_timeout_s, follow_redirects=False) as client:
            async with client.stream("POST", config.alert_post_url, content=body,
                                     headers={"Content-Type": "application/json"}) as r:
                return Posted(status=r.status_code)
    except httpx.TimeoutException:
        return Posted(error=f"the outbound URL did not answer within {config.alert_post_timeout_s:g} s")
    except httpx.HTTPError as e:
        return Posted(error=f"the outbound URL could not be reached ({type(e).__name__})")
