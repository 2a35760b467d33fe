"""The command line. ``workload-diagnose failed ...`` is a public contract: keep it stable.

Heavy modules (langgraph, kubernetes, httpx) are imported inside the commands so ``--help`` stays fast.
"""
from __future__ import annotations

import json
import sys
from typing import Optional

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Read-only diagnosis of failed GPU workloads on Run:ai (Kueue/KubeRay) clusters.")

EXIT_USAGE, EXIT_UNREACHABLE, EXIT_AUTH = 2, 3, 4


def _err(msg: str, code: int) -> None:
    typer.echo(f"workload-diagnose: error: {msg}", err=True)
    raise typer.Exit(code)


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
    if intent not in ("terminal", "active"):
        _err(f"--intent must be 'terminal' or 'active', not {intent!r}", EXIT_USAGE)
    if kubeconfig and no_kube:
        _err("--kubeconfig and --no-kube cannot be used together", EXIT_USAGE)
    from agent.api import ApiAuthError, ApiUnavailable, InvalidInput, diagnose

    progress_cb = None
    status = None
    if not as_json and sys.stderr.isatty():
        from rich.console import Console

        status = Console(stderr=True).status("resolving workload…")
        status.start()
        progress_cb = lambda m: status.update(f"running {m}…")  # noqa: E731
    try:
        result = diagnose(cluster_id=cluster_id, workload_id=workload_id, workload_name=workload_name,
                          project=project, intent=intent, lookback=lookback, now=now, runai_url=runai_url,
                          kubeconfig=kubeconfig, use_kube=not no_kube, progress=progress_cb)
    except InvalidInput as e:
        _err(str(e), EXIT_USAGE)
    except ApiAuthError as e:
        _err(str(e), EXIT_AUTH)
    except ApiUnavailable as e:
        _err(str(e), EXIT_UNREACHABLE)
    finally:
        if status is not None:
            status.stop()
    if as_json:
        typer.echo(json.dumps(result.model_dump(mode="json"), indent=2, sort_keys=False))
    else:
        _print_report(result.report)


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


@app.command()
def simulate(
    world: str = typer.Argument(..., help="A scenario directory or its world.json."),
    port: int = typer.Option(8780, "--port"),
    delay_ms: int = typer.Option(0, "--delay-ms", help="Injected latency per request."),
) -> None:
    """Serve a scenario world through the real Run:ai API paths on 127.0.0.1 (for demos and recording)."""
    from evals.simulator import serve_forever

    serve_forever(world, port=port, delay_ms=delay_ms)


@app.command()
def demo(
    scenario: str = typer.Option("core/oom-metrics", "--scenario", help="A bundled scenario (suite/name)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Start the Run:ai simulator on a bundled scenario and diagnose it (no cluster, LLM or credentials)."""
    from evals.scenarios import load_scenario
    from evals.simulator import running_simulator

    sc = load_scenario(scenario)
    with running_simulator(sc.world) as sim:
        typer.echo(f"# Run:ai simulator serving scenario {sc.id} at {sim.url}", err=True)
        args = ["--runai-url", sim.url, "--no-kube"] + sc.cli_args()
        if as_json:
            args.append("--json")
        import os

        os.environ["RUNAI_CLIENT_ID"] = sim.client_id
        os.environ["RUNAI_CLIENT_SECRET"] = sim.client_secret
        typer.echo("# workload-diagnose failed " + " ".join(args), err=True)
        try:
            app(["failed", *args], standalone_mode=False)
        except SystemExit as e:  # pragma: no cover - typer's own exit
            if e.code:
                raise


@app.command("eval")
def eval_(
    suites: Optional[list[str]] = typer.Argument(None, help="Suites or scenarios (e.g. core, core/oom-metrics)."),
    record: bool = typer.Option(False, "--record", help="Re-record the cassettes from the simulator."),
    faults: bool = typer.Option(False, "--faults", help="Also run every scenario live against the simulator with "
                                                        "each injected fault in turn (the fault matrix)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", min=1, help="Worker processes (default: CPUs, at most 8; "
                                                                   "the fault matrix defaults to twice that)."),
    out: Optional[str] = typer.Option(None, "--out", help="Write scoreboard.json, timings.json, junit.xml and "
                                                          "report.html into this directory."),
    baseline: Optional[str] = typer.Option(None, "--baseline", help="Fail on a regression against this scoreboard "
                                                                    "(default evals/baseline.json; '' for none)."),
) -> None:
    """Replay scenario cassettes and score them (or re-record them with --record); --faults adds the fault matrix."""
    import os

    from evals.suite import run

    if jobs is None:
        cpus = max(1, min(8, os.cpu_count() or 1))
        jobs = min(16, 2 * cpus) if faults else cpus  # fault runs spend much of their time waiting
    raise typer.Exit(run(suites or None, do_record=record, echo=typer.echo, faults=faults, jobs=jobs, out=out,
                         baseline=baseline))


@app.command()
def record(
    out: str = typer.Option(..., "--out", help="The new scenario directory, e.g. evals/scenarios/captured/<name>."),
    cluster_id: Optional[str] = typer.Option(None, "--cluster-id", help="Run:ai cluster UUID (required)."),
    workload_id: Optional[str] = typer.Option(None, "--workload-id", help="Option A: the workload UUID."),
    workload_name: Optional[str] = typer.Option(None, "--workload-name", help="Option B: exact workload name."),
    project: Optional[str] = typer.Option(None, "--project", help="Option B: the project name."),
    intent: str = typer.Option("terminal", "--intent", help="terminal or active (as for 'failed')."),
    lookback: str = typer.Option("7d", "--lookback", help="History window: 90m, 36h, 7d, 2w."),
    now: Optional[str] = typer.Option(None, "--now", help="Pin the clock (default: now; stored in case.json)."),
    runai_url: Optional[str] = typer.Option(None, "--runai-url", help="Run:ai control plane URL "
                                                                     "(default: RUNAI_BASE_URL)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing scenario directory's files."),
) -> None:
    """Capture a scenario from a real control plane: a redacted cassette plus case.json ("confirmed": false).

    Credentials come from RUNAI_CLIENT_ID / RUNAI_CLIENT_SECRET. Authorization headers and cookies are dropped,
    every body passes the redactor, the host is rewritten; the verdict produced is stored for a human to confirm.
    Tier 2 (Kubernetes) is not used: a captured scenario replays the Run:ai exchanges only.
    """
    if intent not in ("terminal", "active"):
        _err(f"--intent must be 'terminal' or 'active', not {intent!r}", EXIT_USAGE)
    from agent.api import ApiAuthError, ApiUnavailable, InvalidInput
    from evals.capture import CaptureError, capture

    try:
        sc, res = capture(out=out, cluster_id=cluster_id, workload_id=workload_id, workload_name=workload_name,
                          project=project, intent=intent, lookback=lookback, now=now, runai_url=runai_url,
                          force=force)
    except (InvalidInput, CaptureError) as e:
        _err(str(e), EXIT_USAGE)
    except ApiAuthError as e:
        _err(str(e), EXIT_AUTH)
    except ApiUnavailable as e:
        _err(str(e), EXIT_UNREACHABLE)
    typer.echo(f"captured {sc.path}: {res.outcome} {res.category or res.route} (confirmed: false — review "
               f"{sc.path / 'case.json'} and set \"confirmed\": true)")


@app.command("guardrails-report")
def guardrails_report(
    size_mb: int = typer.Option(50, "--size-mb", help="Size of the generated realistic log to time."),
    out: str = typer.Option("out/guardrails-report.json", "--out", help="Where to write the JSON."),
    injection: bool = typer.Option(True, "--injection/--no-injection",
                                   help="Also run the graph-level injection matrix over the core scenarios."),
) -> None:
    """Measure the guardrails: secret recall (full span), benign lines altered, MB/s, linearity, injections."""
    import json
    from pathlib import Path

    from guardrails.report import main as report_main

    Path(out).parent.mkdir(parents=True, exist_ok=True)
    report_main(size_mb=size_mb, out=out)
    if injection:
        from evals.injection import run_matrix
        from evals.scenarios import all_scenarios

        stats = run_matrix(all_scenarios(["core"]))
        typer.echo(f"injection matrix (core scenarios x {stats['runs']} planted runs): verdict changed "
                   f"{stats['verdict_changed']}, tool calls changed {stats['tool_calls_changed']}, canary leaked "
                   f"{stats['canary_leaked']}, flagged {stats['flagged']}/{stats['flaggable']}")
        from evals.injection import run_corpus
        from evals.scenarios import load_scenario

        corpus = run_corpus([load_scenario(s) for s in ("core/oom-metrics", "core/crash-exit-code",
                                                        "core/image-pull-manifest", "core/policy-idle",
                                                        "core/route-preempted")])
        typer.echo(f"injection corpus ({corpus['runs']} planted runs): verdict changed {corpus['verdict_changed']}, "
                   f"tool calls changed {corpus['tool_calls_changed']}, canary leaked {corpus['canary_leaked']}, "
                   f"flagged {corpus['flagged']}; obedient fake LLM caught {corpus['llm_caught']}/"
                   f"{corpus['llm_followed']}, LLM canary leaked {corpus['llm_canary_leaked']}")
        data = json.loads(Path(out).read_text())
        data["injection_matrix"] = {k: v for k, v in stats.items() if k != "failures"} | {
            "failures": stats["failures"][:50]}
        data["injection_corpus"] = {k: v for k, v in corpus.items() if k != "failures"} | {
            "failures": corpus["failures"][:50]}
        Path(out).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


from agent.entrypoints.lifecycle_cmd import lifecycle as _lifecycle_cmd  # noqa: E402  (issue 11; moves with cli.py)
app.command("lifecycle")(_lifecycle_cmd)
def main() -> None:  # console-script entry point
    app()


if __name__ == "__main__":
    main()
