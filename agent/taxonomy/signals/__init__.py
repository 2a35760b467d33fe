"""Signal-level facts that are not categories (progress, preemption, scheduling waits, crash loops, exit 137,
SIGTERM): one module each, exporting ``SIGNAL`` (an ``agent.taxonomy.record.SignalSet``). The registry finds them."""
