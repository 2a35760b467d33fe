"""Scenario hygiene the other tests do not cover: known-defect worlds validate against Run:ai's OpenAPI spec too
(tests/test_simulator_openapi.py covers the default listing), every scenario has a cassette, and names stay neutral
outside the names/ suite."""
from __future__ import annotations

import json
import re

import pytest

from workload_diagnose.evals.scenarios import all_scenarios

EVERY = all_scenarios(include_known_defects=True)
TRIGGERS = re.compile(r"oom|evict|preempt|imagepull|crashloop|notready|idle|mount|backoff|fail", re.I)


@pytest.fixture(scope="module")
def openapi():
    from openapi_core import OpenAPI

    from tests.test_simulator_openapi import SKILL_PHASES, _spec_path

    spec = json.loads(_spec_path().read_text())
    spec["components"]["schemas"]["Phase"]["enum"] += SKILL_PHASES
    return OpenAPI.from_dict(spec)


@pytest.mark.parametrize("sc", [s for s in EVERY if s.known_defect], ids=lambda s: s.id)
def test_known_defect_worlds_validate_against_the_openapi_spec(openapi, sc):
    from tests.test_simulator_openapi import test_every_response_validates

    test_every_response_validates(openapi, sc)


def test_every_scenario_has_a_cassette_and_a_reasoned_description():
    for sc in EVERY:
        assert sc.cassette.exists(), f"{sc.id}: run workload-diagnose eval --record {sc.id}"
        assert len(sc.description) >= 10, sc.id


def test_names_stay_neutral_outside_the_names_suite():
    for sc in EVERY:
        if sc.suite == "names" or sc.tier2:
            continue
        world = json.loads(sc.world.read_text())
        for w in world["workloads"]:
            assert not TRIGGERS.search(w["name"]), f"{sc.id}: workload name {w['name']!r}"
            assert not TRIGGERS.search(w.get("projectName") or ""), sc.id
