"""The compiled graphs for ``langgraph dev`` / LangGraph Studio: one module attribute per registered procedure,
named as the registry names it (``langgraph.json`` points at them; a test checks it lists exactly the registry).
Studio draws them; a run needs the procedure's context (its read-only sources), which only the product's entry
points build."""
from __future__ import annotations

from agent.procedures import graph, specs

globals().update({name: graph(name) for name in specs()})
