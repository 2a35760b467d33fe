"""One module per pending reason (``REASON``: a :class:`agent.taxonomy.pending_record.PendingReason`);
``agent.taxonomy.pending_registry`` collects them. Adding a reason is adding a module (and its scenarios)."""
