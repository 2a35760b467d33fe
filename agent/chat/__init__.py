"""The chat assistant (issue 12): ``workload-diagnose chat`` / ``ask`` and ``agent.chat.api.chat``.

``rules.py`` + ``parse.py`` the deterministic understanding, ``slots.py`` a thread's identifiers, ``graph.py`` +
``nodes.py`` the conversation graph, ``reply.py`` the deterministic words, ``store.py`` the checkpointer,
``llm.py`` the optional model, ``handoff.py`` which registered procedure answers (the failed-workload one, a
sibling whose declared intent the words match, or the one a result's route is handed to). The answers themselves
are the Run:ai procedures' (``agent.api.run_graph``).
"""
