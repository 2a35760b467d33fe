"""One module per category, each exporting ``CATEGORY`` (an ``agent.taxonomy.record.Category``). The registry
finds every module here; adding a category is adding a module (and its scenarios)."""
