"""Property-based test of the running service against its own OpenAPI document (schemathesis): generated
requests for every operation over a real uvicorn server and the simulator: no 5xx, every response matches the
documented schema (status code, content type, headers, body). Bounded: a few dozen examples per operation.

(The schema is loaded from the live server inside the test, each operation's cases drawn from
``operation.as_strategy()``: schemathesis' ``pytest.from_fixture`` does not run under pytest 9.)
"""
from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from tests.service.live import config_for, live_service, tokens

TEXTS, TOKENS = tokens(bot=(["*"], ["*"]))
AUTH = {"Authorization": f"Bearer {TEXTS['bot']}"}
EXAMPLES = {"POST /v1/diagnoses": 40}


@pytest.fixture(scope="module")
def api_schema(sim):
    with live_service(config_for(sim, auth="tokens", tokens=TOKENS, deadline_s=20.0)) as url:
        yield schemathesis.openapi.from_url(f"{url}/openapi.json")


def test_api_conforms_to_its_own_openapi(api_schema):
    operations = [r.ok() for r in api_schema.get_all_operations()]
    labels = {f"{op.method.upper()} {op.path}" for op in operations}
    assert {"POST /v1/diagnoses", "GET /healthz", "GET /readyz", "GET /metrics"} <= labels
    for op in operations:
        label = f"{op.method.upper()} {op.path}"

        @given(case=op.as_strategy())
        @settings(max_examples=EXAMPLES.get(label, 5), deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def check(case):
            case.call_and_validate(headers=AUTH)

        check()
