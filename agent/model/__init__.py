"""The vocabulary shared by every procedure and entry point, defined once.

signals (``Kind``, ``Signal``), outcomes and routes (``Outcome``, ``Route``, ``Stop``), findings (limitations and
tool calls as reducer fields), the request (``DiagnosisRequest``), the public result (``DiagnosisResult``) and
time helpers. Category names and their meaning live in ``agent.taxonomy``.
"""
from workload_diagnose.agent.model.findings import Call, Limitation, ordered
from workload_diagnose.agent.model.outcomes import Outcome, Route, Stop
from workload_diagnose.agent.model.request import DiagnosisRequest
from workload_diagnose.agent.model.result import DiagnosisResult, EvidenceLine, Explanation, RecurrenceOut, ToolCall, WorkloadRef
from workload_diagnose.agent.model.signals import Kind, Signal

__all__ = ["Call", "DiagnosisRequest", "DiagnosisResult", "EvidenceLine", "Explanation", "Kind", "Limitation",
           "Outcome", "RecurrenceOut", "Route", "Signal", "Stop", "ToolCall", "WorkloadRef", "ordered"]
