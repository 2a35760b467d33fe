"""The taxonomy: one module per category (``categories/``) and per non-category signal (``signals/``), each
carrying its rules with their samples, precedence, needs, recommendation, report lines, chat words and triage
groups; the registry that collects them; the deterministic classifier that reads it."""
from workload_diagnose.agent.taxonomy.classifier import Verdict, causes, classify, reads_node
from workload_diagnose.agent.taxonomy.record import Category, RecoContext
from workload_diagnose.agent.taxonomy.registry import BY_NAME, CATEGORIES, NAMES, UNKNOWN, metrics_needed_by, names_pattern

__all__ = ["BY_NAME", "CATEGORIES", "NAMES", "UNKNOWN", "Category", "RecoContext", "Verdict", "causes", "classify",
           "metrics_needed_by", "names_pattern", "reads_node"]
