"""Procedures: one package per procedure, each a LangGraph graph whose nodes mirror the procedure's steps.

To add a procedure: create ``agent/procedures/<name>/`` with a ``graph.py`` exposing ``build_graph()`` and
register it here. Entry points look procedures up by name, never by import path.
"""
from __future__ import annotations

from importlib import import_module

REGISTRY: dict[str, str] = {
    "runai_failed": "agent.procedures.runai_failed.graph",  # Run:ai: why did my workload fail?
    "lifecycle": "agent.procedures.lifecycle.graph",  # Kueue/KubeRay: the first incomplete lifecycle layer
}


def graph(name: str):
    """The compiled graph of a registered procedure."""
    return import_module(REGISTRY[name]).build_graph()
