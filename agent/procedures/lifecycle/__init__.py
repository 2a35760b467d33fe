"""Procedure ``lifecycle``: the lifecycle-layer view of a Kueue / KubeRay run
(shared/seeds/taugrid-troubleshooting-by-lifecycle-layer.md): walk the ordered phases, name the first one that is
not done, its owner and the next action, and never blame a later layer.

``graph.py`` holds the steps; ``nodes.py`` one function per step; ``phases/`` the phase rules (pure functions);
``report.py`` the text report; ``api.py`` the entry used by the command line and the tests.
"""
