"""What the product commands print on a terminal: the report, the spinner, the ``-v`` request lines.

One place decides whether escape sequences may be written at all: ``NO_COLOR`` (https://no-color.org: present
and not empty) means none, not even bold or the spinner's cursor moves; output that is not a terminal never has
any either. ``rich`` is imported only when something is drawn on a terminal.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, Callable, TextIO


def verbose_option() -> Any:
    """``-v/--verbose`` of every product command: each request it made, one line on stderr (``request_line``)."""
    import typer

    return typer.Option(False, "--verbose", "-v", help="Print each request (method, path, status, ms) to stderr.")


def allow_kube_exec_option() -> Any:
    """``--allow-kube-exec`` of every command that loads a kubeconfig (see :mod:`tools.kube.plugins`)."""
    import typer

    return typer.Option(False, "--allow-kube-exec",
                        help="Let the kubeconfig's user run its credential plugin (users[].user.exec, "
                             "auth-provider); refused otherwise (also: WD_KUBE_ALLOW_EXEC=1).")


def allow_kube_exec(flag: bool) -> None:
    """The flag is the variable: set it for this process, which the kubeconfig loader reads."""
    if flag:
        from workload_diagnose.tools.kube.plugins import ALLOW_EXEC_ENV

        os.environ[ALLOW_EXEC_ENV] = "1"


def no_color(environ: Any = None) -> bool:
    return bool((os.environ if environ is None else environ).get("NO_COLOR", ""))


def styled(stream: TextIO) -> bool:
    """May escape sequences be written to ``stream``? Only to a terminal, and never under NO_COLOR."""
    return not no_color() and stream.isatty()


def honour_no_color() -> None:
    """Make typer's help and usage-error panels plain text under NO_COLOR (rich alone would still emit bold)."""
    if no_color():
        from typer import rich_utils

        rich_utils.COLOR_SYSTEM = None


def print_report(text: str) -> None:
    """The report on stdout: bold headings on a styled terminal, else the text as it is. Lines are never
    wrapped by us (a long Workload line stays one line; the terminal soft-wraps it if it must)."""
    if not styled(sys.stdout):
        sys.stdout.write(text)
        return
    from rich.console import Console
    from rich.markup import escape

    con = Console(soft_wrap=True)
    for i, line in enumerate(text.splitlines()):
        if i == 0:
            con.print(f"[bold]{escape(line)}[/bold]")
        elif line.endswith(":") and not line.startswith("-"):
            con.print(f"[bold cyan]{escape(line)}[/bold cyan]")
        else:
            con.print(escape(line), highlight=False)


class Progress:
    """Per-step progress on stderr while a diagnosis runs, with the elapsed time.

    A spinner on a styled terminal (its text is re-rendered on every refresh, so the seconds keep counting); one
    plain line per step on a terminal under NO_COLOR; nothing when stderr is not a terminal or ``quiet``."""

    def __init__(self, first: str, *, quiet: bool = False) -> None:
        self._t0 = time.monotonic()
        self._msg = first
        self._lock = threading.Lock()
        self._status = None
        self._plain = False
        if quiet or not sys.stderr.isatty():
            return
        if no_color():
            self._plain = True
            self._line(first)
            return
        from rich.console import Console

        self._status = Console(stderr=True).status(_Elapsed(self))
        self._status.start()

    def elapsed(self) -> float:
        return time.monotonic() - self._t0

    def text(self) -> str:
        return f"{self._msg}… {self.elapsed():.1f}s"

    def update(self, step: str) -> None:
        self._msg = f"running {step}"
        if self._plain:
            self._line(self._msg)

    def echo(self, line: str) -> None:
        """A line on stderr that does not tear the spinner (``-v`` request lines)."""
        with self._lock:
            if self._status is not None:
                self._status.console.print(line, highlight=False, markup=False, soft_wrap=True)
            else:
                sys.stderr.write(line + "\n")
                sys.stderr.flush()

    def _line(self, msg: str) -> None:
        self.echo(f"workload-diagnose: {msg}… ({self.elapsed():.1f}s)")

    def stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None


class _Elapsed:
    """The spinner's text, rendered anew on every refresh."""

    def __init__(self, progress: Progress) -> None:
        self._p = progress

    def __rich__(self) -> Any:
        from rich.text import Text

        return Text(self._p.text())


def request_line(request: str, status: int | None, ms: float | None, attempts: int = 1) -> str:
    """``-v``: one read as ``METHOD /path?query STATUS in N ms``, redacted once more before it is printed."""
    from workload_diagnose import guardrails

    took = f" in {ms:.0f} ms" if ms is not None else ""
    tries = f" ({attempts} attempts)" if (attempts or 1) > 1 else ""
    return guardrails.redact(f"workload-diagnose: {request} -> {status if status is not None else 'no answer'}"
                             f"{took}{tries}")


def request_printer(echo: Callable[[str], None]) -> Callable[[Any, float], None]:
    """``failed -v``: prints each Run:ai read from its ``Invocation``, the request text ``tool_calls`` and the
    report cite."""

    def on_invocation(inv: Any, ms: float) -> None:
        echo(request_line(inv.request, inv.status_code, ms, inv.attempts))

    return on_invocation
