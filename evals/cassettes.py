"""Record and replay scenarios with vcrpy.

Recording runs the real diagnosis against the simulator (or a real control plane) and keeps every exchange,
with authorization headers and cookies dropped, every body passed through the redactor, and the server's host
rewritten to a fixed replay host. Replay uses ``record_mode="none"``: an unexpected request fails the scenario.
"""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import vcr

from evals.scenarios import REPLAY_URL


def _rewrite_host(origin: str):
    o = urlsplit(origin)
    r = urlsplit(REPLAY_URL)

    def hook(request):
        from guardrails.cassette import before_record_request

        u = urlsplit(request.uri)
        if (u.scheme, u.netloc) == (o.scheme, o.netloc):
            request.uri = urlunsplit((r.scheme, r.netloc, u.path, u.query, u.fragment))
        return before_record_request(request)

    return hook


def recorder(cassette: Path, origin: str) -> vcr.VCR:
    from guardrails.cassette import before_record_response

    return vcr.VCR(record_mode="all", filter_headers=["authorization", "cookie", "set-cookie"],
                   before_record_request=_rewrite_host(origin), before_record_response=before_record_response,
                   decode_compressed_response=True)


def player() -> vcr.VCR:
    return vcr.VCR(record_mode="none",  # allow_playback_repeats stays False: each exchange plays once
                   match_on=["method", "scheme", "host", "port", "path", "query"])
