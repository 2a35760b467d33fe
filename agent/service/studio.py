"""The compiled graphs for ``langgraph dev`` / LangGraph Studio: one module attribute per registered procedure,
named as the registry names it. ``langgraph.json`` points at them; it is generated from the registry
(``python -m workload_diagnose.agent.service.studio`` rewrites it) and a test checks it lists exactly the registry. Studio draws the
graphs; a run needs the procedure's context (its read-only sources), which only the product's entry points build."""
from __future__ import annotations

import json
from pathlib import Path

from workload_diagnose.agent.procedures import graph, specs

globals().update({name: graph(name) for name in specs()})


def langgraph_json() -> str:
    """``langgraph.json`` as the registry makes it."""
    cfg = {"$schema": "https://langgra.ph/schema.json", "dependencies": ["."],
           "graphs": {name: f"./agent/service/studio.py:{name}" for name in specs()}, "python_version": "3.11"}
    return json.dumps(cfg, indent=2) + "\n"


if __name__ == "__main__":
    path = Path(__file__).resolve().parents[2] / "langgraph.json"
    path.write_text(langgraph_json())
    print(f"wrote {path}")
