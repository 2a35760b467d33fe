"""How a command ends on a failure that produced no result: one line on stderr and the table's exit code
(:mod:`workload_diagnose.agent.model.errors`: the one table, shared with the HTTP service and the MCP server)."""
from __future__ import annotations

from typing import Any, Callable

import typer

from workload_diagnose.agent.model.errors import (EXIT_AUTH, EXIT_HELP, EXIT_NEEDS_INPUT, EXIT_OK,  # noqa: F401
                                                  EXIT_UNREACHABLE, EXIT_USAGE, FAILURES, HANDLED, exit_code,
                                                  http_status, result_exit_code)


def fail(msg: str, code: int) -> None:
    """The one-line error every command prints for a failure that produced no result."""
    typer.echo(f"workload-diagnose: error: {msg}", err=True)
    raise typer.Exit(code)


def usage(msg: str) -> None:
    """Bad input on the command line: one line, exit 2."""
    fail(msg, EXIT_USAGE)


def handled(fn: Callable[[], Any], *more: tuple[type[BaseException], int]) -> Any:
    """Run ``fn``; a mapped failure (``FAILURES``, plus ``more`` (exception, exit code) pairs) becomes its one-line
    error and exit code."""
    extra = tuple(exc for exc, _ in more)
    try:
        return fn()
    except HANDLED + extra as e:
        code = next((c for exc, c in more if isinstance(e, exc)), None)
        fail(str(e), code if code is not None else exit_code(e))
