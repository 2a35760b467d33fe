"""Custom-object reads: the place for CRD-backed evidence (Kueue, KubeRay, DRA), GET only.

The next procedure (a Kueue/KubeRay lifecycle view) reads objects the core API does not have:

==========================  ==================  =========  ==================  ===============================
what                        group               version    plural              scope
==========================  ==================  =========  ==================  ===============================
Kueue Workload              kueue.x-k8s.io      v1beta1    workloads           namespaced
KubeRay RayJob              ray.io              v1         rayjobs             namespaced
KubeRay RayCluster          ray.io              v1         rayclusters         namespaced
DRA ResourceClaim           resource.k8s.io     v1beta1    resourceclaims      namespaced (version per cluster)
==========================  ==================  =========  ==================  ===============================

:class:`CustomObjectReads` (mixed into :class:`tools.kube.reader.KubeReader`) offers two generic reads for any
``group/version/plural``: :meth:`~CustomObjectReads.get_custom_object` and
:meth:`~CustomObjectReads.list_custom_objects`. They go through the reader's read-only ``ApiClient``
(:mod:`tools.kube.guard`), so a create/patch/delete through the same client is refused before a byte is sent.
Bodies come back as plain JSON dicts that have passed ``guardrails.sanitize_value`` (normalised, redacted;
instruction-like text recorded in ``injections``): typed views of them (e.g. a ``RayJobFacts``) belong in
:mod:`tools.kube.facts`, built from :class:`CustomObject.body`, so the reads here stay generic.
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple

from pydantic import BaseModel, Field

__all__ = ["CustomResource", "KUEUE_WORKLOAD", "RAY_JOB", "RAY_CLUSTER", "DRA_RESOURCE_CLAIM", "CustomObject",
           "CustomObjectReads", "get_custom_cmd"]

CUSTOM_LIST_LIMIT = 100
CUSTOM_LIST_PAGES = 5


class CustomResource(NamedTuple):
    group: str
    version: str
    plural: str


KUEUE_WORKLOAD = CustomResource("kueue.x-k8s.io", "v1beta1", "workloads")
RAY_JOB = CustomResource("ray.io", "v1", "rayjobs")
RAY_CLUSTER = CustomResource("ray.io", "v1", "rayclusters")
# DRA moved v1alpha3 (1.31) -> v1beta1 (1.32) -> v1 (1.34): pass the version the cluster serves.
DRA_RESOURCE_CLAIM = CustomResource("resource.k8s.io", "v1beta1", "resourceclaims")

_GROUP = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)+$")
_VERSION = re.compile(r"^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$")
_PLURAL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_SELECTOR = re.compile(r"^[A-Za-z0-9_./=!,()\- ]{1,512}$")


def get_custom_cmd(plural: str, group: str, namespace: str | None, name: str | None = None) -> str:
    """The kubectl command a custom-object read corresponds to (the ``source`` reports cite)."""
    return (f"kubectl get {plural}.{group}" + (f" {name}" if name else "")
            + (f" -n {namespace}" if namespace else "") + " -o json")


class CustomObject(BaseModel):
    group: str
    version: str
    plural: str
    kind: str | None = None
    namespace: str | None = None
    name: str
    body: dict[str, Any] = Field(default_factory=dict)  # sanitised JSON as served
    source: str = ""
    injections: list[Any] = Field(default_factory=list)


def _check_gvp(group: str, version: str, plural: str) -> None:
    from workload_diagnose.tools.kube.errors import KubeError

    if not isinstance(group, str) or not _GROUP.match(group):
        raise KubeError("error", f"invalid API group {group!r}")
    if not isinstance(version, str) or not _VERSION.match(version):
        raise KubeError("error", f"invalid API version {version!r}")
    if not isinstance(plural, str) or not _PLURAL.match(plural):
        raise KubeError("error", f"invalid resource plural {plural!r}")


def _to_custom(body: Any, group: str, version: str, plural: str, source: str) -> CustomObject:
    from workload_diagnose import guardrails

    from workload_diagnose.tools.kube.errors import KubeError

    if not isinstance(body, dict):
        raise KubeError("error", f"{source}: the server answered {type(body).__name__}, not an object")
    clean, findings = guardrails.sanitize_value(body)
    md = clean.get("metadata") if isinstance(clean.get("metadata"), dict) else {}
    return CustomObject(group=group, version=version, plural=plural, kind=clean.get("kind"),
                        namespace=md.get("namespace"), name=str(md.get("name") or ""), body=clean, source=source,
                        injections=findings)


class CustomObjectReads:
    """GET-only reads of custom objects; mixed into :class:`tools.kube.reader.KubeReader` (which provides
    ``api_client``, ``_call`` and ``_check_name``)."""

    api_client: Any

    def _custom_api(self) -> Any:
        from kubernetes import client

        return client.CustomObjectsApi(self.api_client)

    def get_custom_object(self, group: str, version: str, plural: str, name: str,
                          namespace: str | None = None) -> CustomObject:
        """One object (``namespace=None``: a cluster-scoped resource). 404 → ``KubeError('not_found')``."""
        _check_gvp(group, version, plural)
        self._check_name("name", name)  # type: ignore[attr-defined]
        api = self._custom_api()
        source = get_custom_cmd(plural, group, namespace, name)
        if namespace is None:
            body = self._call(source, api.get_cluster_custom_object,  # type: ignore[attr-defined]
                              group, version, plural, name)
        else:
            self._check_name("namespace", namespace)  # type: ignore[attr-defined]
            body = self._call(source, api.get_namespaced_custom_object,  # type: ignore[attr-defined]
                              group, version, namespace, plural, name)
        return _to_custom(body, group, version, plural, source)

    def list_custom_objects(self, group: str, version: str, plural: str, namespace: str | None = None, *,
                            label_selector: str | None = None, limit: int = CUSTOM_LIST_LIMIT,
                            pages: int = CUSTOM_LIST_PAGES) -> list[CustomObject]:
        """Objects of one resource (``namespace=None``: across the cluster), ``limit`` per page, at most
        ``pages`` pages; sorted by (namespace, name)."""
        _check_gvp(group, version, plural)
        if namespace is not None:
            self._check_name("namespace", namespace)  # type: ignore[attr-defined]
        if label_selector is not None and not _SELECTOR.match(label_selector):
            from workload_diagnose.tools.kube.errors import KubeError

            raise KubeError("error", f"invalid label selector {label_selector!r}")
        api = self._custom_api()
        source = get_custom_cmd(plural, group, namespace)
        items: list[CustomObject] = []
        cont: str | None = None
        for _ in range(max(1, int(pages))):
            kw: dict[str, Any] = {"limit": max(1, min(int(limit), 500))}
            if label_selector:
                kw["label_selector"] = label_selector
            if cont:
                kw["_continue"] = cont
            if namespace is None:
                res = self._call(source, api.list_cluster_custom_object,  # type: ignore[attr-defined]
                                 group, version, plural, **kw)
            else:
                res = self._call(source, api.list_namespaced_custom_object,  # type: ignore[attr-defined]
                                 group, version, namespace, plural, **kw)
            raw = res.get("items") if isinstance(res, dict) else None
            items += [_to_custom(o, group, version, plural, source) for o in (raw or []) if isinstance(o, dict)]
            md = res.get("metadata") if isinstance(res, dict) else None
            cont = md.get("continue") if isinstance(md, dict) else None
            if not cont:
                break
        return sorted(items, key=lambda o: (o.namespace or "", o.name))
