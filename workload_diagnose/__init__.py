"""workload-diagnose: why did my GPU job fail? Read-only, deterministic diagnosis of Run:ai (and Kueue/KubeRay)
workloads.

The installed distribution claims this one import name; the repository's folders are its subpackages
(``workload_diagnose.agent``, ``.tools``, ``.guardrails``, ``.evals``). The embeddable API::

    from workload_diagnose import diagnose, chat
    result = diagnose(cluster_id=..., workload_id=..., runai_url=..., client_id=..., client_secret=...)
    print(result.report)          # or result.model_dump_json()
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workload_diagnose.agent.api import (ApiAuthError, ApiUnavailable, DiagnosisRequest, DiagnosisResult,
                                             InvalidInput, diagnose)
    from workload_diagnose.agent.chat.api import achat, chat

__all__ = ["diagnose", "chat", "achat", "DiagnosisRequest", "DiagnosisResult", "InvalidInput", "ApiUnavailable",
           "ApiAuthError"]


def __getattr__(name: str) -> Any:  # the API is imported on first use: `import workload_diagnose` stays cheap
    if name in ("chat", "achat"):
        from workload_diagnose.agent.chat import api as chat_api

        return getattr(chat_api, name)
    if name in __all__:
        from workload_diagnose.agent import api

        return getattr(api, name)
    raise AttributeError(f"module 'workload_diagnose' has no attribute {name!r}")
