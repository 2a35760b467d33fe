"""Generated corpora for measuring the guardrails.

* ``secrets``   – vendor-format secrets embedded in realistic evidence, key-labelled generic secrets,
                   hard negatives (generator independent of the detector's regexes)
* ``injection`` – prompt-injection payloads per evidence location (``injection_corpus()``) + held-out
                   paraphrases
* ``benign``    – benign evidence lines with legitimate imperatives, and a realistic large log
"""

from .benign import benign_lines, realistic_log
from .injection import heldout_injection_cases, injection_cases, injection_corpus
from .secrets import generic_samples, hard_negatives, known_format_samples

__all__ = [
    "benign_lines",
    "generic_samples",
    "hard_negatives",
    "heldout_injection_cases",
    "injection_cases",
    "injection_corpus",
    "known_format_samples",
    "realistic_log",
]
