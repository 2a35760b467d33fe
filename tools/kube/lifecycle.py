"""Read-only Kubernetes reads for the lifecycle view: Jobs, RayJobs, RayClusters, Kueue Workloads, pods by label,
ResourceClaims (DRA) and events, as plain JSON objects.

Every request goes through the read-only guarded ``ApiClient`` of :class:`tools.kube.KubeReader` (its REST client,
urllib3 pool manager and connection pools refuse anything but GET/HEAD before a byte is sent); this module adds
only GET calls on top of it. Objects are read as raw JSON (no typed models), so fields the client's models do not
know (pod ``spec.resourceClaims``, ``status.resourceClaimStatuses``, Job ``spec.suspend``) are kept.

Every response body passes ``guardrails.sanitize_value`` (normalisation, structure-aware redaction, injection
scan) before anything else sees it; the injection findings are kept (``LifecycleReader.injections``). Every read
made is recorded in ``LifecycleReader.calls`` (method, path with query, HTTP status).
"""
from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from workload_diagnose.tools.kube import CONNECT_TIMEOUT_S, READ_TIMEOUT_S, KubeError, KubeReader, KubeWriteRefused
from workload_diagnose.tools.kube.errors import translate

__all__ = ["LifecycleReader", "ReadCall", "KUEUE_GROUP", "KUEUE_VERSIONS", "RAY_GROUP", "DRA_GROUP", "check_name", "LIST_LIMIT"]

KUEUE_GROUP = "kueue.x-k8s.io"
KUEUE_VERSIONS = ("v1beta2", "v1beta1")  # newest first: v1beta2 from Kueue 0.15, v1beta1 up to 0.13 (and beside v1beta2)
RAY_GROUP, RAY_VERSION = "ray.io", "v1"
DRA_GROUP = "resource.k8s.io"
DRA_VERSIONS = ("v1", "v1beta2", "v1beta1", "v1alpha3")  # newest first; discovery decides which one is served
LIST_LIMIT = 100
MAX_EVENTS = 100

_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")


def check_name(what: str, value: Any) -> str:
    """A Kubernetes object name (DNS-1123 subdomain), or ``KubeError('error')`` naming what is wrong."""
    if not isinstance(value, str) or not _DNS_SUBDOMAIN.match(value):
        raise KubeError("error", f"invalid {what} name {value!r} (expected a DNS-1123 name: lower-case letters, "
                                 "digits, '-' and '.')")
    return value


@dataclass
class ReadCall:
    request: str  # "GET /apis/...?..."
    status: int | None
    ms: float | None = None  # how long the answer took (``lifecycle -v`` prints it)


@dataclass
class LifecycleReader:
    """GET-only reads over a :class:`KubeReader`'s guarded client. Construct with :meth:`from_kubeconfig` or
    ``LifecycleReader(KubeReader(...))``."""

    reader: KubeReader
    timeouts: tuple[float, float] = (CONNECT_TIMEOUT_S, READ_TIMEOUT_S)
    calls: list[ReadCall] = field(default_factory=list)
    injections: list[Any] = field(default_factory=list)  # guardrails InjectionFinding (location = where)
    _served: dict[str, str | None] = field(default_factory=dict)  # API group -> served version (None: not served)

    @classmethod
    def from_kubeconfig(cls, path: str | None = None, context: str | None = None, *,
                        server: str | None = None) -> "LifecycleReader":
        return cls(KubeReader.from_kubeconfig(path, context, server=server))

    @property
    def api_client(self):
        return self.reader.api_client

    def close(self) -> None:
        self.reader.close()

    # -- the one GET -------------------------------------------------------------------------------
    def get_json(self, path: str, query: dict[str, Any] | None = None, what: str = "") -> Any:
        """GET ``path`` (already quoted) as JSON, sanitised. Raises :class:`KubeError` (typed) on failure."""
        q = [(k, str(v)) for k, v in (query or {}).items() if v is not None]
        request = "GET " + path + ("?" + urlencode(q) if q else "")
        ac = self.api_client
        method, url, headers, _body, _post = ac.param_serialize(
            method="GET", resource_path=path, query_params=q, header_params={"Accept": "application/json"},
            auth_settings=["BearerToken"])
        t0 = time.perf_counter()
        ms = lambda: (time.perf_counter() - t0) * 1000.0  # noqa: E731
        try:
            resp = ac.call_api(method, url, header_params=headers, _request_timeout=self.timeouts)
        except KubeWriteRefused:
            raise
        except Exception as e:  # ApiException (non-2xx), urllib3/OS errors
            err = _translate(e, what or request)
            self.calls.append(ReadCall(request, err.status, ms()))
            raise err from e
        raw = resp.read()
        if not 200 <= int(resp.status or 0) < 300:  # this client version returns non-2xx answers instead of raising
            from kubernetes.client.exceptions import ApiException

            err = _translate(ApiException(status=resp.status, reason=resp.reason,
                                          body=raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw),
                             what or request)
            self.calls.append(ReadCall(request, resp.status, ms()))
            raise err
        self.calls.append(ReadCall(request, resp.status, ms()))
        try:
            doc = json.loads(raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw)
        except ValueError as e:
            raise KubeError("error", f"{what or request}: the answer is not JSON") from e
        clean, findings = _sanitize(doc)
        for f in findings:
            try:
                f.location = f"{request} {getattr(f, 'location', '')}".strip()
            except Exception:  # pragma: no cover - frozen finding types
                pass
        self.injections.extend(findings)
        return clean

    def get_optional(self, path: str, what: str) -> dict | None:
        """An object, or None when it does not exist (404: also when the kind's CRD is not installed)."""
        try:
            return self.get_json(path, what=what)
        except KubeError as e:
            if e.kind == "not_found":
                return None
            raise

    # -- objects -----------------------------------------------------------------------------------
    def job(self, ns: str, name: str) -> dict | None:
        return self.get_optional(f"/apis/batch/v1/namespaces/{_q(check_name('namespace', ns))}/jobs/"
                                 f"{_q(check_name('Job', name))}", f"read Job {ns}/{name}")

    def rayjob(self, ns: str, name: str) -> dict | None:
        return self.get_optional(_custom(RAY_GROUP, RAY_VERSION, ns, "rayjobs", name), f"read RayJob {ns}/{name}")

    def raycluster(self, ns: str, name: str) -> dict | None:
        return self.get_optional(_custom(RAY_GROUP, RAY_VERSION, ns, "rayclusters", name),
                                 f"read RayCluster {ns}/{name}")

    def workloads(self, ns: str, owner_uid: str | None, owner_name: str) -> list[dict]:
        """The Kueue Workloads of one job, found the way Kueue links them: the ``kueue.x-k8s.io/job-uid`` label,
        then (when none carries it) owner references in one bounded list of the namespace."""
        ver = self.kueue_version()
        if ver is None:
            raise KubeError("not_found", f"the API group {KUEUE_GROUP} is not served by this cluster (Kueue is not "
                                         "installed)")
        path = _custom(KUEUE_GROUP, ver, ns, "workloads")
        if owner_uid and re.match(r"^[A-Za-z0-9._-]{1,63}$", owner_uid):
            doc = self.get_json(path, {"labelSelector": f"kueue.x-k8s.io/job-uid={owner_uid}",
                                       "limit": LIST_LIMIT}, f"list Workloads {ns} job-uid={owner_uid}")
            items = list(doc.get("items") or [])
            if items:
                return items
        doc = self.get_json(path, {"limit": LIST_LIMIT}, f"list Workloads {ns}")
        out = []
        for w in doc.get("items") or []:
            refs = (w.get("metadata") or {}).get("ownerReferences") or []
            if any((owner_uid and r.get("uid") == owner_uid) or (not owner_uid and r.get("name") == owner_name)
                   for r in refs):
                out.append(w)
        return out

    def pods(self, ns: str, selector: str) -> list[dict]:
        doc = self.get_json(f"/api/v1/namespaces/{_q(check_name('namespace', ns))}/pods",
                            {"labelSelector": selector, "limit": LIST_LIMIT}, f"list pods {ns} {selector}")
        return sorted(doc.get("items") or [], key=lambda p: (p.get("metadata") or {}).get("name") or "")

    def served_version(self, group: str, known: tuple[str, ...]) -> str | None:
        """The version of ``group`` to read (one discovery GET per group, cached for the reader's life: a
        ``--watch`` asks once), or None when the group is not served (404). The server's preferred version when it
        serves it, else the newest of ``known`` it serves, else the first it lists."""
        if group not in self._served:  # a failed discovery (not a 404) raises and is asked again next refresh
            doc = self.get_optional(f"/apis/{_q(group)}", f"discover {group}")
            served = [str(v.get("version")) for v in (doc or {}).get("versions") or [] if v.get("version")]
            pref = ((doc or {}).get("preferredVersion") or {}).get("version")
            self._served[group] = pref if pref in served else next(
                (v for v in known if v in served), served[0] if served else None)
        return self._served[group]

    def kueue_version(self) -> str | None:
        """The served version of ``kueue.x-k8s.io`` (v1beta1 on Kueue ≤0.13, v1beta2 on newer), or None."""
        return self.served_version(KUEUE_GROUP, KUEUE_VERSIONS)

    def dra_version(self) -> str | None:
        """The served version of ``resource.k8s.io`` (one discovery GET, cached), or None when not served."""
        return self.served_version(DRA_GROUP, DRA_VERSIONS)

    def resource_claim(self, ns: str, name: str) -> dict | None:
        ver = self.dra_version()
        if ver is None:
            raise KubeError("not_found", f"the API group {DRA_GROUP} is not served by this cluster")
        return self.get_optional(_custom(DRA_GROUP, ver, ns, "resourceclaims", name),
                                 f"read ResourceClaim {ns}/{name}")

    def events(self, ns: str, kind: str, name: str) -> list[dict]:
        """Events about one object (involvedObject kind and name), oldest first."""
        check_name("namespace", ns)
        check_name(kind, name)
        if not re.match(r"^[A-Za-z]{1,63}$", kind):
            raise KubeError("error", f"invalid kind {kind!r}")
        doc = self.get_json(f"/api/v1/namespaces/{_q(ns)}/events",
                            {"fieldSelector": f"involvedObject.kind={kind},involvedObject.name={name}",
                             "limit": MAX_EVENTS}, f"list events {ns} {kind}/{name}")
        return sorted(doc.get("items") or [], key=_event_time)


def _event_time(e: dict) -> str:
    return str(e.get("lastTimestamp") or (e.get("series") or {}).get("lastObservedTime") or e.get("eventTime")
               or e.get("firstTimestamp") or "")


def _q(s: str) -> str:
    return quote(s, safe="")


def _custom(group: str, version: str, ns: str, plural: str, name: str | None = None) -> str:
    p = f"/apis/{group}/{version}/namespaces/{_q(check_name('namespace', ns))}/{plural}"
    return p + (f"/{_q(check_name(plural[:-1], name))}" if name is not None else "")


def _sanitize(doc: Any) -> tuple[Any, list]:
    from workload_diagnose import guardrails

    return guardrails.sanitize_value(doc)


def _translate(e: BaseException, what: str) -> KubeError:
    """Any client/transport failure as a typed KubeError, its message redacted (it can quote the server): the shared
    mapping, with this reader's bounds (300 characters of the server's message, 200 of a transport error) and a
    400 always an ``error``."""
    return translate(e, what, message_chars=300, detail_chars=200, bad_request_not_found=False)
