"""The order of a Run:ai procedure's findings in its report (limitations and tool calls), whatever order parallel
reads finish: ``agent.model.findings.Added`` fields sort by it. A procedure that reads more may use further numbers
between these (they are ints)."""
from __future__ import annotations


class Step:
    """The order of findings in the report (limitations and tool calls), whatever order parallel reads finish."""

    ROUTING, LIST, PROBES, STATUS, SPEC, PODS, HISTORY, METRICS, PODS_CONTENT, METRICS_CONTENT, KUBE, VERDICT, \
        REPORT = range(13)
