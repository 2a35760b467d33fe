"""Who is calling, and what it may see: the one place the service's access policy is decided.

* ``tokens``: a bearer API token from the configured list (compared by its SHA-256; the text is never kept),
  scoped to clusters and projects. The service account reads Run:ai. A request outside the scope is refused
  with 403 before any read when the request names it (cluster id; Option B's project), else right after the one
  request that tells the workload's project and cluster (:class:`ScopedSource`: not its events); the refusal
  says nothing about the workload (the same words, and the same one request, whether it exists elsewhere or
  not at all).
* ``passthrough``: the caller's own Run:ai bearer token is used for every Run:ai read: Run:ai's RBAC decides.
* ``none``: no caller identity (the server binds to loopback only; ``serve`` refuses anything else).
"""
from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from workload_diagnose.agent.model.request import DiagnosisRequest
from workload_diagnose.agent.service.config import ApiToken, ServiceConfig
from workload_diagnose.tools.base import ToolResult, ToolStatus
from workload_diagnose.tools.runai import ApiAuthError, RunaiClient

DENIED = "this API token may not read that workload"  # "may not read": 403 in agent.entrypoints.errors


class Unauthenticated(Exception):
    """No usable credentials on the request (401)."""


class ScopeDenied(ApiAuthError):
    """The caller's token does not cover the workload (403). The message never names the workload."""

    def __init__(self) -> None:
        super().__init__(DENIED)


@dataclass(frozen=True)
class Principal:
    mode: str  # "tokens" | "passthrough" | "none"
    token: ApiToken | None = None
    bearer: str | None = None  # passthrough: the caller's Run:ai token (never logged, never stored)

    @property
    def name(self) -> str:
        return self.token.name if self.token else self.mode

    @property
    def owner(self) -> str:
        """Who owns what this caller keeps on the service (chat threads): one credential, never a display name.
        The API token's hash (tokens mode), a digest of the caller's Run:ai token (pass-through: the token itself
        is never stored), or the one local user (no auth). Stable across restarts and replicas."""
        if self.token is not None:
            who = f"token:{self.token.sha256}"
        elif self.bearer:
            who = "bearer:" + hashlib.sha256(self.bearer.encode()).hexdigest()
        else:
            who = self.mode
        return hashlib.sha256(who.encode()).hexdigest()[:16]

    def check_request(self, req: DiagnosisRequest) -> None:
        """Refuse, before any read, what the request itself shows to be outside the token's scope."""
        if self.token is None:
            return
        if not self.token.allows_cluster(req.cluster_id):
            raise ScopeDenied()
        if req.project is not None and not self.token.allows_project(req.project):
            raise ScopeDenied()
        if getattr(req, "department", None) is not None and not self.token.sees_everything:
            raise ScopeDenied()  # a department spans projects: only a token that sees every project may ask

    def guard(self, source: Any) -> Any:
        """The Run:ai source this caller's diagnosis reads through."""
        return source if self.token is None else ScopedSource(source, self.token)


def _bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    value = value.strip()
    return value if scheme.lower() == "bearer" and value and " " not in value else None


def authenticate(config: ServiceConfig, authorization: str | None) -> Principal:
    """The caller of one request, or :class:`Unauthenticated`."""
    if config.auth == "none":
        return Principal("none")
    presented = _bearer(authorization)
    if presented is None:
        raise Unauthenticated("a bearer token is required (Authorization: Bearer …)")
    if config.auth == "passthrough":
        return Principal("passthrough", bearer=presented)
    digest = hashlib.sha256(presented.encode("utf-8", "surrogatepass")).hexdigest()
    for tok in config.tokens:  # compares digests, never the token's text
        if hmac.compare_digest(tok.sha256, digest):
            return Principal("tokens", token=tok)
    raise Unauthenticated("the API token is not valid")


class ScopedSource:
    """A :class:`tools.runai.RunaiSource` that refuses a workload outside the token's clusters and projects as
    soon as its status shows them; every other read passes through unchanged."""

    def __init__(self, inner: Any, token: ApiToken):
        self._inner = inner
        self._token = token

    @property
    def injections(self) -> list[Any]:
        return self._inner.injections

    def list_workloads(self, *, name: str, cluster_id: str, project: str) -> ToolResult:
        if not (self._token.allows_cluster(cluster_id) and self._token.allows_project(project)):
            raise ScopeDenied()
        return self._inner.list_workloads(name=name, cluster_id=cluster_id, project=project)

    def list_clusters(self) -> ToolResult:
        """The clusters the inner source lists, only those the token may see (the chat resolves a cluster NAME
        among them: a name outside the scope is unknown to this caller)."""
        from workload_diagnose.tools.runai.clusters import list_clusters

        r = list_clusters(self._inner)
        if r.ok and isinstance(r.data, list):
            r.data = [c for c in r.data if self._token.allows_cluster(c.uuid)]
        return r

    def get_workload_status(self, workload_id: str, *, cutoff: datetime | None = None) -> ToolResult:
        """The status read, refused after its one request that tells the workload's cluster and project (the
        REST client checks the workload before it reads the events); a workload that does not exist is refused
        the same way to a token that does not see everything, after the same one request."""
        if isinstance(self._inner, RunaiClient) and not self._token.sees_everything:
            # (a token that sees everything can be refused nothing: its events are read beside the workload)
            r = self._inner.get_admitted_workload_status(workload_id, self._admit, cutoff=cutoff)
        else:
            r = self._inner.get_workload_status(workload_id, cutoff=cutoff)
        w = r.data.workload if r.ok and r.data is not None else None
        if w is None:
            # not found: a scoped token must not learn which ids exist in clusters or projects it cannot see
            if r.status == ToolStatus.ABSENT and not self._token.sees_everything:
                raise ScopeDenied()
            return r
        self._admit(w)
        return r

    def _admit(self, w: Any) -> None:
        if not (self._token.allows_cluster(w.clusterId) and self._token.allows_project(w.projectName)):
            raise ScopeDenied()

    def __getattr__(self, name: str) -> Any:  # the other reads: only after an allowed status
        return getattr(self._inner, name)
