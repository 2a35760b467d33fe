"""The developer commands: ``workload-diagnose simulate | demo | eval | record | guardrails-report | bench``.

A plugin of the product CLI (``agent.entrypoints.cli``): pyproject.toml declares this app in the
``workload_diagnose.commands`` entry-point group, and the product loads it only to list commands or when one of
these is invoked. They need the ``evals`` extra (vcrpy); without it this module refuses to import, and the
product CLI says which extra to install. Flags and output are the ones these commands always had.
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Optional

import typer

for _mod, _dist in (("vcr", "vcrpy"),):  # the evals extra (find_spec: checked without importing it)
    if importlib.util.find_spec(_mod) is None:
        raise ModuleNotFoundError(f"the evals extra is not installed (no {_dist})", name=_mod)

from workload_diagnose.agent.entrypoints.cli import check_intent  # noqa: E402
from workload_diagnose.agent.entrypoints.errors import fail, handled  # noqa: E402
from workload_diagnose.agent.entrypoints.examples import epilog  # noqa: E402

app = typer.Typer(add_completion=False, no_args_is_help=True, help="workload-diagnose developer commands.")


def _scenario(ref: str):
    """A bundled scenario (suite/name) or a scenario directory; a one-line error when there is none or it is
    not readable."""
    from workload_diagnose.evals.scenarios import ROOT, load_scenario

    try:
        sc = load_scenario(ref)
    except FileNotFoundError as e:
        if Path(ref).is_dir() or (ROOT / ref).is_dir():  # the directory exists but its case.json does not
            fail(f"scenario {ref!r} has no case.json ({e.filename})", 2)
        where = "" if ROOT.is_dir() else "; the bundled scenarios are in the source repository, not in the wheel"
        fail(f"{e.args[0]}{where}", 2)
    except (ValueError, TypeError) as e:  # bad JSON (JSONDecodeError is a ValueError) or fields case.json lacks
        fail(f"scenario {ref!r}: case.json is not a valid scenario case: {_first_line(e)}", 2)
    _world(sc.world)  # the same one-line errors for its world.json, before anything starts
    return sc


def _first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0][:200]


def _world(ref: str | Path) -> dict:
    """A world.json (or a scenario directory holding one) as a dict; a one-line error (exit 2) when it is
    missing, unreadable, not JSON or not a JSON object."""
    p = Path(ref)
    f = p / "world.json" if p.is_dir() else p
    try:
        data = json.loads(f.read_text())
    except FileNotFoundError:
        fail(f"no world at {str(f)!r}: give a scenario directory or its world.json", 2)
    except IsADirectoryError:
        fail(f"{str(f)!r} is a directory without a world.json", 2)
    except (OSError, UnicodeDecodeError) as e:
        fail(f"cannot read {str(f)!r}: {_first_line(e)}", 2)
    except ValueError as e:
        fail(f"{str(f)!r} is not valid JSON: {_first_line(e)}", 2)
    if not isinstance(data, dict):
        fail(f"{str(f)!r} is not a world: expected a JSON object with \"workloads\", got {type(data).__name__}", 2)
    return data


DEFAULT_FLEET = 60  # ``simulate`` with no world: a fleet this size (every bundled failure kind, a few times over)


def _served(world: str | None, fleet: int | None):
    """What ``simulate`` serves: a fleet, a bundled scenario (suite/name), a scenario directory or a world.json."""
    from workload_diagnose.evals.playground import Served, describe_args
    from workload_diagnose.evals.scenarios import ROOT

    if world is not None and fleet is not None:
        fail("give a world or --fleet N, not both", 2)
    if world is None:
        n = DEFAULT_FLEET if fleet is None else fleet
        if not 1 <= n <= 20_000:
            fail(f"--fleet must be between 1 and 20000, not {n}", 2)
        from workload_diagnose.evals.fleet import fleet_world

        return Served(world=fleet_world(n), label=f"a fleet of {n} workloads")
    p = Path(world)
    if (p / "case.json").is_file() or (not p.exists() and (ROOT / world / "case.json").is_file()):
        sc = _scenario(world)
        return Served(world=_world(sc.world), label=f"scenario {sc.id}", args=describe_args(sc.args))
    case = p.parent / "case.json" if p.is_file() else None
    args = None
    if case is not None and case.is_file():
        try:
            args = json.loads(case.read_text()).get("args")
        except (OSError, ValueError):
            args = None
    return Served(world=_world(world), label=str(world), args=args if isinstance(args, dict) else None)


@app.command(epilog=epilog("simulate"))
def simulate(
    world: Optional[str] = typer.Argument(None, help="A bundled scenario (e.g. core/oom-metrics), a scenario "
                                                     "directory or a world.json (default: a fleet, --fleet)."),
    fleet: Optional[int] = typer.Option(None, "--fleet", metavar="N", help=f"Serve a fleet of N workloads: "
                                        f"copies of the bundled scenarios on one cluster (default {DEFAULT_FLEET} "
                                        "when no world is given)."),
    port: int = typer.Option(8780, "--port", help="TCP port on 127.0.0.1 (0: any free one)."),
    delay_ms: int = typer.Option(0, "--delay-ms", help="Injected latency per request."),
    keep_time: bool = typer.Option(False, "--keep-time", help="Keep the recorded times (the banner prints the "
                                                              "--now to pass) instead of moving them to now."),
) -> None:
    """Serve a Run:ai world through the real API paths on 127.0.0.1: a playground for every command.

    Its times are moved to the real clock (every relative time kept), and it prints the export lines and commands
    to paste."""
    import errno

    from workload_diagnose.evals.playground import banner, locate, to_real_clock
    from workload_diagnose.evals.simulator import World, serve_forever

    if not 0 <= port <= 65535:
        fail(f"--port must be between 0 and 65535, not {port}", 2)
    if delay_ms < 0:
        fail(f"--delay-ms must be 0 or more, not {delay_ms}", 2)
    served = _served(world, fleet)
    locate(served)
    if not keep_time:
        to_real_clock(served)

    def say(srv) -> str:
        return banner(served, srv.url, srv.client_id, srv.client_secret, World(served.world).clusters(), keep_time)

    try:
        serve_forever(served.world, port=port, delay_ms=delay_ms, banner=say)
    except OSError as e:
        if e.errno in (errno.EADDRINUSE, errno.EACCES, errno.EADDRNOTAVAIL):
            fail(f"cannot listen on 127.0.0.1:{port}: {e.strerror} (choose another --port, or 0 for a free one)", 2)
        raise


@app.command()
def demo(
    scenario: str = typer.Option("core/oom-metrics", "--scenario", help="A bundled scenario (suite/name)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Start the Run:ai simulator on a bundled scenario and diagnose it (no cluster, LLM or credentials)."""
    import os

    from workload_diagnose.agent.entrypoints.cli import app as product
    from workload_diagnose.evals.simulator import running_simulator

    sc = _scenario(scenario)
    with running_simulator(sc.world) as sim:
        typer.echo(f"# Run:ai simulator serving scenario {sc.id} at {sim.url}", err=True)
        args = ["--runai-url", sim.url, "--no-kube"] + sc.cli_args()
        if as_json:
            args.append("--json")
        os.environ["RUNAI_CLIENT_ID"] = sim.client_id
        os.environ["RUNAI_CLIENT_SECRET"] = sim.client_secret
        typer.echo(f"# workload-diagnose {sc.command} " + " ".join(args), err=True)
        try:
            product([sc.command, *args], standalone_mode=False)
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
    tier1: str = typer.Option("rest", "--tier1", help="rest (replay the cassettes) or mcp (every scenario live "
                                                      "through the official MCP SDK and the simulator-backed MCP "
                                                      "stand-in; --faults adds MCP faults)."),
    passk: Optional[int] = typer.Option(
        None, "--passk", min=0, help="Runs per chat phrasing and fake model for the LLM path's Pass^k (default: 2 "
                                     "for the whole suite, else 0 = not run; the figure is defined with 5)."),
) -> None:
    """Replay scenario cassettes and score them (or re-record them with --record); --faults adds the fault matrix."""
    import os

    from workload_diagnose.evals.suite import run

    if tier1 not in ("rest", "mcp"):
        fail(f"--tier1 must be 'rest' or 'mcp', not {tier1!r}", 2)
    if tier1 == "mcp" and record:
        fail("--record records REST cassettes: it cannot be combined with --tier1 mcp", 2)
    if jobs is None:
        cpus = max(1, min(8, os.cpu_count() or 1))
        jobs = min(16, 2 * cpus) if faults else cpus  # fault runs spend much of their time waiting
    if passk is None:
        from workload_diagnose.evals.passk import DEFAULT_K

        passk = 0 if suites or record or tier1 != "rest" else DEFAULT_K
    raise typer.Exit(run(suites or None, do_record=record, echo=typer.echo, faults=faults, jobs=jobs, out=out,
                         baseline=baseline, tier1=tier1, passk=passk))


@app.command()
def record(
    out: str = typer.Option(..., "--out", help="The new scenario directory, e.g. evals/scenarios/captured/<name>."),
    cluster_id: Optional[str] = typer.Option(None, "--cluster-id", help="Run:ai cluster UUID (required)."),
    workload_id: Optional[str] = typer.Option(None, "--workload-id", help="The workload's UUID (or give its name "
                                                                          "and project)."),
    workload_name: Optional[str] = typer.Option(None, "--workload-name", help="The workload's exact name (with "
                                                                              "--project)."),
    project: Optional[str] = typer.Option(None, "--project", "-p", help="The project of --workload-name."),
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
    check_intent(intent)
    from workload_diagnose.agent.model.errors import EXIT_USAGE
    from workload_diagnose.evals.capture import CaptureError, capture

    sc, res = handled(lambda: capture(out=out, cluster_id=cluster_id, workload_id=workload_id,
                                      workload_name=workload_name, project=project, intent=intent,
                                      lookback=lookback, now=now, runai_url=runai_url, force=force),
                      (CaptureError, EXIT_USAGE))
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
    from workload_diagnose.guardrails.report import main as report_main

    Path(out).parent.mkdir(parents=True, exist_ok=True)
    report_main(size_mb=size_mb, out=out)
    if not injection:
        return
    from workload_diagnose.evals.injection import run_corpus, run_matrix
    from workload_diagnose.evals.scenarios import all_scenarios

    stats = run_matrix(all_scenarios(["core"]))
    typer.echo(f"injection matrix (core scenarios x {stats['runs']} planted runs): verdict changed "
               f"{stats['verdict_changed']}, tool calls changed {stats['tool_calls_changed']}, canary leaked "
               f"{stats['canary_leaked']}, flagged {stats['flagged']}/{stats['flaggable']}")
    corpus = run_corpus([_scenario(s) for s in ("core/oom-metrics", "core/crash-exit-code",
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


@app.command()
def bench(
    out: str = typer.Option("out/bench.json", "--out", help="JSON results (default: out/bench.json)"),
    quick: bool = typer.Option(False, "--quick", help="fast subset: smaller inputs, fewer runs, no apiserver"),
    only: str = typer.Option("", "--only", help="comma-separated items: replay, live_latency, requests, redaction, "
                                                "cli_startup, memory"),
) -> None:
    """Benchmark: round trips, requests vs the skill's minimum, redaction MB/s, start-up, peak memory."""
    from workload_diagnose.evals.bench import main as bench_main

    raise typer.Exit(bench_main(["--out", out, *(["--quick"] if quick else []), *(["--only", only] if only else [])]))
