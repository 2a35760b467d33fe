"""Tier-2 Kubernetes evidence: a read-only, bounded wrapper over the official ``kubernetes`` client.

* :mod:`tools.kube.guard` — read-only enforcement at the ApiClient, REST-client and urllib3 layers
  (:func:`check_read_request`, :func:`ReadOnlyApiClient`, :func:`ReadOnlyRESTClient`).
* :mod:`tools.kube.facts` — the typed facts (:class:`PodFacts`, :class:`NodeFacts`, :class:`KubeEvent`,
  :class:`LogExcerpt` …) and the kubectl command strings reports cite.
* :mod:`tools.kube.reader` — :class:`KubeReader`: namespaces, pods, events, previous logs (byte-bounded), nodes.
* :mod:`tools.kube.custom` — GET-only custom-object reads (Kueue Workloads, KubeRay RayJobs/RayClusters, DRA
  ResourceClaims): the place for the Kueue/KubeRay lifecycle view's evidence.
* :mod:`tools.kube.errors` — :class:`KubeError` (kind ``unavailable | unauthorized | forbidden | not_found |
  error``) and :class:`KubeWriteRefused`.
* :mod:`tools.kube.lifecycle` — :class:`LifecycleReader`: the lifecycle view's GET-only raw-JSON reads (Jobs,
  RayJobs, RayClusters, Kueue Workloads, pods, ResourceClaims, events) over the guarded client.
* :mod:`tools.kube.metrics` — :class:`DcgmProfileReader` (``--run-profile``): dcgm-exporter discovery and the one
  metrics-only GET (``/api/v1/namespaces/<ns>/pods/<pod>[:port]/proxy/metrics``).
  Neither is imported here: import them from their modules.

Guarantees:

* **Read-only at the transport.** Any method but ``GET``/``HEAD`` (and ``exec``/``attach``/``portforward``/
  ``proxy`` subresources, and ``secrets``) is refused with :class:`KubeWriteRefused` before a connection is
  opened, whoever calls the reader's ``api_client``. This guards against mistakes, not hostile code in-process.
* **Bounded.** Short timeouts (connect 3 s, read 10 s), at most one reconnect, lists ``limit=100`` and a page cap,
  logs read in chunks and never more than ``limit_bytes + 1`` bytes, whatever the server sends.
* **Sanitised.** Every free-text string from the cluster goes through the guardrails; injection findings are
  collected in each model's ``injections`` list.
* **Replayable.** Plain request/response GETs over urllib3 (no watch, no websocket): vcrpy can record and replay
  them (use ``filter_headers=["authorization"]``).

Everything importable from ``tools.kube`` before the split is re-exported here.
"""
from workload_diagnose.tools.kube.custom import (
    DRA_RESOURCE_CLAIM,
    KUEUE_WORKLOAD,
    RAY_CLUSTER,
    RAY_JOB,
    CustomObject,
    CustomObjectReads,
    CustomResource,
    get_custom_cmd,
)
from workload_diagnose.tools.kube.errors import KubeError, KubeErrorKind, KubeWriteRefused
from workload_diagnose.tools.kube.facts import (
    GPU_RESOURCE,
    Condition,
    ContainerFacts,
    KubeEvent,
    LogExcerpt,
    NodeFacts,
    PodFacts,
    Taint,
    describe_node_cmd,
    describe_pod_cmd,
    events_cmd,
    node_events_cmd,
    logs_cmd,
)
from workload_diagnose.tools.kube.guard import CONNECT_TIMEOUT_S, READ_TIMEOUT_S, ReadOnlyApiClient, ReadOnlyRESTClient, check_read_request
from workload_diagnose.tools.kube.reader import (
    DEFAULT_LIMIT_BYTES,
    DEFAULT_TAIL_LINES,
    LIST_LIMIT,
    LOG_CHUNK_BYTES,
    MAX_LIST_PAGES,
    MAX_LOG_LINE_CHARS,
    WORKLOAD_LABEL_KEYS,
    KubeReader,
    kubeconfig_for,
)

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
    "node_events_cmd",
    "describe_node_cmd",
    "kubeconfig_for",
    # not in the pre-split __all__, but importable from tools.kube then and now
    "DEFAULT_LIMIT_BYTES",
    "DEFAULT_TAIL_LINES",
    "MAX_LIST_PAGES",
    "MAX_LOG_LINE_CHARS",
    "GPU_RESOURCE",
    "WORKLOAD_LABEL_KEYS",
    # custom-object reads
    "CustomResource",
    "CustomObject",
    "CustomObjectReads",
    "KUEUE_WORKLOAD",
    "RAY_JOB",
    "RAY_CLUSTER",
    "DRA_RESOURCE_CLAIM",
    "get_custom_cmd",
]
