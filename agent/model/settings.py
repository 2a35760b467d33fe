"""The environment, read in one place: ``Settings.from_env()`` once per entry point (CLI command, API call).

Same variable names as the official Run:ai MCP server: RUNAI_BASE_URL, RUNAI_CLIENT_ID, RUNAI_CLIENT_SECRET;
KUBECONFIG for the optional read-only Tier 2 kubeconfig. There is no fallback to ``~/.kube/config``: that file
often holds a person's admin credentials, so Tier 2 reads only a kubeconfig the caller named. SSL_CERT_FILE,
else REQUESTS_CA_BUNDLE, for a private CA bundle (``--ca-file`` wins over both).
Each Tier-1 source's own variables (``--tier1 mcp``: RUNAI_MCP_URL with RUNAI_MCP_TOKEN, or RUNAI_MCP_COMMAND) are
the ones it declares in :mod:`tools.runai.registry`, read here into ``sources``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Mapping

from workload_diagnose.tools.runai.registry import source_env

NO_KUBECONFIG = ("no kubeconfig was given: pass --kubeconfig PATH or set KUBECONFIG to a read-only kubeconfig to "
                 "turn Tier 2 on (~/.kube/config is never read implicitly)")


@dataclass(frozen=True)
class Settings:
    runai_base_url: str | None = None
    runai_client_id: str | None = None
    runai_client_secret: str | None = None
    kubeconfig: str | None = None
    ca_file_env: tuple[str, str] | None = None  # (variable, path) of the CA bundle named in the environment
    sources: Mapping[str, str] = field(default_factory=dict)  # each source's declared variables that are set

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "Settings":
        env = os.environ if environ is None else environ
        return cls(runai_base_url=env.get("RUNAI_BASE_URL"), runai_client_id=env.get("RUNAI_CLIENT_ID"),
                   runai_client_secret=env.get("RUNAI_CLIENT_SECRET"), kubeconfig=env.get("KUBECONFIG"),
                   ca_file_env=next(((v, env[v]) for v in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE") if env.get(v)), None),
                   sources=source_env(env))

    def ca_file(self, explicit: str | None) -> tuple[str | None, str]:
        """(CA bundle path or None for certifi's, where it was named): ``--ca-file`` wins over the environment."""
        if explicit:
            return explicit, "--ca-file"
        if self.ca_file_env:
            return self.ca_file_env[1], self.ca_file_env[0]
        return None, ""

    def runai(self, url: str | None, client_id: str | None, client_secret: str | None
              ) -> tuple[str | None, str | None, str | None]:
        """(URL, client id, secret): an explicit value wins (an empty URL falls back; empty credentials do not)."""
        return (url or self.runai_base_url,
                client_id if client_id is not None else self.runai_client_id,
                client_secret if client_secret is not None else self.runai_client_secret)

    def kubeconfig_path(self, explicit: str | None) -> str | None:
        """The kubeconfig Tier 2 reads: ``--kubeconfig``, else the first file of ``KUBECONFIG``, else none."""
        if explicit:
            return os.path.expanduser(explicit)
        first = (self.kubeconfig or "").split(os.pathsep)[0]
        return os.path.expanduser(first) if first else None


def make_kube(kubeconfig: str | None, use_kube: bool, settings: Settings | None = None) -> tuple[Any, str | None]:
    """Return (KubeReader or None, reason it is unavailable)."""
    if not use_kube:
        return None, "--no-kube was given"
    path = (settings or Settings.from_env()).kubeconfig_path(kubeconfig)
    if not path:
        return None, NO_KUBECONFIG
    try:
        from workload_diagnose.tools.kube import KubeReader

        return KubeReader.from_kubeconfig(path), None
    except Exception as e:  # a broken kubeconfig is a limitation, not a crash
        return None, f"the kubeconfig {path} could not be loaded ({type(e).__name__}: {getattr(e, 'message', e)})"
