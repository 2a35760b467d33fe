"""Procedure ``runai_failed``: the Run:ai "diagnose a failed workload" skill (shared/seeds/runai-diagnose-failed-workload.md).

``graph.py`` holds the steps; ``nodes.py`` one function per step; ``report.py`` Step 5's report.
"""
