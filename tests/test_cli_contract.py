"""The public CLI end to end: simulator started with `workload-diagnose simulate`, the scenario procedure's command
(`failed --json`, `preempted --json`, `pending --json`) run twice."""
from __future__ import annotations

import pytest

from workload_diagnose.evals.cli_check import check
from workload_diagnose.evals.scenarios import load_scenario


@pytest.mark.parametrize("sid", ["core/oom-metrics", "core/route-preempted", "core/option-b-active-crashloop",
                                 "preempted/over-quota-reclaim-figures", "pending/quota-non-preemptible"])
def test_cli_against_the_projects_own_simulator(sid):
    ok, why = check(load_scenario(sid))
    assert ok, why
