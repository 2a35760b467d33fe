"""A real service a test needs (kube-apiserver, PostgreSQL) that cannot be started: a loud skip, or a FAILURE
when ``WD_REQUIRE_K8S=1`` (CI requires every real service)."""
from __future__ import annotations

import os
import sys

import pytest


def required() -> bool:
    return os.environ.get("WD_REQUIRE_K8S", "").strip().lower() not in ("", "0", "false", "no")


def unavailable(service: str, reason: str, skipped: str):
    msg = f"{service} UNAVAILABLE: {reason}"
    if required():
        pytest.fail(msg + " (WD_REQUIRE_K8S is set, so this is a failure, not a skip)", pytrace=False)
    sys.stderr.write(f"\n*** {msg} -- {skipped} tests skipped (set WD_REQUIRE_K8S=1 to make this fatal) ***\n")
    pytest.skip(msg)
