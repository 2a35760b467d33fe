"""Scenarios: a directory with ``world.json`` (the simulator's state), ``case.json`` (the CLI arguments and the
expected verdict) and, once recorded, ``cassette.yaml`` (the real HTTP exchanges, replayed with vcrpy).

To add a scenario: create ``evals/scenarios/<suite>/<name>/world.json`` and ``case.json`` and run
``workload-diagnose eval --record <suite>/<name>`` (records from the simulator). The verdict must follow from
the evidence in the world; names stay neutral. The JSON files are the one source of truth (nothing
generates them); ``evals/README.md`` says how to add one.

A scenario captured from a real control plane (``workload-diagnose record``) has no ``world.json``: it is
replay-only, and its ``case.json`` says ``"confirmed": false`` until a human has checked the verdict.
``all_scenarios()`` lists simulator scenarios (with a world) by default; pass ``include_replay_only=True`` to
list the captured ones too.
"""
from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field, field_validator

ROOT = Path(__file__).resolve().parent / "scenarios"
REPLAY_URL = "http://runai-simulator.local"


class Expected(BaseModel):
    outcome: str
    category: str | None = None
    reason: str | None = None  # the preempted or pending procedure's verdict (scored in the category column)
    state: str | None = None  # the health snapshot's state (scored in the category column)
    owner: str | None = None  # that procedure's owner (checked when given)
    route: str | None = None
    recurrence: int | None = None  # distinct same-category failures in the lookback (None: not checked)
    report_contains: list[str] = Field(default_factory=list)  # e.g. the recommendation an error class needs
    report_excludes: list[str] = Field(default_factory=list)  # e.g. secrets that must never be printed

    def verdict(self) -> tuple[str, str | None, str | None]:
        """(outcome, the category or the pending reason, route): the verdict a scored result is compared with."""
        return self.outcome, self.category or self.reason or self.state, self.route


class CaseArgs(BaseModel):
    cluster_id: str | None = None
    workload_id: str | None = None
    workload_name: str | None = None
    project: str | None = None
    intent: str = "terminal"
    lookback: str = "7d"
    now: str
    department: str | None = None  # a procedure with parameters of its own (spec ``params``): the health scope
    max_diagnoses: int | None = None

    @property
    def complete(self) -> bool:
        """The cluster and Option A or B: a run reads something (else it asks first)."""
        from workload_diagnose.agent.model.request import is_complete

        return is_complete(self.cluster_id, self.workload_id, self.workload_name, self.project)


class Scenario(BaseModel):
    id: str
    path: Path
    description: str = ""
    about: str = ""  # one line: why the expected verdict follows from the skill for this evidence
    # the case kind: the registered procedure that runs it (``case.json`` "procedure"; any whose spec says
    # ``eval_cases``: a new procedure's scenarios run with no change to the eval runner)
    procedure: str = "runai_failed"
    args: CaseArgs
    expected: Expected
    tier2: bool = False
    tags: list[str] = Field(default_factory=list)
    confirmed: bool = True  # False: a captured verdict that a human has not confirmed yet
    # The expected verdict is the skill's; the code is known to disagree (reported, not yet fixed). The runner
    # reports such a scenario as an expected failure (xfail) and flags it when it starts passing.
    known_defect: str | None = None
    # built so that the evidence cannot decide a category: the right answer is an abstention (the fallback category
    # with a stated limitation, or a question); ``eval`` gates the abstention rate on these cases
    undecidable: bool = False

    @field_validator("procedure")
    @classmethod
    def _registered(cls, v: str) -> str:
        from workload_diagnose.agent.procedures import specs

        kinds = [n for n, s in specs().items() if s.eval_cases]
        if v not in kinds:
            raise ValueError(f"procedure {v!r} has no eval cases (registered case kinds: {', '.join(kinds)})")
        return v

    @property
    def command(self) -> str:
        """The CLI command that runs this scenario's procedure (``demo`` prints and runs it)."""
        from workload_diagnose.agent.procedures import spec

        cmd = spec(self.procedure).command
        assert cmd is not None, self.procedure
        return cmd.name

    @property
    def suite(self) -> str:
        return self.id.split("/", 1)[0] if "/" in self.id else ""

    @property
    def world(self) -> Path:
        return self.path / "world.json"

    @property
    def has_world(self) -> bool:
        """False for a scenario captured from a real control plane: replay-only (no simulator world)."""
        return self.world.exists()

    @property
    def cassette(self) -> Path:
        return self.path / "cassette.yaml"

    def cli_args(self) -> list[str]:
        a = self.args
        from workload_diagnose.agent.procedures import spec

        if spec(self.procedure).params:  # its own options (the health scope)
            out = []
            for flag, val in (("--cluster-id", a.cluster_id), ("--project", a.project),
                              ("--department", a.department), ("--max-diagnoses", a.max_diagnoses)):
                if val is not None:
                    out += [flag, str(val)]
            return out + ["--lookback", a.lookback, "--now", a.now]
        out = []
        for flag, val in (("--cluster-id", a.cluster_id), ("--workload-id", a.workload_id),
                          ("--workload-name", a.workload_name), ("--project", a.project)):
            if val:
                out += [flag, val]
        out += ["--intent", a.intent, "--lookback", a.lookback, "--now", a.now]
        return out


def load_scenario(ref: str | Path) -> Scenario:
    p = Path(ref)
    if not p.is_dir():
        p = ROOT / str(ref)
    if not p.is_dir():
        raise FileNotFoundError(f"no scenario {ref!r} (looked in {ROOT})")
    case = json.loads((p / "case.json").read_text())
    sid = str(p.resolve().relative_to(ROOT)) if p.resolve().is_relative_to(ROOT) else p.name
    return Scenario(id=sid, path=p, **case)


def all_scenarios(suites: list[str] | None = None, *, include_replay_only: bool = False,
                  include_known_defects: bool = False, root: Path | None = None) -> list[Scenario]:
    """Scenarios in id order; ``suites`` selects suites or single scenarios (``core``, ``oom/no-metric-samples``).

    By default only scenarios expected to pass today: captured (replay-only) scenarios and scenarios marked
    ``known_defect`` (the skill's verdict, which the code does not reach yet) are listed on request; the eval
    runner lists both and reports the latter as expected failures."""
    out = []
    base = Path(root) if root is not None else ROOT
    for case in sorted(base.rglob("case.json")):
        sc = load_scenario(case.parent)
        if root is not None:
            sc.id = str(case.parent.relative_to(base))
        if suites and not any(sc.id == s or sc.id.startswith(s.rstrip("/") + "/") for s in suites):
            continue
        if not include_replay_only and not sc.has_world:
            continue
        if not include_known_defects and sc.known_defect:
            continue
        out.append(sc)
    return sorted(out, key=lambda s: s.id)
