"""The compiled graphs for ``langgraph dev`` / LangGraph Studio (``langgraph.json`` points at these names): one
per registered procedure. Studio draws them; a run needs the procedure's context (its read-only sources), which
only the product's entry points build."""
from __future__ import annotations

from agent.procedures import graph

runai_failed = graph("runai_failed")
lifecycle = graph("lifecycle")
