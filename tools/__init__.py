"""Read-only tool wrappers: Run:ai REST (Tier 1, httpx) and Kubernetes (Tier 2, official client).

Every tool returns a typed :class:`tools.base.ToolResult` that records which skill tool produced it and the
exact read requests it made. Nothing in this package can send a write: see ``tools.transport``.
"""
