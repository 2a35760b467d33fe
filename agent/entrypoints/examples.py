"""The Examples section of every command's ``--help`` (an epilog: typer prints it after the options).

The values are the ones ``workload-diagnose simulate`` serves by default (its fleet; docs/try-it.md), so every
Run:ai example can be pasted against the simulator as it is (tests/test_examples.py runs them); a Run:ai
procedure's command gets the examples of its shared options.
"""
from __future__ import annotations

import re

CLUSTER = "gpu-7c1d2e3f"
CLUSTER_ID = "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"  # (the HTTP body takes the cluster's UUID)
WORKLOAD_ID = "8c5c3e82-d654-5c1f-b920-7963438609aa"  # train-llm-42-0000 in project vision
NAME, PROJECT = "train-llm-42-0000", "vision"
THREAD = "5f0c2a61-8a7e-4c55-9a0e-3d1f6b2c9e47"  # a thread id ``ask`` printed
ACTIVE = ("serve-ranker-0022", "nlp")  # Running, in a crash loop

_BY_COMMAND: dict[str, tuple[str, ...]] = {
    "lifecycle": (
        "workload-diagnose lifecycle train-42 -n ml-team --kubeconfig ~/.kube/readonly.yaml",
        "workload-diagnose lifecycle ray-ft -n nlp --kind rayjob --watch --interval 5s",
        "workload-diagnose lifecycle train-42 -n ml-team -o yaml",
    ),
    "triage": (
        f"workload-diagnose triage --cluster-id {CLUSTER}",
        f"workload-diagnose triage --cluster-id {CLUSTER} -p {PROJECT} --since 7d",
        f"workload-diagnose triage --cluster-id {CLUSTER} --html triage.html",
    ),
    "health": (
        f"workload-diagnose health --cluster-id {CLUSTER} -p {PROJECT}",
        f"workload-diagnose health --cluster-id {CLUSTER} -p {ACTIVE[1]} --lookback 2d -o json",
        f"workload-diagnose health --cluster-id {CLUSTER} --department default --max-diagnoses 2",
    ),
    "chat": (
        "workload-diagnose chat --no-kube",
        f"workload-diagnose chat --thread {THREAD}",
    ),
    "ask": (
        f"workload-diagnose ask \"why did {NAME} fail?\"",
        f"workload-diagnose ask \"it's in {PROJECT} on {CLUSTER}\" --thread {THREAD}",
        f"workload-diagnose ask \"why are my jobs on {CLUSTER} failing?\" -o json",
    ),
    "serve": (
        "workload-diagnose serve --port 8080",
        "curl -s localhost:8080/v1/diagnoses -H 'Content-Type: application/json' \\\n"
        f"    -d '{{\"cluster_id\": \"{CLUSTER_ID}\",\n"
        f"         \"workload_id\": \"{WORKLOAD_ID}\"}}'",
    ),
    "mcp": (
        "workload-diagnose mcp",
        "workload-diagnose mcp --transport streamable-http --port 8081",
    ),
    "simulate": (
        "workload-diagnose simulate",
        "workload-diagnose simulate --fleet 400 --port 8781",
        "workload-diagnose simulate core/oom-metrics",
        "workload-diagnose simulate evals/scenarios/core/oom-metrics --keep-time",
    ),
}

ROOT = (
    "workload-diagnose simulate",
    f"workload-diagnose failed --cluster-id {CLUSTER} --workload-id {WORKLOAD_ID}",
    f"workload-diagnose triage --cluster-id {CLUSTER}",
    "workload-diagnose chat",
)


def runai_examples(command: str) -> tuple[str, ...]:
    """A Run:ai procedure's command: by id, by name and project (the cluster by its name), as JSON."""
    return (f"workload-diagnose {command} --cluster-id {CLUSTER} --workload-id {WORKLOAD_ID}",
            f"workload-diagnose {command} --cluster-id {CLUSTER} -p {PROJECT} --workload-name {NAME}",
            f"workload-diagnose {command} --cluster-id {CLUSTER} -p {ACTIVE[1]} --workload-name {ACTIVE[0]} --intent "
            "active -o json")


WIDTH = 76  # an 80-column help keeps every example line whole (typer would wrap a longer one mid-word)


def _wrapped(command: str) -> str:
    """One example as shell lines of at most ``WIDTH`` columns, continued with a backslash between options (so a
    wrapped example still pastes as one command)."""
    if "\n" in command:  # wrapped by hand
        return command
    parts = re.split(r" (?=--?[a-z])", command)
    lines, cur = [], parts[0]
    for part in parts[1:]:
        if len(cur) + 1 + len(part) + 2 > WIDTH:
            lines.append(cur + " \\")
            cur = "    " + part
        else:
            cur += " " + part
    return "\n".join([*lines, cur])


def section(lines: tuple[str, ...]) -> str:
    """The Examples paragraph: one example a line, flush left (typer removes a common indentation)."""
    return "Examples:\n" + "\n".join(_wrapped(x) for x in lines)


# a command's exit statuses, when its command module does not pass them (a Run:ai command passes EXIT_HELP)
EXITS = {"lifecycle": "Exit status: 0 a result was printed (also when no Job or RayJob has that name); 2 bad input; "
                      "3 the API cannot be reached; 4 the API refused the credentials; 130 interrupted (Ctrl-C, "
                      "also a --watch)."}


def epilog(command: str, *more: str) -> str:
    """The epilog of ``command``: its Examples, then ``more`` paragraphs (e.g. the exit statuses)."""
    lines = _BY_COMMAND.get(command) or runai_examples(command)
    return "\n\n".join([section(lines), *more, *([EXITS[command]] if command in EXITS and not more else [])])
