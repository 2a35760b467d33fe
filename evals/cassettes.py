"""Record and replay scenarios with vcrpy.

Recording runs the real diagnosis against the simulator (or a real control plane) and keeps every exchange,
with authorization headers and cookies dropped, every body passed through the redactor, and the server's host
rewritten to a fixed replay host. Replay uses ``record_mode="none"``: an unexpected request fails the scenario.
"""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import vcr

from workload_diagnose.evals.scenarios import REPLAY_URL


def parse(text: str | None) -> dict:
    """A cassette's YAML, read with libyaml's safe loader when PyYAML has it (about ten times the pure-Python one:
    the eval reads every cassette)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text or "", Loader=loader) or {}  # noqa: S506 - a safe loader


def _rewrite_hosts(mapping: dict[str, str]):
    pairs = [(urlsplit(src), urlsplit(dst)) for src, dst in mapping.items()]

    def hook(request):
        from workload_diagnose.guardrails.cassette import before_record_request

        u = urlsplit(request.uri)
        for o, r in pairs:
            if (u.scheme, u.netloc) == (o.scheme, o.netloc):
                request.uri = urlunsplit((r.scheme, r.netloc, u.path, u.query, u.fragment))
                break
        request = before_record_request(request)
        if request is not None and request.body:
            request.body = _blank_request_body(request.body)
        return request

    return hook


# Fields that are credentials whatever their value looks like (defence in depth on top of the redactor, which
# decides by value shape: e.g. an access token that starts with "--" looks like a command-line flag to it).
TOKEN_FIELDS = frozenset({"accesstoken", "access_token", "idtoken", "id_token", "refreshtoken", "refresh_token",
                          "clientsecret", "client_secret"})


def _blank_token_fields(value):
    if isinstance(value, dict):
        return {k: ("[REDACTED:token]" if isinstance(k, str) and k.lower() in TOKEN_FIELDS and isinstance(v, str)
                    and not v.startswith("[REDACTED") else _blank_token_fields(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_blank_token_fields(v) for v in value]
    return value


def _blank_request_body(body):
    """The token request's credentials, JSON or form encoded, whatever the redactor thought of their shape."""
    import json
    from urllib.parse import parse_qsl, urlencode

    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
    try:
        data = json.loads(text)
    except ValueError:
        pairs = parse_qsl(text, keep_blank_values=True)
        if not pairs or "=" not in text:
            return body
        if not any(k.lower() in TOKEN_FIELDS and not v.startswith("[REDACTED") for k, v in pairs):
            return body
        new = urlencode([(k, "[REDACTED:token]" if k.lower() in TOKEN_FIELDS and not v.startswith("[REDACTED")
                          else v) for k, v in pairs], safe="[]:")
    else:
        clean = _blank_token_fields(data)
        if clean == data:
            return body
        new = json.dumps(clean)
    return new.encode() if isinstance(body, bytes) else new


def _blank_response_tokens(response):
    import json

    body = (response or {}).get("body")
    if not (isinstance(body, dict) and isinstance(body.get("string"), (bytes, str))):
        return response
    raw = body["string"]
    try:
        data = json.loads(raw)
    except ValueError:
        return response
    clean = _blank_token_fields(data)
    if clean != data:
        new = json.dumps(clean, ensure_ascii=False)
        body["string"] = new.encode() if isinstance(raw, bytes) else new
        for k in list((response.get("headers") or {}).keys()):
            if k.lower() == "content-length":
                response["headers"][k] = [str(len(new.encode()))]
    return response


def recorder(cassette: Path, origin: str, kube_origin: str | None = None) -> vcr.VCR:
    """Record Run:ai (httpx) and, for Tier-2 scenarios, Kubernetes (urllib3) exchanges into one cassette."""
    from workload_diagnose.guardrails.cassette import before_record_response

    from workload_diagnose.evals.kubeworld import KUBE_REPLAY_URL

    mapping = {origin: REPLAY_URL}
    if kube_origin:
        mapping[kube_origin] = KUBE_REPLAY_URL
    def response_hook(response):
        # volatile headers would make every re-recording a diff; the body passes the redactor
        headers = response.get("headers") or {}
        for k in [k for k in headers if k.lower() in ("date", "server", "audit-id", "x-kubernetes-pf-flowschema-uid",
                                                      "x-kubernetes-pf-prioritylevel-uid")]:
            del headers[k]
        return _blank_response_tokens(before_record_response(response))

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
