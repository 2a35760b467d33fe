"""The product command line. ``workload-diagnose failed ...`` is a public contract: keep it stable.

Heavy modules (langgraph, kubernetes, httpx) are imported inside the commands so ``--help`` stays fast.

Commands this module does not define come from plugins: installed distributions that declare an entry point in
the ``workload_diagnose.commands`` group naming a Typer app (the developer commands ``simulate``, ``demo``,
``eval``, ``record``, ``guardrails-report`` and ``bench`` are ``evals.cli:app``, installed with the ``evals``
extra). Plugins are loaded only to list commands (``--help``) or when a command not defined here is invoked;
one that cannot be imported is skipped, and invoking a command then says which extra to install.
"""
from __future__ import annotations

import sys
from typing import Any, Callable, Optional

import typer
from typer.core import TyperCommand, TyperGroup

from workload_diagnose.agent.entrypoints.errors import EXIT_HELP, EXIT_NEEDS_INPUT, fail, handled, usage
from workload_diagnose.agent.entrypoints.examples import ROOT as ROOT_EXAMPLES
from workload_diagnose.agent.entrypoints.examples import epilog, section
from workload_diagnose.agent.entrypoints.output import dump, missing_flags, output_format, output_option
from workload_diagnose.agent.entrypoints.terminal import allow_kube_exec as allow_kube_exec_flag
from workload_diagnose.agent.entrypoints.terminal import allow_kube_exec_option, verbose_option
from workload_diagnose.tools.runai import registry as tier1_registry

PLUGIN_GROUP = "workload_diagnose.commands"
EXTRA_HINT = "pip install 'workload-diagnose[evals]' (in a source checkout: pip install -e '.[evals]')"


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


class _FlagsAsFlags:
    """Help shows a boolean flag as a flag: no ``<bool>`` value column (typer would show one)."""

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)  # type: ignore[misc]
        for p in params:
            if getattr(p, "is_flag", False) and getattr(p, "metavar", "") is None:
                p.metavar = ""
        return params


class Command(_FlagsAsFlags, TyperCommand):
    """The product commands' class (``app.command(cls=Command)``)."""


class _Group(_FlagsAsFlags, TyperGroup):
    """The product's commands first, then the plugins' (never shadowing a product command)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        from workload_diagnose.agent.entrypoints.terminal import honour_no_color

        honour_no_color()
        return super().main(*args, **kwargs)

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
        examples = ROOT_EXAMPLES if "simulate" in PLUGINS.names(ctx) else ROOT_EXAMPLES[1:]
        self.epilog = section(examples)
        if PLUGINS.broken:  # typer's rich help prints no custom sections: the hint is in the epilog
            hint = f"Not loaded: {'; '.join(PLUGINS.broken)}. Install it with: {EXTRA_HINT}"
            if getattr(self, "rich_markup_mode", None) == "rich":  # else '[evals]' would be read as a style
                from rich.markup import escape

                hint = escape(hint)
            self.epilog = f"{self.epilog}\n\n{hint}"
        super().format_help(ctx, formatter)


app = typer.Typer(cls=_Group, add_completion=True, no_args_is_help=True,
                  context_settings={"help_option_names": ["-h", "--help"]},
                  help="Read-only diagnosis of failed GPU workloads on Run:ai (Kueue/KubeRay) clusters.")


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            v = version("workload-diagnose")
        except PackageNotFoundError:  # run from a source tree that was never installed
            v = "unknown (not installed)"
        typer.echo(f"workload-diagnose {v}")
        raise typer.Exit(0)


@app.callback()
def _group(
    _show_version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit."),
) -> None:  # a group: the procedures' commands, the product's others, then the plugins'
    pass


INTENTS = ("terminal", "active")


def _complete_intent(incomplete: str) -> list[str]:
    return [i for i in INTENTS if i.startswith(incomplete)]


def intent_option() -> Any:
    """``--intent terminal|active``: shown (and completed) as a choice, checked by ``check_intent`` so a bad value
    gets the same one-line error as every other bad input."""
    return typer.Option("terminal", "--intent", metavar="[terminal|active]", autocompletion=_complete_intent,
                        help="terminal (a past/terminal failure) or active (a current CrashLoopBackOff / start "
                             "failure).")


def runai_command(spec: Any) -> Callable[..., None]:
    """The command of a runai procedure (``agent.procedures.spec``): the options every Run:ai procedure shares, its
    help from the spec; it runs the procedure through ``agent.api`` and prints its report or ``--json`` object."""

    def command(
        cluster_id: Optional[str] = typer.Option(None, "--cluster-id", "--cluster",
                                                 help="The Run:ai cluster: its UUID or its exact name (required)."),
        workload_id: Optional[str] = typer.Option(None, "--workload-id", help="The workload's UUID (or give its "
                                                                              "name and project)."),
        workload_name: Optional[str] = typer.Option(None, "--workload-name", help="The workload's exact name "
                                                                                  "(with --project)."),
        project: Optional[str] = typer.Option(None, "--project", "-p", help="The project of --workload-name."),
        intent: str = intent_option(),
        lookback: str = typer.Option("7d", "--lookback", help="History window: 90m, 36h, 7d, 2w."),
        now: Optional[str] = typer.Option(None, "--now", help="Pin the clock (ISO 8601) for replays."),
        runai_url: Optional[str] = typer.Option(None, "--runai-url", help="Run:ai control plane URL "
                                                                         "(default: RUNAI_BASE_URL)."),
        kubeconfig: Optional[str] = typer.Option(None, "--kubeconfig", help="Read-only kubeconfig for Tier 2 "
                                                                            "(default: KUBECONFIG; never "
                                                                            "~/.kube/config)."),
        no_kube: bool = typer.Option(False, "--no-kube", help="Do not use Kubernetes (Tier 2) at all."),
        allow_kube_exec: bool = allow_kube_exec_option(),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object (as -o json)."),
        output: Optional[str] = output_option(),
        timeout: str = typer.Option("60", "--timeout", help="Stop every read after this many seconds; what was not "
                                                            "read is stated."),
        ca_file: Optional[str] = typer.Option(None, "--ca-file", help="PEM CA bundle for TLS (default: "
                                                                      "SSL_CERT_FILE, REQUESTS_CA_BUNDLE, else "
                                                                      "certifi)."),
        tier1: str = typer.Option("rest", "--tier1", metavar=tier1_registry.metavar(),
                                  help=tier1_registry.help_text() + "."),
        verbose: bool = verbose_option(),
    ) -> None:
        check_intent(intent)
        fmt = output_format(output, as_json)
        if kubeconfig and no_kube:
            usage("--kubeconfig and --no-kube cannot be used together")
        needs = missing_flags(cluster_id, workload_id, workload_name, project)
        if needs and fmt == "text":  # nothing to read: the flag that supplies it, in one line
            fail(needs, EXIT_NEEDS_INPUT)
        allow_kube_exec_flag(allow_kube_exec)
        from workload_diagnose.agent.api import run_procedure
        from workload_diagnose.agent.entrypoints.errors import result_exit_code
        from workload_diagnose.agent.model.request import is_uuid
        from workload_diagnose.agent.model.settings import Settings
        from workload_diagnose.agent.entrypoints.terminal import Progress, print_report, request_printer
        from workload_diagnose.agent.procedures.spec import load
        from workload_diagnose.tools.transport import plain_http_warning

        from workload_diagnose.agent.procedures import graph

        graph(spec.name)  # langgraph and the procedure's modules, compiled once (run_procedure would do it first)
        settle()
        if insecure := plain_http_warning(runai_url or Settings.from_env().runai_base_url or ""):
            typer.echo(f"workload-diagnose: warning: {insecure}", err=True)
        by_name = bool(cluster_id) and not is_uuid(cluster_id)  # a cluster NAME: resolved as the chat resolves one
        progress = Progress("resolving workload", quiet=fmt != "text")
        try:
            result = handled(lambda: run_procedure(
                spec.name, cluster_id=None if by_name else cluster_id, cluster_name=cluster_id if by_name else None,
                workload_id=workload_id, workload_name=workload_name,
                project=project, intent=intent, lookback=lookback, now=now, runai_url=runai_url,
                kubeconfig=kubeconfig, use_kube=not no_kube, progress=progress.update, timeout=timeout,
                ca_file=ca_file, tier1=tier1, on_invocation=request_printer(progress.echo) if verbose else None))
        except KeyboardInterrupt:  # every read was cancelled by the deadline's SIGINT hook: end now, no traceback
            progress.stop()
            _exit_now("interrupted: nothing was diagnosed", 130)
        finally:
            progress.stop()
        if fmt != "text":  # (``next`` names the command that answers a route: kit.routing's answered_by)
            sys.stdout.write(dump(result.model_dump(mode="json"), fmt))
        else:
            print_report(load(spec.report)(result) if spec.report else result.report)
        code = result_exit_code(result.route)
        if needs and code:
            typer.echo(f"workload-diagnose: error: {needs}", err=True)
        if code:
            raise typer.Exit(code)

    command.__doc__ = spec.command.help
    command.__name__ = spec.command.name
    return command


def check_intent(intent: str) -> None:
    if intent not in INTENTS:
        usage(f"--intent must be 'terminal' or 'active', not {intent!r}")


def _exit_now(msg: str, code: int) -> None:
    """The one-line error, then exit at once: no interpreter teardown (collecting langgraph's objects takes a
    second on a loaded machine; an interrupted user should not wait for it)."""
    import os
    import sys

    typer.echo(f"workload-diagnose: error: {msg}", err=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _procedure_commands() -> None:
    """One command per registered procedure that declares one, in registry order, before the other commands."""
    from workload_diagnose.agent.procedures import specs
    from workload_diagnose.agent.procedures.spec import load

    for spec in specs().values():
        if spec.command is None:
            continue
        if spec.command.impl:
            app.command(spec.command.name, cls=Command, epilog=epilog(spec.command.name))(load(spec.command.impl))
        else:
            app.command(spec.command.name, cls=Command, epilog=epilog(spec.command.name, EXIT_HELP))(
                runai_command(spec))


_procedure_commands()
from workload_diagnose.agent.entrypoints.triage_cmd import triage  # noqa: E402  (fleet triage, issue 15)

app.command("triage", cls=Command, epilog=epilog("triage"))(triage)
from workload_diagnose.agent.entrypoints.chat_cmd import ask, chat  # noqa: E402  (the chat assistant, issue 12)

app.command("chat", cls=Command, epilog=epilog("chat"))(chat)
app.command("ask", cls=Command, epilog=epilog("ask"))(ask)
from workload_diagnose.agent.entrypoints.serve_cmd import serve  # noqa: E402  (the HTTP service, issue 13)

app.command("serve", cls=Command, epilog=epilog("serve"))(serve)
from workload_diagnose.agent.entrypoints.mcp_cmd import mcp  # noqa: E402  (the MCP server, issue 13)

app.command("mcp", cls=Command, epilog=epilog("mcp"))(mcp)


_ONE_COMMAND_PROCESS = False  # set by main(): this process runs one command, then exits


def settle() -> None:
    """In a process that runs one command and exits (``main``, not an application or a test calling ``app``), what
    it has imported so far (modules, classes, a compiled graph) lives until the exit, so the cyclic garbage
    collector is told not to scan it again (``gc.freeze``); it still collects what the command itself creates.
    Without this, a cold ``failed`` run spends about a tenth of its CPU in collections that re-scan langgraph's and
    pydantic's import-time objects and find nothing to free (``workload-diagnose bench --only cold_cli``)."""
    if _ONE_COMMAND_PROCESS:
        import gc

        gc.freeze()


def main() -> None:  # console-script entry point (also `python -m workload_diagnose.agent.entrypoints.cli`: same name, same
    global _ONE_COMMAND_PROCESS  # completion variable _WORKLOAD_DIAGNOSE_COMPLETE)
    _ONE_COMMAND_PROCESS = True
    settle()  # (typer's and this module's objects; a command settles again after its own imports)
    app(prog_name="workload-diagnose")


if __name__ == "__main__":
    main()
