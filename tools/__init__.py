"""Read-only tool wrappers: Run:ai (Tier 1: ``tools.runai``, REST through httpx today) and Kubernetes (Tier 2:
``tools.kube``, the official client).

Every Run:ai tool returns a typed :class:`tools.base.ToolResult` that records which skill tool produced it and
each call it made as text (:class:`tools.base.Invocation`: tool, arguments, the exact request). Nothing in this
package can send a write: see ``tools.transport`` (Run:ai) and ``tools.kube.guard`` (Kubernetes).
``tools.timeutil`` is the project's one timestamp parser; ``tools.quantity`` parses Kubernetes quantities.
"""
