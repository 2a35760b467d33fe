"""The service's settings, read once at start from the environment (and the API token file it names).

=========================  ==============================================================================
variable                   meaning
=========================  ==============================================================================
RUNAI_BASE_URL             the Run:ai control plane (as for ``failed``)
RUNAI_CLIENT_ID / _SECRET  the service account (auth mode ``tokens``; ``none`` uses it too)
WD_AUTH                    ``tokens`` (API tokens, the service account reads), ``passthrough`` (the caller's
                           own Run:ai bearer token is used for every read) or ``none`` (loopback only);
                           default: ``tokens`` when tokens are configured, else ``none``
WD_API_TOKENS_FILE         a JSON or YAML file ``{"tokens": [{"name", "sha256", "clusters", "projects"}]}``:
                           each token stored as the SHA-256 of its text (``printf %s TOKEN | sha256sum``),
                           scoped to cluster ids and project names (``["*"]`` = all)
WD_API_TOKENS              the same document inline (JSON)
WD_MAX_CONCURRENT          diagnoses at once per process (default 32); one more is answered 429
WD_UPSTREAM_TIMEOUT_S      timeout of every Run:ai request (default 10)
WD_DIAGNOSIS_DEADLINE_S    a diagnosis that takes longer is answered 504 (default 60)
WD_READY_TTL_S             how long ``/readyz``'s Run:ai check is cached (default 5)
WD_KUBE                    ``auto`` (``KUBECONFIG``, else the in-cluster service account) or ``off``
WD_TIER1                   the Run:ai source (a registered ``--tier1`` value, default ``rest``; its own variables
                           as for ``failed``); ``WD_AUTH=passthrough`` needs one that reads with a bearer token
WD_HEADER_TIMEOUT_S        a connection must send a request's line and headers within this (default 10) of
                           starting it, else it is closed (``agent.service.connections``), and its body within
                           as long again, else 408 (``agent.service.limits``)
WD_KEEPALIVE_S             an idle keep-alive connection is closed after this (default 5)
WD_MAX_CONNECTIONS         open connections per worker (default 1000, at most half the open-file limit); one
                           more closes the one that has waited longest for a request
WD_ALLOWED_HOSTS           host names (comma-separated) the service answers to besides the loopback names
                           (``Host``; a browser ``Origin`` must name one too): 421/403 otherwise. Checked
                           without auth always, with auth only when set (``agent.service.hosts``);
                           ``serve --allowed-host NAME`` adds one
WD_ACCESS_LOG              ``on`` (default) or ``off``: one line per request on stderr (``agent.service.access``)
WD_SPECULATIVE_READS       ``on`` or ``off`` (default): a diagnosis by workload id reads the workload's pods, history
                           and metrics beside its status, before its phase says whether it needs them (one round
                           trip less; a read it did not need is listed in ``tool_calls`` with ``unused``, never
                           used as evidence). Only for a caller who may see every workload (no scope to check)
WD_ALERTMANAGER_POST_URL   where each finished alert diagnosis is also POSTed (``routes/alertmanager.py``)
WD_ALERTMANAGER_POST_      that POST's timeout (default 5)
TIMEOUT_S
WD_SLACK_SIGNING_SECRET    the Slack app's signing secret: turns the Slack endpoints on (``routes/slack.py``)
WD_SLACK_BOT_TOKEN         the bot token (``xoxb-…``) that replies to an app mention (chat.postMessage)
WD_SLACK_SCOPE             the name of the API token whose clusters and projects Slack requests may read
                           (required with ``WD_AUTH=tokens``)
WD_SLACK_CLUSTER_ID        the cluster a Slack request means when it names none
WD_SLACK_API_URL           Slack's Web API (default ``https://slack.com/api/``; a stand-in in tests)
=========================  ==============================================================================
"""
from __future__ import annotations

import ipaddress
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Mapping

from workload_diagnose.tools.runai import registry

AuthMode = Literal["tokens", "passthrough", "none"]
SLACK_API_URL = "https://slack.com/api/"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_DNS_NAME = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$")


class ConfigError(ValueError):
    """The service cannot start with these settings (one line, said at start)."""


@dataclass(frozen=True)
class ApiToken:
    name: str
    sha256: str  # hex digest of the token's text; the text itself is never kept
    clusters: frozenset[str]  # cluster ids (lower case) or {"*"}
    projects: frozenset[str]  # project names or {"*"}

    def allows_cluster(self, cluster_id: str | None) -> bool:
        return "*" in self.clusters or (cluster_id or "").lower() in self.clusters

    def allows_project(self, project: str | None) -> bool:
        return "*" in self.projects or (project is not None and project in self.projects)

    @property
    def sees_everything(self) -> bool:
        """Every cluster and every project: the only scope that may learn a workload id does not exist."""
        return "*" in self.clusters and "*" in self.projects


@dataclass(frozen=True)
class ServiceConfig:
    runai_url: str | None = None
    client_id: str | None = None
    client_secret: str | None = None
    auth: AuthMode = "none"
    tokens: tuple[ApiToken, ...] = ()
    max_concurrent: int = 32
    upstream_timeout_s: float = 10.0
    deadline_s: float = 60.0
    ready_ttl_s: float = 5.0
    kube: Literal["auto", "off"] = "auto"
    kubeconfig: str | None = None
    tier1: str = "rest"
    sources: Mapping[str, str] = field(default_factory=dict)  # each source's declared variables that are set
    allowed_hosts: tuple[str, ...] = ()
    header_timeout_s: float = 10.0
    keepalive_s: float = 5.0
    max_connections: int = 1000
    access_log: bool = True
    speculative_reads: bool = False
    alert_post_url: str | None = None
    alert_post_timeout_s: float = 5.0
    slack_signing_secret: str | None = field(default=None, repr=False)
    slack_bot_token: str | None = field(default=None, repr=False)
    slack_scope: str | None = None
    slack_cluster_id: str | None = None
    slack_api_url: str = SLACK_API_URL

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "ServiceConfig":
        env = os.environ if environ is None else environ
        tokens = _tokens(env)
        auth = (env.get("WD_AUTH") or ("tokens" if tokens else "none")).strip().lower()
        if auth not in ("tokens", "passthrough", "none"):
            raise ConfigError(f"WD_AUTH must be tokens, passthrough or none, not {auth!r}")
        if auth == "tokens" and not tokens:
            raise ConfigError("WD_AUTH=tokens needs API tokens (WD_API_TOKENS_FILE or WD_API_TOKENS)")
        kube = (env.get("WD_KUBE") or "auto").strip().lower()
        if kube not in ("auto", "off"):
            raise ConfigError(f"WD_KUBE must be auto or off, not {kube!r}")
        tier1 = _tier1((env.get("WD_TIER1") or "rest").strip().lower(), auth, env)
        access_log = (env.get("WD_ACCESS_LOG") or "on").strip().lower()
        if access_log not in ("on", "off"):
            raise ConfigError(f"WD_ACCESS_LOG must be on or off, not {access_log!r}")
        slack = _slack(env, auth, tokens)
        speculative = (env.get("WD_SPECULATIVE_READS") or "off").strip().lower()
        if speculative not in ("on", "off"):
            raise ConfigError(f"WD_SPECULATIVE_READS must be on or off, not {speculative!r}")
        return cls(runai_url=env.get("RUNAI_BASE_URL") or None, client_id=env.get("RUNAI_CLIENT_ID"),
                   client_secret=env.get("RUNAI_CLIENT_SECRET"), auth=auth, tokens=tokens,  # type: ignore[arg-type]
                   max_concurrent=_num(env, "WD_MAX_CONCURRENT", 32, int),
                   upstream_timeout_s=_num(env, "WD_UPSTREAM_TIMEOUT_S", 10.0, float),
                   deadline_s=_num(env, "WD_DIAGNOSIS_DEADLINE_S", 60.0, float),
                   ready_ttl_s=_num(env, "WD_READY_TTL_S", 5.0, float),
                   kube=kube, kubeconfig=env.get("KUBECONFIG") or None,  # type: ignore[arg-type]
                   tier1=tier1, sources=registry.source_env(env),
                   allowed_hosts=parse_hosts((env.get("WD_ALLOWED_HOSTS") or "").split(","), "WD_ALLOWED_HOSTS"),
                   header_timeout_s=_num(env, "WD_HEADER_TIMEOUT_S", 10.0, float),
                   keepalive_s=_num(env, "WD_KEEPALIVE_S", 5.0, float),
                   max_connections=_num(env, "WD_MAX_CONNECTIONS", 1000, int), access_log=access_log == "on",
                   speculative_reads=speculative == "on",
                   alert_post_url=_url(env, "WD_ALERTMANAGER_POST_URL"),
                   alert_post_timeout_s=_num(env, "WD_ALERTMANAGER_POST_TIMEOUT_S", 5.0, float), **slack)

    @property
    def authenticated(self) -> bool:
        return self.auth != "none"

    @property
    def checks_host(self) -> bool:
        """Whether ``Host``/``Origin`` are checked (``agent.service.hosts``): without auth always, else when
        hosts are configured."""
        return not self.authenticated or bool(self.allowed_hosts)


def parse_hosts(values: "list[str] | tuple[str, ...]", origin: str = "--allowed-host") -> tuple[str, ...]:
    """Host names as ``WD_ALLOWED_HOSTS`` / ``--allowed-host`` give them: lower case, without brackets or a port
    (any port is allowed); ConfigError (one line) for anything else."""
    out: list[str] = []
    for raw in values:
        name = raw.strip().lower()
        if not name:
            continue
        bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
        try:
            bare = str(ipaddress.ip_address(bare))
        except ValueError:
            if not _DNS_NAME.match(bare) or len(bare) > 253:
                raise ConfigError(f"{origin}: {raw.strip()[:100]!r} is not a host name or IP address (no scheme, "
                                  "port, path or wildcard)") from None
        if bare not in out:
            out.append(bare)
    return tuple(out)

def _url(env: Mapping[str, str], name: str) -> str | None:
    """An http(s) URL setting, or None when unset; ConfigError for anything else (never echoing a query, which
    may hold a key)."""
    from urllib.parse import urlsplit

    raw = (env.get(name) or "").strip()
    if not raw:
        return None
    try:
        parts = urlsplit(raw)
        parts.port  # noqa: B018  (ValueError for a bad port)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname or parts.username:
        raise ConfigError(f"{name} must be an http(s) URL without credentials in it")
    return raw


def _slack(env: Mapping[str, str], auth: str, tokens: tuple[ApiToken, ...]) -> dict:
    """The Slack adapter's settings: off without a signing secret; a Slack request carries no caller
    credential, so it reads within one configured API token's scope (``WD_SLACK_SCOPE``)."""
    secret = (env.get("WD_SLACK_SIGNING_SECRET") or "").strip() or None
    scope = (env.get("WD_SLACK_SCOPE") or "").strip() or None
    cluster = (env.get("WD_SLACK_CLUSTER_ID") or "").strip() or None
    if secret is not None:
        import importlib.util

        if importlib.util.find_spec("slack_sdk") is None:
            raise ConfigError("WD_SLACK_SIGNING_SECRET is set and the Slack adapter needs the slack extra: "
                              "pip install 'workload-diagnose[slack]'")
        if auth == "passthrough":
            raise ConfigError("WD_SLACK_SIGNING_SECRET: a Slack request carries no Run:ai token, so WD_AUTH="
                              "passthrough cannot serve it: use WD_AUTH=tokens with WD_SLACK_SCOPE")
        if auth == "tokens" and scope is None:
            raise ConfigError("WD_SLACK_SCOPE must name the API token whose clusters and projects Slack requests "
                              "may read")
    if scope is not None and scope not in {t.name for t in tokens}:
        raise ConfigError(f"WD_SLACK_SCOPE={scope!r} names no configured API token")
    if cluster is not None:
        from workload_diagnose.tools.runai import ids

        try:
            ids.check_id(cluster, "WD_SLACK_CLUSTER_ID")
        except ValueError as e:
            raise ConfigError(str(e)) from None
    return dict(slack_signing_secret=secret, slack_bot_token=(env.get("WD_SLACK_BOT_TOKEN") or "").strip() or None,
                slack_scope=scope, slack_cluster_id=cluster,
                slack_api_url=_url(env, "WD_SLACK_API_URL") or SLACK_API_URL)


def _tier1(name: str, auth: str, env: Mapping[str, str]) -> str:
    """The service's Run:ai source: registered, able to read with the caller's token when auth passes it through,
    and configured without contradiction (a missing setting is ``/readyz``'s to say)."""
    try:
        registry.check_name(name)
    except ValueError as e:
        raise ConfigError(str(e).replace("--tier1", "WD_TIER1", 1)) from None
    if auth == "passthrough" and not registry.spec(name).bearer:
        raise ConfigError(f"WD_AUTH=passthrough reads with the caller's Run:ai token, and WD_TIER1={name} reads with "
                          "its own credentials: use WD_AUTH=tokens or none")
    try:
        registry.missing(name, registry.SourceSettings(env=registry.source_env(env)))
    except ValueError as e:
        raise ConfigError(str(e)) from None
    return name


def _num(env: Mapping[str, str], name: str, default, kind):
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, not {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be greater than 0, not {raw!r}")
    return value


def _tokens(env: Mapping[str, str]) -> tuple[ApiToken, ...]:
    path, inline = env.get("WD_API_TOKENS_FILE"), env.get("WD_API_TOKENS")
    if path and inline:
        raise ConfigError("set WD_API_TOKENS_FILE or WD_API_TOKENS, not both")
    if not (path or inline):
        return ()
    where = path or "WD_API_TOKENS"
    try:
        text = Path(path).read_text() if path else inline
    except OSError as e:
        raise ConfigError(f"cannot read the API token file {path}: {e.strerror}") from None
    try:
        if path and not path.endswith(".json"):
            import yaml

            doc = yaml.safe_load(text)
        else:
            doc = json.loads(text or "")
    except Exception as e:  # noqa: BLE001  (YAML or JSON: one line, never the text, which holds hashes only)
        raise ConfigError(f"{where} is not valid {'YAML' if path and not path.endswith('.json') else 'JSON'} "
                          f"({type(e).__name__})") from None
    return parse_tokens(doc, where)


def parse_tokens(doc: object, where: str = "the token document") -> tuple[ApiToken, ...]:
    entries = doc.get("tokens") if isinstance(doc, dict) else None
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{where} has no 'tokens' list")
    out: list[ApiToken] = []
    seen: set[str] = set()
    names: set[str] = set()
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            raise ConfigError(f"{where}: tokens[{i}] is not a mapping")
        name, digest = e.get("name"), str(e.get("sha256") or "").strip().lower()
        if not isinstance(name, str) or not name:
            raise ConfigError(f"{where}: tokens[{i}] has no name")
        if not _HEX64.match(digest):
            raise ConfigError(f"{where}: token {name!r} needs 'sha256', the hex SHA-256 of the token (the token "
                              "itself is never stored)")
        if digest in seen:
            raise ConfigError(f"{where}: token {name!r} repeats another token's hash")
        if name in names:  # a name is what logs and operators tell tokens apart by: one credential each
            raise ConfigError(f"{where}: token name {name!r} is used twice: give each token its own name")
        seen.add(digest)
        names.add(name)
        scopes = {}
        for key in ("clusters", "projects"):
            val = e.get(key)
            if not isinstance(val, list) or not val or not all(isinstance(v, str) and v for v in val):
                raise ConfigError(f"{where}: token {name!r} needs '{key}', a non-empty list (['*'] for all)")
            scopes[key] = frozenset(v.lower() if key == "clusters" else v for v in val)
        out.append(ApiToken(name=name, sha256=digest, **scopes))
    return tuple(out)
