"""The REST read allow-list: every GET this client may send, per skill tool, as data in one place.

The transport (:mod:`tools.transport`) refuses every method but GET/HEAD and the token exchange; this list narrows
the GETs to the Run:ai read endpoints each tool is documented to use (``shared/reference/runai-api.md``,
``docs/reference/runai-projects-nodepools.md``, ``docs/reference/runai-nodes-capacity.md``). A path that is not
listed for the tool reading it is refused before a byte is sent (:func:`check_read`), so a new read is one line here
plus its reference.
"""
from __future__ import annotations

import re

from workload_diagnose.tools.base import WriteRefused

__all__ = ["READS", "ReadRefused", "check_read"]

_ID = r"[^/]+"
#: skill tool -> the paths (below the base URL) it may GET
READS: dict[str, tuple[str, ...]] = {
    "list_workloads": (r"/api/v1/workloads",),
    "get_workload_status": (rf"/api/v1/workloads/{_ID}", rf"/api/v1/workloads/{_ID}/events"),
    "get_workload_spec": (rf"/api/v1/workloads/(?:trainings|workspaces|inferences|distributed)/{_ID}",),
    "get_workload_pods": (rf"/api/v1/workloads/{_ID}/pods",),
    "get_workload_history": (rf"/api/v1/workloads/{_ID}/history",),
    "get_workload_metrics": (rf"/api/v1/workloads/{_ID}/metrics",),
    "list_clusters": (r"/api/v1/clusters",),
    "find_project": (r"/api/v1/org-unit/projects",),
    "list_node_pools": (r"/api/v1/node-pools",),
    "list_nodes": (r"/api/v1/nodes",),  # docs/reference/runai-nodes-capacity.md
    "get_node_pool_gpus": (rf"/api/v1/clusters/{_ID}/nodepools/{_ID}/metrics",),
}
_COMPILED = {tool: tuple(re.compile(p) for p in paths) for tool, paths in READS.items()}


class ReadRefused(WriteRefused):
    """A GET outside the read allow-list was about to be sent. Nothing was sent."""


def check_read(tool: str, path: str) -> None:
    if not any(rx.fullmatch(path) for rx in _COMPILED.get(tool, ())):
        raise ReadRefused(f"refused GET {path} for {tool}: not a read this client is allowed to send")
