"""``workload-diagnose record``: capture a replay-only scenario from a real Run:ai control plane.

The diagnosis runs for real (Tier 1 only) while vcrpy records every exchange through ``evals.cassettes.recorder``:
authorization headers and cookies dropped, every body through the redactor, token fields blanked whatever their
shape, the host rewritten to the replay host. ``case.json`` stores the arguments (with ``now`` pinned, so the
replay is deterministic) and the verdict the diagnosis produced, marked ``"confirmed": false`` until a human has
checked it. There is no ``world.json``: the scenario is replay-only (``all_scenarios(include_replay_only=True)``).

Before anything is kept, the cassette is scanned for the client secret and for any credential shape, and replayed
once: a capture that leaks or does not replay to the same verdict is deleted.
"""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from workload_diagnose.agent.model.request import is_complete
from workload_diagnose.agent.model.result import DiagnosisResult
from workload_diagnose.evals.scenarios import Scenario


class CaptureError(Exception):
    """The capture could not be written safely (existing scenario, leak, or a replay that disagrees)."""


def capture(*, out: str | Path, cluster_id: str | None, workload_id: str | None = None,
            workload_name: str | None = None, project: str | None = None, intent: str = "terminal",
            lookback: str = "7d", now: str | None = None, runai_url: str | None = None,
            client_id: str | None = None, client_secret: str | None = None,
            force: bool = False) -> tuple[Scenario, DiagnosisResult]:
    from workload_diagnose.agent.api import InvalidInput, diagnose
    from workload_diagnose.agent.model.time import parse_now
    from workload_diagnose.agent.model.settings import Settings
    from workload_diagnose.evals.cassettes import normalise_order, recorder
    from workload_diagnose.evals.checks import secret_leaks
    from workload_diagnose.evals.runner import replay
    from workload_diagnose.evals.scenarios import load_scenario

    if not is_complete(cluster_id, workload_id, workload_name, project):
        raise InvalidInput("record needs --cluster-id and either --workload-id or --workload-name with --project")
    url, cid, secret = Settings.from_env().runai(runai_url, client_id, client_secret)
    if not url:
        raise InvalidInput("no Run:ai URL: pass --runai-url or set RUNAI_BASE_URL")
    pinned = (now or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    parse_now(pinned)  # a bad --now is bad input before anything is written
    d = Path(out)
    case_path, cassette = d / "case.json", d / "cassette.yaml"
    if (case_path.exists() or cassette.exists() or (d / "world.json").exists()) and not force:
        raise CaptureError(f"{d} already holds a scenario (use --force to replace its cassette and case)")
    d.mkdir(parents=True, exist_ok=True)
    for p in (case_path, cassette):
        if p.exists():
            p.unlink()
    try:
        with recorder(cassette, url).use_cassette(str(cassette)):
            res = diagnose(cluster_id=cluster_id, workload_id=workload_id, workload_name=workload_name,
                           project=project, intent=intent, lookback=lookback, now=pinned, runai_url=url,
                           client_id=cid, client_secret=secret, use_kube=False)
    except BaseException:
        if cassette.exists():
            cassette.unlink()
        raise
    if cassette.exists():
        normalise_order(cassette)
    else:
        cassette.write_text("interactions: []\nversion: 1\n")
    leaks = secret_leaks({"cassette": cassette.read_text()}, [secret or ""])
    if leaks:
        cassette.unlink()
        raise CaptureError(f"the recorded cassette would have kept a credential ({'; '.join(leaks)}); nothing kept")
    args = {"now": pinned, "cluster_id": cluster_id, "workload_id": workload_id, "workload_name": workload_name,
            "project": project, "intent": intent, "lookback": lookback}
    case = {"description": f"Captured with 'workload-diagnose record' from a Run:ai control plane at {pinned}; the "
                           "expected verdict is the one the diagnosis produced and needs a human to confirm it.",
            "args": {k: v for k, v in args.items() if v is not None},
            "expected": {"outcome": res.outcome, "category": res.category, "route": res.route,
                         **({"recurrence": res.recurrence.count} if res.recurrence else {})},
            "tier2": False, "tags": ["captured"], "confirmed": False}
    case_path.write_text(json.dumps(case, indent=2) + "\n")
    sc = load_scenario(d)
    again = replay(sc)
    if (again.outcome, again.category, again.route) != (res.outcome, res.category, res.route):
        cassette.unlink()
        case_path.unlink()
        raise CaptureError("the capture does not replay to the same verdict; nothing kept")
    return sc, res
