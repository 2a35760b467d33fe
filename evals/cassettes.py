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


def _rewrite_hosts(mapping: dict[str, str]):
    pairs = [(urlsplit(src), urlsplit(dst)) for src, dst in mapping.items()]

    def hook(request):
        from guardrails.cassette import before_record_request

        u = urlsplit(request.uri)
        for o, r in pairs:
            if (u.scheme, u.netloc) == (o.scheme, o.netloc):
                request.uri = urlunsplit((r.scheme, r.netloc, u.path, u.query, u.fragment))
                break
        return before_record_request(request)

    return hook


def recorder(cassette: Path, origin: str, kube_origin: str | None = None) -> vcr.VCR:
    """Record Run:ai (httpx) and, for Tier-2 scenarios, Kubernetes (urllib3) exchanges into one cassette."""
    from guardrails.cassette import before_record_response

    from evals.kubeworld import KUBE_REPLAY_URL

    mapping = {origin: REPLAY_URL}
    if kube_origin:
        mapping[kube_origin] = KUBE_REPLAY_URL
    def response_hook(response):
        # volatile headers would make every re-recording a diff; the body passes the redactor
        headers = response.get("headers") or {}
        for k in [k for k in headers if k.lower() in ("date", "server", "audit-id", "x-kubernetes-pf-flowschema-uid",
                                                      "x-kubernetes-pf-prioritylevel-uid")]:
            del headers[k]
        return before_record_response(response)

    return vcr.VCR(record_mode="all", filter_headers=["authorization", "cookie", "set-cookie", "host"],
                   before_record_request=_rewrite_hosts(mapping), before_record_response=response_hook,
                   decode_compressed_response=True)


def player() -> vcr.VCR:
    return vcr.VCR(record_mode="none",  # allow_playback_repeats stays False: each exchange plays once
                   match_on=["method", "scheme", "host", "port", "path", "query"])


def normalise_order(path: Path) -> None:
    """Concurrent reads arrive in any order; store interactions sorted (stable) so re-recording is diff-free.

    Replay matches requests, not positions, so the order carries no meaning (repeats of one request keep theirs).
    """
    from vcr.serializers import yamlserializer

    p = Path(path)
    data = yamlserializer.deserialize(p.read_text())
    inter = data.get("interactions") or []
    data["interactions"] = sorted(inter, key=lambda i: (i["request"]["method"] != "POST", i["request"]["uri"],
                                                        i["request"]["method"]))
    p.write_text(yamlserializer.serialize(data))
