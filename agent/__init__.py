"""workload-diagnose: the Run:ai failed-workload skill as a deterministic LangGraph state machine.

Public Python API::

    from workload_diagnose.agent.api import diagnose
    result = diagnose(cluster_id=..., workload_id=..., runai_url=..., client_id=..., client_secret=...)
    print(result.report)          # or result.model_dump_json()
"""
