"""A naive datetime (what some Kubernetes client paths deserialise) is UTC in evidence, whatever the machine's zone."""
import os
import time
from datetime import datetime, timezone

import pytest

from workload_diagnose.agent.evidence.common import ts


@pytest.fixture
def new_york_zone():
    old = os.environ.get("TZ")
    os.environ["TZ"] = "America/New_York"
    time.tzset()
    yield
    if old is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = old
    time.tzset()


def test_naive_datetime_is_utc_not_local(new_york_zone):
    assert ts(datetime(2026, 1, 1, 10, 0, 0)) == "2026-01-01T10:00:00Z"


def test_aware_datetime_is_converted_and_strings_pass_through(new_york_zone):
    assert ts(datetime(2026, 1, 1, 10, 0, 0, tzinfo=timezone.utc)) == "2026-01-01T10:00:00Z"
    assert ts("2026-01-01T10:00:00Z") == "2026-01-01T10:00:00Z"
    assert ts(None) is None
