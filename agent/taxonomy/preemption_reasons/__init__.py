"""One module per preemption reason, each defining ``REASON`` (``agent.taxonomy.preemption`` collects them)."""
