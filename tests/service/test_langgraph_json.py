"""``langgraph.json`` opens every registered procedure's compiled graph (what ``langgraph dev`` loads)."""
from __future__ import annotations

import importlib
import importlib.util
import json
from pathlib import Path

from langgraph.graph.state import CompiledStateGraph

from agent.procedures import REGISTRY

ROOT = Path(__file__).resolve().parents[2]


def test_langgraph_json_points_at_each_registered_compiled_graph():
    cfg = json.loads((ROOT / "langgraph.json").read_text())
    assert cfg["dependencies"] == ["."]
    assert set(cfg["graphs"]) == set(REGISTRY)
    for name, ref in cfg["graphs"].items():
        path, attr = ref.rsplit(":", 1)
        file = (ROOT / path).resolve()
        assert file.is_file(), ref
        spec = importlib.util.spec_from_file_location(f"studio_{name}", file)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)  # as langgraph dev loads it: by file path
        g = getattr(mod, attr)
        assert isinstance(g, CompiledStateGraph)
        nodes = set(g.get_graph().nodes)
        want = set(importlib.import_module(REGISTRY[name]).build_graph().get_graph().nodes)
        assert nodes == want and len(nodes) > 4
