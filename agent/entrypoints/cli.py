"""The product command line. ``workload-diagnose failed ...`` is a public contract: keep it stable.

Heavy modules (langgraph, kubernetes, httpx) are imported inside the commands so ``--help`` stays fast.

Commands this module does not define come from plugins: installed distributions that declare an entry point in
the ``workload_diagnose.commands`` group naming a Typer app (the developer commands ``simulate``, ``demo``,
``eval``, ``record``, ``guardrails-report`` and ``bench`` are ``evals.cli:app``, installed with the ``evals``
extra). Plugins are loaded only to list commands (``--help``) or when a command not defined here is invoked;
one that cannot be imported is skipped, and invoking a command then says which extra to install.
"""
from __future__ import annotations

import json
import sys
from typing import Any, Callable, Optional

import typer
from typer.core import TyperGroup

from agent.entrypoints.errors import fail

PLUGIN_GROUP = "workload_diagnose.commands"
EXTRA_HINT = "pip install 'workload-diagnose[evals]' (in a source checkout: pip install -e '.[evals]')"


def handled(fn: Callable[[], Any], *more: tuple[type[BaseException], int]) -> Any:
    """Run ``fn``; a mapped failure (``errors.FAILURES``, plus ``more`` (exception, exit code) pairs) becomes its
    one-line error and exit code."""
    from agent.entrypoints import errors

    extra = tuple(exc for exc, _ in more)
    try:
        return fn()
    except errors.HANDLED + extra as e:
        code = next((c for exc, c in more if isinstance(e, exc)), None)
        fail(str(e), code if code is not None else errors.exit_code(e))


class _Plugins:
    """Entry points of ``PLUGIN_GROUP``, imported at most once per process."""

    def __init__(self) -> None:
        self._groups: list[Any] | None = None  # click groups (typer vendors click from 0.17 on: duck-typed)
        self.broken: list[str] = []  # "name (ModuleNotFoundError: ...)" for plugins that could not be imported

    def groups(self) -> list[Any]:
        if self._groups is None:
            from importlib.metadata import entry_points

            self._groups = []
            for ep in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: e.name):
                try:
                    obj = ep.load()
                except ImportError as e:
                    self.broken.append(f"{ep.name} ({type(e).__name__}: {e})")
                    continue
                grp = typer.main.get_command(obj) if isinstance(obj, typer.Typer) else obj
                if hasattr(grp, "get_command") and hasattr(grp, "list_commands"):
                    self._groups.append(grp)
                else:
                    self.broken.append(f"{ep.name} (entry point {ep.value} is not a Typer app or click group)")
        return self._groups

    def command(self, ctx: Any, name: str) -> Any:
        for grp in self.groups():
            cmd = grp.get_command(ctx, name)
            if cmd is not None:
                return cmd
        return None

    def names(self, ctx: Any) -> list[str]:
        return [n for grp in self.groups() for n in grp.list_commands(ctx)]


PLUGINS = _Plugins()


class _Group(TyperGroup):
    """The product's commands first, then the plugins' (never shadowing a product command)."""

    def list_commands(self, ctx: Any) -> list[str]:
        own = super().list_commands(ctx)
        return own + [n for n in PLUGINS.names(ctx) if n not in own]

    def get_command(self, ctx: Any, name: str) -> Any:
        cmd = super().get_command(ctx, name) or PLUGINS.command(ctx, name)
        if cmd is None and PLUGINS.broken and not ctx.resilient_parsing:
            fail(f"no command {name!r}; a plugin that may provide it could not be loaded: "
                 f"{'; '.join(PLUGINS.broken)}. Install it with: {EXTRA_HINT}", 2)
        return cmd

    def format_help(self, ctx: Any, formatter: Any) -> None:
        PLUGINS.groups()
        if PLUGINS.broken:  # typer's rich help prints no custom sections: the hint is the epilog
            hint = f"Not loaded: {'; '.join(PLUGINS.broken)}. Install it with: {EXTRA_HINT}"
            if getattr(self, "rich_markup_mode", None) == "rich":  # else '[evals]' would be read as a style
                from rich.markup import escape

                hint = escape(hint)
            self.epilog = hint
        super().format_help(ctx, formatter)


app = typer.Typer(cls=_Group, add_completion=False, no_args_is_help=True,
                  help="Read-only diagnosis of failed GPU workloads on Run:ai (Kueue/KubeRay) clusters.")


@app.callback()
def _group() -> None:  # a group even while 'failed' is the product's only command: plugins add more
    pass


@app.command()
def failed(
    cluster_id: Optional[str] = typer.Option(None, "--cluster-id", help="Run:ai cluster UUID (required)."),
    workload_id: Optional[str] = typer.Option(None, "--workload-id", help="Option A: the workload UUID."),
    workload_name: Optional[str] = typer.Option(None, "--workload-name", help="Option B: exact workload name."),
    project: Optional[str] = typer.Option(None, "--project", help="Option B: the project name."),
    intent: str = typer.Option("terminal", "--intent", help="terminal (a past/terminal failure) or active "
                                                           "(a current CrashLoopBackOff / start failure)."),
    lookback: str = typer.Option("7d", "--lookback", help="History window: 90m, 36h, 7d, 2w."),
    now: Optional[str] = typer.Option(None, "--now", help="Pin the clock (ISO 8601) for replays."),
    runai_url: Optional[str] = typer.Option(None, "--runai-url", help="Run:ai control plane URL "
                                                                     "(default: RUNAI_BASE_URL)."),
    kubeconfig: Optional[str] = typer.Option(None, "--kubeconfig", help="Read-only kubeconfig for Tier 2."),
    no_kube: bool = typer.Option(False, "--no-kube", help="Do not use Kubernetes (Tier 2) at all."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Diagnose why one Run:ai workload failed (credentials: RUNAI_CLIENT_ID / RUNAI_CLIENT_SECRET)."""
    check_intent(intent)
    if kubeconfig and no_kube:
        _usage("--kubeconfig and --no-kube cannot be used together")
    from agent.api import diagnose

    progress_cb = None
    status = None
    if not as_json and sys.stderr.isatty():
        from rich.console import Console

        status = Console(stderr=True).status("resolving workload…")
        status.start()
        progress_cb = lambda m: status.update(f"running {m}…")  # noqa: E731
    try:
        result = handled(lambda: diagnose(
            cluster_id=cluster_id, workload_id=workload_id, workload_name=workload_name, project=project,
            intent=intent, lookback=lookback, now=now, runai_url=runai_url, kubeconfig=kubeconfig,
            use_kube=not no_kube, progress=progress_cb))
    finally:
        if status is not None:
            status.stop()
    if as_json:
        typer.echo(json.dumps(result.model_dump(mode="json"), indent=2, sort_keys=False))
    else:
        _print_report(result.report)


def check_intent(intent: str) -> None:
    if intent not in ("terminal", "active"):
        _usage(f"--intent must be 'terminal' or 'active', not {intent!r}")


def _usage(msg: str) -> None:
    from agent.entrypoints.errors import EXIT_USAGE

    fail(msg, EXIT_USAGE)


def _print_report(text: str) -> None:
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.markup import escape

        con = Console()
        for i, line in enumerate(text.splitlines()):
            if i == 0:
                con.print(f"[bold]{escape(line)}[/bold]")
            elif line.endswith(":") and not line.startswith("-"):
                con.print(f"[bold cyan]{escape(line)}[/bold cyan]")
            else:
                con.print(escape(line), highlight=False)
    else:
        sys.stdout.write(text)


from agent.entrypoints.lifecycle_cmd import lifecycle  # noqa: E402  (Kueue/KubeRay lifecycle view, issue 11)

app.command("lifecycle")(lifecycle)
from agent.entrypoints.serve_cmd import serve  # noqa: E402  (the HTTP service, issue 13)
app.command("serve")(serve)
from agent.entrypoints.mcp_cmd import mcp  # noqa: E402  (the MCP server, issue 13)
app.command("mcp")(mcp)


def main() -> None:  # console-script entry point
    app()


if __name__ == "__main__":
    main()
