"""One attention rule per module (``RULE``): which workload of a health snapshot needs attention. Collected by
``agent.taxonomy.attention_registry``; read by ``agent.evidence.attention``."""
