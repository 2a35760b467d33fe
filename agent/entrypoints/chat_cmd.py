"""``workload-diagnose chat`` (an interactive conversation) and ``workload-diagnose ask "QUESTION"`` (one turn for
scripts and bots; ``--json`` prints ``{thread_id, reply, needs_input, missing, diagnosis, usage}``). Both call
``agent.chat.api.chat``; the conversation lives in the chat store (``agent/chat/store.py``) keyed by ``--thread``."""
from __future__ import annotations

import json
import sys
from typing import Any, Optional

import typer

from workload_diagnose.agent.entrypoints.output import dump, output_format, output_option
from workload_diagnose.agent.entrypoints.terminal import (allow_kube_exec, allow_kube_exec_option, request_printer,
                                                          verbose_option)

THREAD = typer.Option(None, "--thread", help="Continue this conversation (default: a new thread).")
RUNAI_URL = typer.Option(None, "--runai-url", help="Run:ai control plane URL (default: RUNAI_BASE_URL).")
KUBECONFIG = typer.Option(None, "--kubeconfig", help="Read-only kubeconfig for Tier 2.")
NO_KUBE = typer.Option(False, "--no-kube", help="Do not use Kubernetes (Tier 2) at all.")
ALLOW_KUBE_EXEC = allow_kube_exec_option()
NOW = typer.Option(None, "--now", help="Pin the clock (ISO 8601) for replays.")
LLM = typer.Option(None, "--llm", help="Model name at an OpenAI-compatible endpoint (default: WD_LLM_MODEL; none: "
                                       "fully deterministic).")
LLM_URL = typer.Option(None, "--llm-url", help="OpenAI-compatible base URL (default: WD_LLM_BASE_URL).")
STORE = typer.Option(None, "--store", help="Chat store: a SQLite path or postgresql://... (default: "
                                           "WD_CHAT_STORE, WD_CHAT_POSTGRES_DSN, else the XDG state directory).")
VERBOSE = verbose_option()
EXIT_INTERRUPTED = 130


def resume_hint(thread_id: str) -> str:
    return f"continue this conversation with: workload-diagnose chat --thread {thread_id}"


def _setup(kubeconfig: str | None, no_kube: bool, llm: str | None, llm_url: str | None,
           allow_exec: bool = False) -> Any:
    from workload_diagnose.agent.entrypoints.errors import handled, usage

    if kubeconfig and no_kube:
        usage("--kubeconfig and --no-kube cannot be used together")
    allow_kube_exec(allow_exec)
    from workload_diagnose.agent.chat.llm import from_settings

    return handled(lambda: from_settings(llm, llm_url))


def _new_thread() -> str:
    import uuid

    return str(uuid.uuid4())


def ask(
    question: str = typer.Argument(..., help="The question, e.g. \"why did train-42 in ml-team fail?\""),
    thread: Optional[str] = THREAD, runai_url: Optional[str] = RUNAI_URL, kubeconfig: Optional[str] = KUBECONFIG,
    no_kube: bool = NO_KUBE, now: Optional[str] = NOW, llm: Optional[str] = LLM, llm_url: Optional[str] = LLM_URL,
    store: Optional[str] = STORE,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object (as -o json)."),
    output: Optional[str] = output_option(), allow_exec: bool = ALLOW_KUBE_EXEC, verbose: bool = VERBOSE,
) -> None:
    """Ask one question; continue the conversation with the same --thread (read-only)."""
    from workload_diagnose.agent.chat.api import chat
    from workload_diagnose.agent.entrypoints.errors import handled
    from workload_diagnose.agent.entrypoints.terminal import print_report

    fmt = output_format(output, as_json)
    model = _setup(kubeconfig, no_kube, llm, llm_url, allow_exec)
    thread_id = thread or _new_thread()
    shown = request_printer(lambda line: typer.echo(line, err=True)) if verbose else None
    try:
        r = handled(lambda: chat(thread_id, question, store=store, runai_url=runai_url, kubeconfig=kubeconfig,
                                 use_kube=not no_kube, now=now, llm=model, on_invocation=shown))
    except KeyboardInterrupt:
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if fmt == "json":
        typer.echo(json.dumps(r.model_dump(mode="json"), indent=2))
        return
    if fmt == "yaml":
        sys.stdout.write(dump(r.model_dump(mode="json"), fmt))
        return
    print_report(r.reply.rstrip("\n") + "\n")
    if not thread:
        typer.echo(f"(thread {thread_id}: continue with --thread {thread_id})", err=True)


def chat(
    thread: Optional[str] = THREAD, runai_url: Optional[str] = RUNAI_URL, kubeconfig: Optional[str] = KUBECONFIG,
    no_kube: bool = NO_KUBE, now: Optional[str] = NOW, llm: Optional[str] = LLM, llm_url: Optional[str] = LLM_URL,
    store: Optional[str] = STORE, allow_exec: bool = ALLOW_KUBE_EXEC, verbose: bool = VERBOSE,
) -> None:
    """An interactive conversation: ask why a workload failed, in your own words.

    Ctrl-C clears the line you are typing (and stops a diagnosis that is running, exit 130); Ctrl-D or 'exit'
    leaves and prints how to continue the conversation."""
    try:
        allow_kube_exec(allow_exec)
        _chat_loop(thread, runai_url, kubeconfig, no_kube, now, llm, llm_url, store, verbose)
    except KeyboardInterrupt:  # during a turn: its reads were stopped; nothing of the turn was stored
        sys.stderr.write("\n")
        raise typer.Exit(EXIT_INTERRUPTED) from None


def _chat_loop(thread: str | None, runai_url: str | None, kubeconfig: str | None, no_kube: bool, now: str | None,
               llm: str | None, llm_url: str | None, store: str | None, verbose: bool = False) -> None:
    import contextlib

    from rich.console import Console
    from rich.markup import escape

    from workload_diagnose.agent.chat.api import chat as chat_turn
    from workload_diagnose.agent.chat.store import open_checkpointer
    from workload_diagnose.agent.entrypoints import errors
    from workload_diagnose.agent.entrypoints.errors import handled
    from workload_diagnose.agent.entrypoints.terminal import print_report

    model = _setup(kubeconfig, no_kube, llm, llm_url)
    thread_id = thread or _new_thread()
    con = Console(stderr=True)
    _history()
    with contextlib.ExitStack() as stack:
        cp = handled(lambda: stack.enter_context(open_checkpointer(store)))
        con.print(f"[bold]workload-diagnose chat[/bold] (read-only) · thread {escape(thread_id)}\n"
                  "Ask why a Run:ai workload failed. Ctrl-C clears the line; Ctrl-D or 'exit' to leave.",
                  highlight=False)
        shown = request_printer(lambda text: con.print(text, highlight=False, markup=False)) if verbose else None
        while True:
            try:
                line = input("you> ")
            except KeyboardInterrupt:  # at the prompt: the line is dropped, the conversation goes on (REPL)
                sys.stderr.write("^C\n")
                continue
            except EOFError:
                sys.stderr.write("\n")
                line = "exit"
            if not line.strip():
                continue
            if line.strip().lower() in ("exit", "quit", "bye"):
                con.print(f"bye: {resume_hint(thread_id)}", highlight=False, markup=False)
                return
            status = con.status("understanding…")
            status.start()
            try:
                r = chat_turn(thread_id, line, checkpointer=cp, runai_url=runai_url, kubeconfig=kubeconfig,
                              use_kube=not no_kube, now=now, llm=model, on_invocation=shown,
                              progress=lambda m: _step(con, status, m))
            except errors.HANDLED as e:
                status.stop()
                con.print(f"[red]workload-diagnose: error: {escape(str(e))}[/red]", highlight=False)
                continue
            finally:
                status.stop()
            print_report(r.reply.rstrip("\n") + "\n")


def _step(con: Any, status: Any, message: str) -> None:
    """Per-step progress while evidence is gathered: the spinner says what runs, and each read is listed."""
    from rich.markup import escape

    status.update(f"running {escape(message)}…")
    con.print(f"[dim]  · {escape(message)}[/dim]", highlight=False)


def _history() -> None:
    """Prompt history (arrow keys) kept in the state directory, when readline is available."""
    try:
        import atexit
        import readline

        from workload_diagnose.agent.chat.store import state_dir
    except ImportError:
        return
    path = state_dir() / "chat_history"
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if path.exists():
            readline.read_history_file(str(path))
    except OSError:
        return
    readline.set_history_length(500)

    def save() -> None:
        try:
            readline.write_history_file(str(path))
            path.chmod(0o600)
        except OSError:
            pass

    atexit.register(save)
