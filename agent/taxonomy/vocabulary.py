"""Words more than one record needs: exit codes as system messages state them ("terminated with exit code 137")
and as container states report them, and an application's own out-of-memory errors (an application error, never
a kernel OOM kill)."""
from __future__ import annotations

import re

# (kubectl describe pads its fields: "Exit Code:    137")
EXIT_CODE_MSG = re.compile(r"\bexit(?:ed)?[ _]?(?:with )?(?:code|status)\b(?:\W{0,3}|:\s{0,12})(\d{1,3})\b|"
                           r"\bexitCode(?:\W{0,3}|:\s{0,12})(\d{1,3})\b", re.IGNORECASE)
# An out-of-memory EXCEPTION raised by the application (CUDA/GPU or a runtime heap)
APP_OOM = (r"\bCUDA out of memory\b|\bCUDA error: out of memory\b|\bOutOfMemoryError\b|"
           r"\bcudaErrorMemoryAllocation\b|\bCUDA_ERROR_OUT_OF_MEMORY\b|\bHIP out of memory\b|"
           r"\bRESOURCE_EXHAUSTED: OOM\b|\bout of memory on (?:GPU|device)\b")

SIGKILL, SIGTERM = 137, 143
# every code a message can state (three digits) that is a failure
NONZERO = frozenset(range(1, 1000))

_SIGNALS = {129: "SIGHUP", 130: "SIGINT", 131: "SIGQUIT", 132: "SIGILL", 134: "SIGABRT", 135: "SIGBUS",
            136: "SIGFPE", 137: "SIGKILL", 139: "SIGSEGV", 141: "SIGPIPE", 143: "SIGTERM"}


def exit_code_from(message: str | None) -> int | None:
    m = EXIT_CODE_MSG.search(message or "")
    if not m:
        return None
    return int(m.group(1) or m.group(2))


def signal_name(code: int | None) -> str | None:
    return _SIGNALS.get(code) if code is not None else None
