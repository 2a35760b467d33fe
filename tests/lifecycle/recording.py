"""Record / replay one lifecycle refresh with vcrpy (the real kubernetes client code path, urllib3 layer).

Recording drops the Authorization header; replay uses ``record_mode="none"`` and matches method, path and query
(not the host: the test server's port changes per session), so an unexpected request fails the replay.
"""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import urlsplit

import vcr

CASSETTES = Path(__file__).parent / "cassettes"
REPLAY_SERVER = "https://127.0.0.1:6443"


def _vcr(mode: str, skip_netloc: str | None = None) -> vcr.VCR:
    def before(request):  # the test proxy's own upstream requests are not the client's: never recorded
        return None if skip_netloc and urlsplit(request.uri).netloc == skip_netloc else request

    return vcr.VCR(record_mode=mode, match_on=["method", "path", "query"], filter_headers=["authorization"],
                   decode_compressed_response=True, before_record_request=before)


def record(name: str, fn, meta: dict, skip_server: str | None = None):
    """Run ``fn()`` while recording its traffic into cassettes/<name>.yaml; meta goes to <name>.json.
    ``skip_server``: a server whose traffic is not the client's (the proxy's upstream), left unrecorded."""
    CASSETTES.mkdir(parents=True, exist_ok=True)
    path = CASSETTES / f"{name}.yaml"
    path.unlink(missing_ok=True)
    with _vcr("all", urlsplit(skip_server).netloc if skip_server else None).use_cassette(str(path)):
        out = fn()
    (CASSETTES / f"{name}.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return out


def replay(name: str, fn):
    with _vcr("none").use_cassette(str(CASSETTES / f"{name}.yaml")) as cass:
        out = fn()
        assert cass.all_played, f"{name}: not every recorded request was made again"
    return out


def meta(name: str) -> dict:
    return json.loads((CASSETTES / f"{name}.json").read_text())


def now_plus(offset_s: int) -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0) + timedelta(seconds=offset_s)
