"""Snapshot of the public ``--json`` bytes for every bundled scenario, to prove a refactor changed nothing.

    python -m workload_diagnose.evals.contract_snapshot --write out/contract.json     # before the change
    python -m workload_diagnose.evals.contract_snapshot --compare out/contract.json   # after: exit 1 and a diff on any byte changed

Each scenario is replayed from its cassette (Tier-2 ones with their recorded Kubernetes exchanges) through
its procedure (``agent.api.run_procedure``; ``runai_failed`` unless its case names another) and serialised exactly as
its command's ``--json`` prints it.
"""
from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path


def snapshot() -> dict[str, str]:
    from workload_diagnose.evals.runner import replay
    from workload_diagnose.evals.scenarios import all_scenarios

    out: dict[str, str] = {}
    for sc in all_scenarios(include_replay_only=True):
        res = replay(sc)
        out[sc.id] = json.dumps(res.model_dump(mode="json"), indent=2, sort_keys=False)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m workload_diagnose.evals.contract_snapshot")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", metavar="FILE")
    g.add_argument("--compare", metavar="FILE")
    a = ap.parse_args(argv)
    snap = snapshot()
    if a.write:
        Path(a.write).parent.mkdir(parents=True, exist_ok=True)
        Path(a.write).write_text(json.dumps(snap, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(snap)} scenario outputs to {a.write}")
        return 0
    before = json.loads(Path(a.compare).read_text())
    changed = [k for k in sorted(set(before) | set(snap)) if before.get(k) != snap.get(k)]
    for k in changed[:5]:
        diff = difflib.unified_diff((before.get(k) or "").splitlines(), (snap.get(k) or "").splitlines(),
                                    f"before/{k}", f"after/{k}", lineterm="", n=1)
        print("\n".join(list(diff)[:40]))
    print(f"{len(snap)} scenarios, {len(changed)} with different --json bytes"
          + (f": {', '.join(changed[:20])}" if changed else ""))
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
