"""GPU evidence for ``lifecycle --run-profile``: NVIDIA dcgm-exporter read through the Kubernetes API.

Bounded, per refresh: at most two discovery requests (exporter pods by the official chart label, then by the GPU
Operator's label only when the first finds none) and at most one metrics request per distinct workload node.

A pod is a source of GPU figures only when it is an exporter the cluster's operator runs, not merely a pod that
carries the exporter's label (anyone who can create a pod can set a label): it must be in an allowed namespace
(``WD_DCGM_NAMESPACES``, comma-separated; default the GPU Operator's ``gpu-operator`` and, on OpenShift,
``nvidia-gpu-operator``), be controlled by a DaemonSet (dcgm-exporter's manifests, its Helm chart and the GPU
Operator all run it as one), and be read on the exporter's metrics port: the container port named ``metrics``,
else 9400. Labelled pods that fail a check are left out, and the limitation says how many and why.

The read-only guard of ``tools.kube`` refuses every ``proxy`` subresource, so the one proxy read this needs has its
own, narrower guard here: :func:`check_metrics_request` allows exactly ``GET
/api/v1/namespaces/<ns>/pods/<pod>[:<port>]/proxy/metrics`` and nothing else, checked at this reader's call and
again in its urllib3 pool manager before a connection is opened. Discovery GETs go through the ordinary guarded
client (``LifecycleReader``). The request's URL and credentials come from the kubernetes client's own
``param_serialize``; the metrics body (bounded) passes the guardrails before it is parsed.
"""
from __future__ import annotations

import copy
import math
import re
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import urllib3

from workload_diagnose.tools.kube import CONNECT_TIMEOUT_S, READ_TIMEOUT_S, KubeError, KubeWriteRefused

DISCOVERY_SELECTORS = ("app.kubernetes.io/name=dcgm-exporter", "app=nvidia-dcgm-exporter")
DEFAULT_PORT = 9400
NAMESPACES_ENV = "WD_DCGM_NAMESPACES"
# current Helm installs and OpenShift; older GPU Operator releases ran it in gpu-operator-resources (nvidia.github.io
# container-wiki gpu-operator monitoring): set WD_DCGM_NAMESPACES there (and grant pods/proxy in it, deploy/kubernetes/
# overlays/run-profile)
DEFAULT_NAMESPACES = ("gpu-operator", "nvidia-gpu-operator")
MAX_METRICS_BYTES = 8 * 1024 * 1024
_METRICS_PATH = re.compile(r"^/api/v1/namespaces/[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?/pods/"
                           r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?(:[0-9]{1,5})?/proxy/metrics$")


def check_metrics_request(method: Any, url: Any) -> None:
    """Raise :class:`KubeWriteRefused` unless this is ``GET`` of one pod's ``/proxy/metrics`` (no query)."""
    m = str(method or "").upper()
    try:
        u = urlsplit(str(url))
    except ValueError as e:
        raise KubeWriteRefused(f"refused {m} {url!r}: unparseable URL") from e
    if m != "GET" or not _METRICS_PATH.match(u.path) or u.query or "%" in u.path:
        raise KubeWriteRefused(f"refused {m} {u.path}: the metrics reader only GETs a pod's /proxy/metrics")


_guarded: dict[type, type] = {}
_lock = threading.Lock()


def _metrics_only(pm: Any) -> Any:
    cls = type(pm)
    with _lock:
        g = _guarded.get(cls)
        if g is None:
            def urlopen(self, method, url, *a, **kw):
                check_metrics_request(method, url if "://" in str(url) else f"http://x{url}")
                return super(g, self).urlopen(method, url, *a, **kw)

            g = _guarded[cls] = type("MetricsOnly" + cls.__name__, (cls,), {"urlopen": urlopen})
    pm.__class__ = g
    return pm


# ------------------------------------------------------------------------------------------- parsing
_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\S+)?\s*$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*')


@dataclass
class Sample:
    name: str
    labels: dict[str, str]
    value: float


def parse_prometheus(text: str, wanted: frozenset[str]) -> list[Sample]:
    out: list[Sample] = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if not m or m.group(1) not in wanted:
            continue
        try:
            v = float(m.group(4))
        except ValueError:
            continue
        if not math.isfinite(v) or v < 0:
            continue  # not a figure: never reported as one
        labels = {k: bytes(val, "utf-8").decode("unicode_escape") for k, val in _LABEL.findall(m.group(3) or "")}
        out.append(Sample(m.group(1), labels, v))
    return out


def _first(labels: dict[str, str], *keys: str) -> str | None:
    for k in keys:
        if labels.get(k):
            return labels[k]
    return None


def sample_pod(s: Sample) -> tuple[str | None, str | None, str | None]:
    """(namespace, pod, container) of a sample: ``namespace``/``pod``/``container``, the older ``pod_namespace``/
    ``pod_name``/``container_name``, or the ``exported_*`` names Prometheus gives them."""
    L = s.labels
    return (_first(L, "namespace", "pod_namespace", "exported_namespace", "exported_pod_namespace"),
            _first(L, "pod", "pod_name", "exported_pod", "exported_pod_name"),
            _first(L, "container", "container_name", "exported_container", "exported_container_name"))


# ------------------------------------------------------------------------------------------- trust
def allowed_namespaces(environ: Any = None) -> tuple[str, ...]:
    """The namespaces an exporter may run in: ``WD_DCGM_NAMESPACES`` (comma-separated), else the defaults."""
    import os

    raw = (os.environ if environ is None else environ).get(NAMESPACES_ENV, "")
    names = tuple(n.strip() for n in raw.split(",") if n.strip())
    return names or DEFAULT_NAMESPACES


def metrics_port(pod: dict) -> int:
    """The exporter's metrics port: the container port named ``metrics``, else 9400."""
    for c in (pod.get("spec") or {}).get("containers") or []:
        for p in c.get("ports") or []:
            if p.get("name") == "metrics" and isinstance(p.get("containerPort"), int) \
                    and 0 < p["containerPort"] < 65536:
                return p["containerPort"]
    return DEFAULT_PORT


def untrusted(pod: dict, namespaces: tuple[str, ...]) -> str | None:
    """Why a pod carrying the exporter's label is not a source of GPU figures, or None."""
    md = pod.get("metadata") or {}
    if md.get("namespace") not in namespaces:
        return "not in an allowed namespace"
    owners = [o for o in md.get("ownerReferences") or [] if isinstance(o, dict) and o.get("controller")]
    if not any(o.get("kind") == "DaemonSet" and str(o.get("apiVersion", "")).startswith("apps/") for o in owners):
        return "not controlled by a DaemonSet"
    return None


# -------------------------------------------------------------------------------------------- reader
@dataclass
class DcgmProfileReader:
    """Discovery through the guarded ``LifecycleReader``; the metrics GET through a metrics-only transport."""

    kube: Any  # tools.kube.lifecycle.LifecycleReader
    timeouts: tuple[float, float] = (CONNECT_TIMEOUT_S, READ_TIMEOUT_S)
    requests: dict[str, int] = field(default_factory=lambda: {"discovery": 0, "metrics": 0})
    _pm: Any = None

    @classmethod
    def for_reader(cls, kube: Any) -> "DcgmProfileReader":
        return cls(kube)

    def close(self) -> None:
        if self._pm is not None:
            self._pm.clear()

    def _pool(self):
        if self._pm is None:
            from kubernetes.client import rest

            cfg = copy.deepcopy(self.kube.api_client.configuration)
            rc = rest.RESTClientObject(cfg)
            self._pm = _metrics_only(rc.pool_manager)
        return self._pm

    def discover(self) -> tuple[list[dict], str | None]:
        """Trusted exporter pods (cluster-wide list, then the checks of :func:`untrusted`), at most two requests.
        (pods, why unavailable)."""
        last_err = None
        namespaces = allowed_namespaces()
        left_out: dict[str, int] = {}
        for sel in DISCOVERY_SELECTORS:
            self.requests["discovery"] += 1
            try:
                doc = self.kube.get_json("/api/v1/pods", {"labelSelector": sel, "limit": 500},
                                         f"list dcgm-exporter pods {sel}")
            except KubeError as e:
                last_err = f"exporter pods could not be listed ({e.kind}: {e.message}); listing them needs " \
                           "cluster-wide pod read access"
                if e.kind in ("forbidden", "unauthorized"):
                    return [], last_err
                continue
            items = []
            for p in doc.get("items") or []:
                if (p.get("status") or {}).get("phase") != "Running":
                    continue
                why = untrusted(p, namespaces)
                if why:
                    left_out[why] = left_out.get(why, 0) + 1
                else:
                    items.append(p)
            if items:
                return items, None
        if left_out:
            reasons = "; ".join(f"{n} {why}" for why, n in sorted(left_out.items()))
            return [], (f"no trusted dcgm-exporter pod: pods carrying its label were left out ({reasons}; allowed "
                        f"namespaces: {', '.join(namespaces)}, set {NAMESPACES_ENV} to change them)")
        return [], last_err or "no dcgm-exporter pods found (labels " + " or ".join(DISCOVERY_SELECTORS) + ")"

    def metrics(self, pod: dict) -> str:
        """The exporter pod's current /metrics text through the pods/proxy subresource (one GET)."""
        md = pod.get("metadata") or {}
        if untrusted(pod, allowed_namespaces()):  # discover() returns no other; a caller's own pod is checked too
            raise KubeError("error", f"{md.get('namespace')}/{md.get('name')} is not a trusted dcgm-exporter pod")
        port = metrics_port(pod)
        path = (f"/api/v1/namespaces/{quote(md.get('namespace') or '', safe='')}/pods/"
                f"{quote(md.get('name') or '', safe='')}:{port}/proxy/metrics")
        ac = self.kube.api_client
        method, url, headers, _b, _p = ac.param_serialize(method="GET", resource_path=path,
                                                          header_params={"Accept": "text/plain"},
                                                          auth_settings=["BearerToken"])
        check_metrics_request(method, url)
        self.requests["metrics"] += 1
        self.kube.calls.append(_call(f"GET {path}", None))
        try:
            r = self._pool().request("GET", url, headers=headers, preload_content=False, retries=False,
                                     timeout=urllib3.Timeout(connect=self.timeouts[0], read=self.timeouts[1]))
        except KubeWriteRefused:
            raise
        except Exception as e:
            raise KubeError("unavailable", f"metrics of {md.get('name')}: {type(e).__name__}") from e
        try:
            buf = r.read(MAX_METRICS_BYTES + 1)
        finally:
            r.release_conn()
        self.kube.calls[-1] = _call(f"GET {path}", r.status)
        if r.status in (401, 403):
            raise KubeError("forbidden", "reading exporter metrics needs the pods/proxy subresource", r.status)
        if r.status != 200:
            raise KubeError("error", f"metrics of {md.get('name')}: HTTP {r.status}", r.status)
        # parsed for numbers and a few labels only; every string kept from it passes the guardrails afterwards
        return buf[:MAX_METRICS_BYTES].decode("utf-8", "replace")


def _call(request: str, status: int | None):
    from workload_diagnose.tools.kube.lifecycle import ReadCall

    return ReadCall(request, status)


# ------------------------------------------------------------------------------ GPU health of a node (Tier 2)
XID_ERRORS = "DCGM_FI_DEV_XID_ERRORS"  # gauge: the LAST Xid per GPU (kept until the exporter restarts), on by default
GPU_HEALTH_METRICS = frozenset({XID_ERRORS, "DCGM_FI_DEV_ROW_REMAP_FAILURE", "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
                                "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL"})
_KEPT_LABELS = ("gpu", "UUID", "modelName", "Hostname", "namespace", "pod", "container", "pod_namespace", "pod_name",
                "container_name", "exported_namespace", "exported_pod", "exported_container")


@dataclass
class NodeGpuHealth:
    """The GPU health samples of one node's exporter, or why there are none (unavailable is never 0)."""

    node: str
    samples: list[Sample] = field(default_factory=list)
    unavailable: str | None = None
    source: str = ""  # the read, as kubectl would make it


@dataclass
class GpuHealthRead:
    nodes: dict[str, NodeGpuHealth]
    calls: list[tuple[str, int | None]]  # ("GET <path>?<query>", HTTP status or None)
    injections: list[Any]


def read_gpu_health(reader: Any, nodes: list[str]) -> GpuHealthRead:
    """dcgm-exporter's GPU health gauges (:data:`GPU_HEALTH_METRICS`) for each of ``nodes``, read the way
    ``--run-profile`` reads the exporter: at most two discovery requests through the guarded client, then one
    metrics-only proxy GET per node that runs a trusted exporter. ``reader`` is a ``tools.kube.KubeReader``; its
    deadline bounds every request. Label values kept pass the guardrails; numbers are only ever parsed."""
    from workload_diagnose import guardrails
    from workload_diagnose.tools.kube.lifecycle import LifecycleReader, check_name

    for n in nodes:
        check_name("node", n)
    timeouts = reader.read_timeouts("dcgm-exporter (Tier 2)")
    lr = LifecycleReader(reader, timeouts=timeouts)
    dcgm = DcgmProfileReader(lr, timeouts=timeouts)
    out: dict[str, NodeGpuHealth] = {}
    injections: list[Any] = []
    try:
        exporters, why = dcgm.discover()
        by_node = {(e.get("spec") or {}).get("nodeName"): e for e in reversed(exporters)}
        for node in nodes:
            h = out[node] = NodeGpuHealth(node)
            exp = by_node.get(node)
            if exp is None:
                h.unavailable = why or f"no trusted dcgm-exporter pod runs on node {node}"
                continue
            md = exp.get("metadata") or {}
            h.source = (f"kubectl get --raw /api/v1/namespaces/{md.get('namespace')}/pods/{md.get('name')}:"
                        f"{metrics_port(exp)}/proxy/metrics")
            try:
                text = dcgm.metrics(exp)
            except KubeError as e:
                h.unavailable = f"the exporter's metrics could not be read ({e.kind}: {e.message})"
                continue
            for smp in parse_prometheus(text, GPU_HEALTH_METRICS):
                labels = {}
                for k in _KEPT_LABELS:
                    if smp.labels.get(k):
                        clean = guardrails.sanitize_text(smp.labels[k][:200], location=f"dcgm-exporter {node}: {k}")
                        injections += list(clean.injections)
                        labels[k] = clean.text
                h.samples.append(Sample(smp.name, labels, smp.value))
            if not any(x.name == XID_ERRORS for x in h.samples):
                h.unavailable = f"the exporter on node {node} exports no {XID_ERRORS} sample"
    finally:
        dcgm.close()
    return GpuHealthRead(out, [(c.request, c.status) for c in lr.calls], injections + list(lr.injections))
