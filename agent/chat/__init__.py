"""The chat assistant (issue 12): ``workload-diagnose chat`` / ``ask`` and ``agent.chat.api.chat``.

``rules.py`` + ``parse.py`` the deterministic understanding, ``slots.py`` a thread's identifiers, ``graph.py`` +
``nodes.py`` the conversation graph, ``reply.py`` the deterministic words, ``store.py`` the checkpointer,
``llm.py`` the optional model. The diagnosis itself is the Run:ai procedure (``agent.api.run_graph``).
"""
