"""``-o json|yaml|text`` of every command that prints a result, beside ``--json`` (kept: ``-o json`` prints the same
bytes), and the one line a missing identifier gets (the flag that supplies it, as kubectl names its flags)."""
from __future__ import annotations

import json
from typing import Any

FORMATS = ("text", "json", "yaml")


def _complete(incomplete: str) -> list[str]:
    return [f for f in FORMATS if f.startswith(incomplete)]


def output_option(formats: tuple[str, ...] = FORMATS) -> Any:
    """``-o/--output``: shown and completed as a choice; ``output_format`` checks it."""
    import typer

    return typer.Option(None, "--output", "-o", metavar="[" + "|".join(formats) + "]",
                        autocompletion=lambda incomplete: [f for f in formats if f.startswith(incomplete)],
                        help="Output format: " + ", ".join(formats) + " (default text; json is --json).")


def output_format(output: str | None, as_json: bool, formats: tuple[str, ...] = FORMATS) -> str:
    """The one format: ``-o`` wins, ``--json`` is ``-o json``; a bad or contradictory value is a usage line."""
    from workload_diagnose.agent.entrypoints.errors import usage

    if output is None:
        return "json" if as_json else "text"
    fmt = output.strip().lower()
    if fmt not in formats:
        usage(f"-o/--output must be {', '.join(formats[:-1])} or {formats[-1]}, not {output!r}")
    if as_json and fmt != "json":
        usage(f"--json and -o {fmt} cannot be used together")
    return fmt


def dump(data: Any, fmt: str, *, compact: bool = False) -> str:
    """``data`` as ``fmt`` (json or yaml), ending in a newline. JSON is exactly what ``--json`` prints (indent 2,
    keys in the model's order); ``compact``: one line (a ``--watch`` refresh)."""
    if fmt == "yaml":
        import yaml

        return ("---\n" if compact else "") + yaml.dump(data, Dumper=_yaml_dumper(), sort_keys=False,
                                                        allow_unicode=True, default_flow_style=False, width=10**9)
    return (json.dumps(data) if compact else json.dumps(data, indent=2, sort_keys=False)) + "\n"


def _yaml_dumper() -> Any:
    """PyYAML's safe dumper, writing a multi-line string (a report) as a literal block, line for line."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def text(dumper: Any, value: str) -> Any:
        style = "|" if "\n" in value and not any(c in value for c in "\r\t\x85\u2028\u2029") else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    return Dumper


def missing_flags(cluster: str | None, workload_id: str | None, workload_name: str | None,
                  project: str | None) -> str | None:
    """The one line naming the flag(s) a Run:ai command still needs, or None when the request is complete."""
    need: list[str] = []
    why: list[str] = []
    if not cluster:
        need.append("--cluster-id")
        why.append("the Run:ai cluster's UUID or its exact name")
    if not workload_id:
        if workload_name and not project:
            need.append("--project (-p)")
            why.append(f"the project workload {workload_name!r} belongs to")
        elif project and not workload_name:
            need.append("--workload-name (or --workload-id)")
            why.append(f"the workload's exact name in project {project!r}, or its UUID")
        elif not workload_name:
            need.append("--workload-id (or --workload-name with -p/--project)")
            why.append("the workload's UUID, or its exact name and project")
    if not need:
        return None
    verb = "is" if len(need) == 1 else "are"
    return f"{' and '.join(need)} {verb} required: {'; '.join(why)}"
