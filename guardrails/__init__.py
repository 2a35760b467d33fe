"""Guardrails: evidence is untrusted data.

* redaction of credentials in every piece of evidence (``redact``, ``redact_value``)
* prompt-injection defence (``normalise``, ``detect_injection``, ``sanitize_text``, ``sanitize_value``,
  ``new_marker``, ``spotlight``)
* validation of LLM-written text (``validate_llm_output``)
* vcrpy cassette hooks (``guardrails.cassette``)
* corpora + measurements (``guardrails.corpora``, ``guardrails.report``)
"""

from .injection import (
    InjectionFinding,
    SanitizedText,
    detect_injection,
    new_marker,
    normalise,
    sanitize_text,
    sanitize_value,
    spotlight,
    spotlight_instructions,
)
from .redaction import marker, redact, redact_value, redact_value_with_count, redact_with_count
from .validate import ValidationResult, validate_llm_output

__all__ = [
    "InjectionFinding",
    "SanitizedText",
    "ValidationResult",
    "detect_injection",
    "marker",
    "new_marker",
    "normalise",
    "redact",
    "redact_value",
    "redact_value_with_count",
    "redact_with_count",
    "sanitize_text",
    "sanitize_value",
    "spotlight",
    "spotlight_instructions",
    "validate_llm_output",
]
