"""``langgraph.json`` opens every registered procedure's compiled graph (what ``langgraph dev`` loads), and no
other: it is checked against the registry, which is the one place a procedure is registered."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from langgraph.graph.state import CompiledStateGraph

from workload_diagnose.agent.procedures import specs

ROOT = Path(__file__).resolve().parents[2]


def test_langgraph_json_is_the_one_the_registry_makes():
    from workload_diagnose.agent.service.studio import langgraph_json

    assert (ROOT / "langgraph.json").read_text() == langgraph_json(), "run: python -m workload_diagnose.agent.service.studio"


def test_langgraph_json_points_at_each_registered_compiled_graph():
    cfg = json.loads((ROOT / "langgraph.json").read_text())
    assert cfg["dependencies"] == ["."]
    assert list(cfg["graphs"]) == list(specs())
    for name, ref in cfg["graphs"].items():
        path, attr = ref.rsplit(":", 1)
        assert (path, attr) == ("./agent/service/studio.py", name), ref
        file = (ROOT / path).resolve()
        spec = importlib.util.spec_from_file_location(f"studio_{name}", file)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)  # as langgraph dev loads it: by file path
        g = getattr(mod, attr)
        assert isinstance(g, CompiledStateGraph)
        nodes = set(g.get_graph().nodes)
        want = set(specs()[name].build_graph().get_graph().nodes)
        assert nodes == want and len(nodes) > 2  # START, END and a step at least
