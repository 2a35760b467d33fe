"""``--tier1 rest``: the Run:ai control-plane REST API (:class:`tools.runai.rest.RunaiClient`), read-only at the
transport (:mod:`tools.transport`)."""
from __future__ import annotations

from workload_diagnose.tools.runai.registry import Setting, SourceSettings, SourceSpec
from workload_diagnose.tools.runai.source import CLUSTERS, FLEET, NODES, PROJECTS


def _missing(s: SourceSettings) -> str | None:
    if not s.url:
        return "no Run:ai URL: pass --runai-url or set RUNAI_BASE_URL"
    if s.bearer_token is not None:  # a caller's own token (the service): no client credentials are exchanged
        return None
    unset = [name for name, v in (("RUNAI_CLIENT_ID", s.client_id), ("RUNAI_CLIENT_SECRET", s.client_secret)) if not v]
    if unset:
        return (f"{' / '.join(unset)} {'is' if len(unset) == 1 else 'are'} not set: export the client id and "
                "secret of the Run:ai application this tool reads with")
    return None


def _build(s: SourceSettings):
    from workload_diagnose.tools.runai.rest.client import RunaiClient

    return RunaiClient(s.url, s.client_id, s.client_secret, timeout=s.timeout, transport=s.transport,
                       sleep=s.sleep, max_body_bytes=s.max_body_bytes, read_total=s.read_total,
                       max_event_pages=s.max_event_pages, deadline=s.deadline, ca_file=s.ca_file,
                       url_origin=s.url_origin, on_invocation=s.on_invocation, bearer_token=s.bearer_token,
                       concurrent_reads=s.concurrent_reads, paced=s.paced)


SOURCE = SourceSpec(
    name="rest",
    summary="the Run:ai API",
    settings=(Setting("RUNAI_BASE_URL", "the Run:ai control plane", flag="--runai-url", required=True),
              Setting("RUNAI_CLIENT_ID", "the application's client id"),
              Setting("RUNAI_CLIENT_SECRET", "the application's secret", secret=True)),
    prerequisites=_missing,
    build=_build,
    capabilities=frozenset({FLEET, CLUSTERS, PROJECTS, NODES}),
    read_only=True,
    bearer=True,
)
