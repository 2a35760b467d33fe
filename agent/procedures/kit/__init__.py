"""The procedure kit: what every procedure shares, so no procedure imports another.

``context`` the run's sources and limits (LangGraph ``context_schema``) · ``steps`` the order of findings ·
``evidence`` Run:ai results → signals · ``reads`` what a read could not give, and the reads a run cannot go on
without · ``stops`` every early end, worded once · ``routing`` the phase rules (one table) · ``pod_identity``
whether a Kubernetes pod is the one Run:ai reported · ``render`` the report pieces of a Run:ai result · ``layers``
the Kubernetes lifecycle-layer rules (the lifecycle view and the Run:ai report's pod walk).
"""
