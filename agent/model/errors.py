"""The one table from the product's exceptions to exit codes (CLI) and HTTP statuses (the HTTP service, MCP).

``workload-diagnose failed`` exits 0 whenever a result was produced, except the results in ``RESULT_EXITS``
(the object is still printed); ``FAILURES`` are the failures that produce none.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from workload_diagnose.agent.model.outcomes import Route
from workload_diagnose.tools.base import ErrorKind, ToolFailure
from workload_diagnose.tools.runai import ApiAuthError, ApiUnavailable, InvalidInput

EXIT_OK = 0
EXIT_USAGE, EXIT_UNREACHABLE, EXIT_AUTH = 2, 3, 4
EXIT_NEEDS_INPUT = 5  # a result was printed, but a required identifier is missing: nothing was diagnosed


def _unavailable_status(e: BaseException) -> int:
    """504 when the API timed out, 502 for every other way it could not answer."""
    cause = e.__cause__
    if isinstance(cause, ToolFailure) and cause.kind == ErrorKind.TIMEOUT:
        return 504
    # the graph re-raises a failed read with the tool's message, whose timeout wording is fixed in tools.runai
    return 504 if " timed out (" in str(e) else 502


def _auth_status(e: BaseException) -> int:
    """401 when the credentials were refused, 403 when they are valid but may not read the workload."""
    msg = str(e)
    return 403 if ("may not read" in msg or "(HTTP 403)" in msg) else 401


@dataclass(frozen=True)
class Failure:
    exc: type[BaseException]
    exit_code: int
    http_status: int | Callable[[BaseException], int]
    meaning: str


FAILURES: tuple[Failure, ...] = (
    Failure(InvalidInput, EXIT_USAGE, 422, "bad input: nothing was requested"),
    Failure(ApiUnavailable, EXIT_UNREACHABLE, _unavailable_status, "the API (Run:ai or Kubernetes) cannot be reached"),
    Failure(ApiAuthError, EXIT_AUTH, _auth_status, "the API (Run:ai or Kubernetes) refused the credentials"),
)
HANDLED: tuple[type[BaseException], ...] = tuple(f.exc for f in FAILURES)

# Results that are printed but are not an answer a script may take for one: route -> exit code.
RESULT_EXITS: dict[str, int] = {Route.MISSING_PARAMETERS.value: EXIT_NEEDS_INPUT}
EXIT_HELP = ("Exit status: 0 a result was printed; 2 bad input; 3 the API cannot be reached; 4 the API refused "
             "the credentials; 5 a required identifier is missing (the JSON needs_input object is still printed); "
             "130 interrupted (Ctrl-C).")


def result_exit_code(route: str | None) -> int:
    """The exit code of a printed result: 0, or the distinct code of a result that asks for more input."""
    return RESULT_EXITS.get(route or "", EXIT_OK)


def _lookup(e: BaseException) -> Failure:
    for f in FAILURES:
        if isinstance(e, f.exc):
            return f
    raise TypeError(f"{type(e).__name__} is not a mapped failure") from e


def exit_code(e: BaseException) -> int:
    return _lookup(e).exit_code


def http_status(e: BaseException) -> int:
    s = _lookup(e).http_status
    return s if isinstance(s, int) else s(e)

