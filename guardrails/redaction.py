"""Credential redaction for untrusted evidence (logs, events, specs, commands, annotations, API bodies).

Design
------
* Every regex runs on google-re2 (``import re2``): matching is linear in the input, so hostile input
  cannot make the redactor backtrack.  re2 has no look-around and no back-references, so "is this
  really a secret?" decisions that would need them are made in small Python callbacks that only see
  the (already bounded) candidate match.
* Three stages, each linear:
    1. PEM private-key blocks (``-----BEGIN … PRIVATE KEY-----`` … ``-----END …-----``): found with
       ``str.find`` inside windows bounded by the next BEGIN and 64 KiB, so many unterminated headers
       cannot make the scan quadratic.
    2. One combined re2 alternation holding the *context* rules (``key=value`` with a secret-like key,
       ``--password X`` flags, ``- name: DB_PASSWORD / value: …`` env entries, YAML block scalars,
       Authorization / Cookie / API-key headers, URL userinfo, query parameters, ``docker login -p``,
       ``mysql -pX``, ``curl -u user:pass``, XML elements, bare ``Bearer``/``Basic`` credentials) and
       the *known token formats* (AWS, GitHub, GitLab, Slack, OpenAI, Anthropic, Hugging Face, NGC
       ``nvapi-``, Stripe, Google, Azure, JWT, …).  It is compiled without captures and scanned once;
       a ``re2.Set`` names the rule of each candidate and only that rule's regex extracts groups from
       the (short) candidate; identical candidates are decided once per call (memo).
    3. A candidate that a callback rejects (``token: expired``, ``--token-file /x``) is not dropped
       silently: its span is re-scanned once with the full rule set (inner rejections fall back to the
       known formats only) so a real token inside a rejected candidate is still removed.  The fixed
       depth keeps the whole thing linear.
* The replacement is ``[REDACTED:<kind>]``.  No rule can match inside a marker (values may not start
  with ``[REDACTED``; token character classes exclude ``[``/``]``), so ``redact(redact(x)) == redact(x)``.
* Whole spans are replaced: the full JWT (all segments), the full PEM block, the full token including
  its prefix.
"""

from __future__ import annotations

import base64
import binascii
import functools
import math
from typing import Any

import re2

from .names import _KEY_STRONG_PREV, STRONG, WEAK, classify_name

MARKER_PREFIX = "[REDACTED:"


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _opts() -> re2.Options:
    o = re2.Options()
    o.max_mem = 64 << 20  # room for the DFA of the combined alternation (default 8 MiB)
    return o


# --------------------------------------------------------------------------------------------------
# Known token formats.  (kind, pattern).  Written from the vendors' documented formats and the public
# gitleaks rule set as a reference; character classes are kept as wide as the vendor documents so the
# WHOLE token is replaced (full-span), never only its prefix.
# --------------------------------------------------------------------------------------------------
KNOWN_FORMATS: list[tuple[str, str]] = [
    # AWS access key ids (AKIA long-term, ASIA temporary, …) – 20 chars total
    ("aws_access_key", r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b"),
    # GitHub classic (ghp_/gho_/ghu_/ghs_/ghr_ + 36..251) and fine-grained PATs
    ("github_token", r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,251}\b"),
    ("github_token", r"\bgithub_pat_[A-Za-z0-9_]{22,255}"),
    # GitLab: PAT, OAuth app secret, deploy, runner, CI build, trigger, feed, incoming mail, agent,
    # SCIM/OAuth, feature-flag client, workspace tokens; new-style tokens carry ".01.<base36>" suffixes
    ("gitlab_token",
     r"\b(?:glpat|gloas|gldt|glrt|glrtr|glcbt|glptt|glft|glimt|glagent|glsoat|glffct|glwt|gltst)-[A-Za-z0-9_\-]{20,}(?:\.[A-Za-z0-9_\-]{2,}){0,3}"),
    ("gitlab_token", r"\bGR1348941[A-Za-z0-9_\-]{20,}"),
    # Slack bot/user/app/config tokens and incoming webhooks
    ("slack_token", r"\bxox[abposre]-[A-Za-z0-9\-]{10,}"),
    ("slack_token", r"\bxoxe\.xox[bp]-[A-Za-z0-9\-]{10,}"),
    ("slack_token", r"\bxapp-[0-9]-[A-Za-z0-9\-]{10,}"),
    ("slack_webhook", r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{20,}"),
    # Anthropic before OpenAI (both start with sk-)
    ("anthropic_key", r"\bsk-ant-(?:api|admin|sid|oat)[0-9]{2}-[A-Za-z0-9_\-]{20,}"),
    # OpenAI: legacy (contains T3BlbkFJ = base64 "OpenAI"), project / service-account / admin keys.
    ("openai_key", r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}"),
    ("openai_key", r"\bsk-[A-Za-z0-9_\-]{20,}"),  # validated: must look random (see _KNOWN_CHECK)
    # Stripe secret / restricted / publishable keys and webhook secrets
    ("stripe_key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}"),
    ("stripe_key", r"\bwhsec_[A-Za-z0-9+/=]{24,}"),
    # Hugging Face user / org tokens
    ("huggingface_token", r"\bhf_[A-Za-z0-9]{30,}"),
    ("huggingface_token", r"\bapi_org_[A-Za-z0-9]{30,}"),
    # NVIDIA NGC / build.nvidia.com API keys
    ("ngc_key", r"\bnvapi-[A-Za-z0-9_\-]{30,}"),
    # Google API key, OAuth client secret, OAuth access / refresh token
    ("google_api_key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("google_oauth", r"\bGOCSPX-[A-Za-z0-9_\-]{20,}"),
    ("google_oauth", r"\bya29\.[0-9A-Za-z_\-]{20,}"),
    ("google_oauth", r"\b1//0[0-9A-Za-z_\-]{40,}"),
    # Azure AD client secret (xxxNQ~…)
    ("azure_client_secret", r"\b[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}"),
    # Databricks, npm, PyPI, Docker Hub, Grafana, Vault, Terraform, SendGrid, Replicate, Groq, …
    ("databricks_token", r"\bdapi[a-f0-9]{32}(?:-[0-9]+)?\b"),
    ("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi_token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"),
    ("dockerhub_token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}"),
    ("grafana_token", r"\bglc_[A-Za-z0-9+/]{32,}={0,2}"),
    ("grafana_token", r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b"),
    ("vault_token", r"\bhv[sbr]\.[A-Za-z0-9_\-]{24,}"),
    ("terraform_token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,}"),
    ("sendgrid_key", r"\bSG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,64}"),
    ("replicate_token", r"\br8_[A-Za-z0-9]{37}\b"),
    ("groq_key", r"\bgsk_[A-Za-z0-9]{48,}"),
    ("perplexity_key", r"\bpplx-[A-Za-z0-9]{40,}"),
    ("xai_key", r"\bxai-[A-Za-z0-9]{70,}"),
    ("langsmith_key", r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b"),
    ("tavily_key", r"\btvly-(?:dev-|prod-)?[A-Za-z0-9]{24,}"),
    ("pinecone_key", r"\bpcsk_[A-Za-z0-9_]{40,}"),
    ("digitalocean_token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    ("shopify_token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    ("twilio_key", r"\bSK[0-9a-fA-F]{32}\b"),
    ("atlassian_token", r"\bATATT3[A-Za-z0-9_\-=]{100,}"),
    ("onepassword_token", r"\bops_eyJ[A-Za-z0-9+/=_\-]{100,}"),
    ("alibaba_access_key", r"\bLTAI[A-Za-z0-9]{12,20}\b"),
    ("onepassword_secret_key",
     r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b"),
    ("doppler_token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"),
    ("postman_key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"),
    ("linear_key", r"\blin_api_[A-Za-z0-9]{40}\b"),
    ("brevo_key", r"\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b"),
    ("square_token", r"\bsq0(?:atp|csp)-[A-Za-z0-9_\-]{22,43}"),
    ("age_secret_key", r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b"),
    # JWT / JWS (3 parts) and JWE (5 parts); header and payload are base64url JSON ("eyJ" = '{"')
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}(?:\.[A-Za-z0-9_\-]*){1,3}=*"),
    # base64 of "-----BEGIN …" (Kubernetes Secret data, kubeconfig client-key-data): validated
    ("private_key", r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{16,}={0,2}"),
    # base64 of a docker config json: {"auths": …
    ("docker_auth", r"\b(?:eyJhdXRocyI6|ewogICJhdXRocyI6|ewogICAgImF1dGhzIjo|eyAiYXV0aHMiOi)[A-Za-z0-9+/]{8,}={0,2}"),
]

# A token right after a JSON escape ("…\\nghp_…", common in JSON-encoded container logs) has no \b
# before it (the 'n' of the escape is a word character): accept the escape as a boundary too; the
# handler keeps those two characters.
KNOWN_FORMATS = [(k, (r"(?:\b|\\[nrt])" + p[2:]) if p.startswith(r"\b") else p) for k, p in KNOWN_FORMATS]

# --------------------------------------------------------------------------------------------------
# Context rules
# --------------------------------------------------------------------------------------------------
_NAMEC = r"[A-Za-z0-9_.\-]"
# secret-ish words a key / flag name must END with to be a candidate (the final decision is made by
# names.classify_name on the whole name; requiring the word at the end keeps "token_budget=",
# "max_new_tokens=", "Authentication failed:" from even becoming candidates, which matters for speed)
_KEY_QUALIFIERS = "|".join(sorted(_KEY_STRONG_PREV, key=len, reverse=True))
_SUFFIX = r"(?i:[_.\-](?:b64|base64|hex|enc|encoded|value|val|raw|plain|plaintext))?"
# strong words: any (non-placeholder) value is a secret
_SW = (r"(?i:pass(?:w(?:or)?d|phrase|wort)?|pwd|secret|token|(?:" + _KEY_QUALIFIERS + r")[_.\-]?key|apikey"
       r"|key[_.\-]?data|credentials?|creds?|authorization|(?:basic|proxy|http|registry|docker)[_.\-]?auth|cookie|jwt"
       r"|dockercfg|dockerconfigjson)" + _SUFFIX)
# weak words: only random-looking values are secrets, so short values are not even candidates
_SW_WEAK = r"(?i:key|auth|signature|salt|hmac)" + _SUFFIX
# a value: escaped-JSON string, JSON string, unterminated string, single-quoted, back-quoted, bare word.
# A bare value cannot start with '[' (markers, arrays), '<' (placeholders) or '$' (shell references).
# A bare value ends at whitespace, quotes, , ; ) ] } or at a JSON/log escape (\\n \\r \\t \\" \\\\).
_BARE_CH = r"(?:[^\s\"'`,;)\]}\\]|\\[^nrt\"\\\s])"
_VALUE = (r"(?:\\\"(?:[^\"\\\n]|\\[^\"\n])*\\\"|\"(?:[^\"\\\n]|\\.)*\"|\"[^\"\n]*|'[^'\n]*'?|`[^`\n]*`?"
          r"|[^\s\"'`,;)\]}\[<$\\]" + _BARE_CH + r"*)")
_VALUE_LONG = (r"(?:\\\"[^\"\\\n]{8,}\\\"|\"[^\"\\\n]{8,}\"|'[^'\n]{8,}'|[^\s\"'`,;)\]}\[<$\\]" + _BARE_CH
               + r"{7,})")
_PRE = r"(?:^|[^A-Za-z0-9_.\-])"

_CONTEXT_RULES: list[tuple[str, str]] = [
    # query parameters: ?token=…&sig=…
    ("q", r"(?P<q_pre>[?&;])(?P<q_name>(?i:access_token|id_token|refresh_token|auth_token|token|api_key|apikey"
          r"|api-key|key|sig|signature|x-amz-signature|x-amz-security-token|x-amz-credential|password|passwd"
          r"|pwd|secret|client_secret|code|jwt|session|sessionid|private_token|private-token))"
          r"=(?P<q_val>[^&#\s\"'<>\[\]$][^&#\s\"'<>\[\]]*)"),
    # HTTP headers carrying credentials (plain, JSON, Python-repr, escaped JSON)
    ("h", r"(?P<h_pre>" + _PRE[3:-1] + r")(?P<h_name>(?i:authorization|proxy-authorization|x-api-key|x-auth-token"
          r"|x-access-token|private-token|x-goog-api-key|api-key|cookie|set-cookie|x-amz-security-token))"
          r"(?:\\?[\"'])?[ \t]*:[ \t]*(?:\\?[\"'])?(?P<h_val>[^\r\n\"'\\]+)"),
    # Kubernetes env entry as JSON: {"name": "DB_PASSWORD", "value": "…"} (also escaped JSON)
    ("ej", r"\\?\"(?i:name)\\?\"[ \t]*:[ \t]*\\?\"(?P<ej_name>[^\"\\\n]{1,100})\\?\"[ \t]*,[ \t\r\n]*"
           r"\\?\"(?i:value)\\?\"[ \t]*:[ \t]*(?P<ej_val>" + _VALUE + r")"),
    # Kubernetes env entry as YAML: - name: DB_PASSWORD\n  value: …   (or flow style name: X, value: Y)
    ("ey", r"(?P<ey_pre>" + _PRE[3:-1] + r")(?i:name)[ \t]*:[ \t]*[\"']?(?P<ey_name>[A-Za-z0-9_.\-]{1,100})[\"']?"
           r"[ \t]*(?:\r?\n[ \t]*(?:-[ \t]*)?|,[ \t]*)(?i:value)[ \t]*:[ \t]*(?P<ey_val>" + _VALUE + r")"),
    # docker/podman/… login -p / --password
    ("dl", r"\b(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|helm[ \t]+registry)[ \t]+(?:auth[ \t]+)?login\b"
           r"[^\n|;&]*?[ \t](?:-p|--password)(?:[ \t]+|=)(?P<dl_val>" + _VALUE + r")"),
    # tool-specific password arguments: mysql -pSECRET, redis-cli -a SECRET, sshpass -p SECRET
    ("tp", r"\b(?:(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?[ \t]-p|(?:redis-cli|keydb-cli)\b[^\n|;&]*?[ \t]-a[ \t]+"
           r"|sshpass[ \t]+-p[ \t]*)(?P<tp_val>" + _VALUE + r")"),
    # echo SECRET | docker login --password-stdin
    ("es", r"\becho[ \t]+(?:-n[ \t]+)?(?P<es_val>" + _VALUE + r")[ \t]*\|[^\n|]*--password-stdin"),
    # aws configure set aws_secret_access_key SECRET
    ("ac", r"\baws[ \t]+configure[ \t]+set[ \t]+(?P<ac_name>[A-Za-z0-9_.\-]{1,80})[ \t]+(?P<ac_val>" + _VALUE + r")"),
    # XML element <password>SECRET</password>
    ("x", r"<(?P<x_name>" + _NAMEC + r"{0,40}" + _SW + r")>(?P<x_val>[^<\n]+)</"),
    # key/name + value attribute pairs: <add key="ApiKey" value="SECRET"/>
    ("ka", r"(?P<ka_pre>" + _PRE[3:-1] + r")(?i:key|name)[ \t]*=[ \t]*[\"'](?P<ka_name>[A-Za-z0-9_.\-]{1,100})[\"'][ \t]+(?i:value)[ \t]*=[ \t]*"
           r"(?P<ka_val>" + _VALUE + r")"),
    # curl -u user:pass / --user / --proxy-user
    ("cu", r"(?P<cu_pre>^|[\s\"'])(?:-u|--user|--proxy-user)[ \t]+[\"']?(?P<cu_user>[^\s:\"']+):(?P<cu_val>[^\s\"']+)"),
    # generic key = value / key: value with a secret-like key
    ("g", r"(?P<g_pre>" + _PRE[3:-1] + r")(?P<g_name>" + _NAMEC + r"{0,40}" + _SW + r")"
          r"(?:\\?[\"'])?\]?[ \t]*(?::=|=>|[:=])[ \t]*(?P<g_val>" + _VALUE + r")"),
    # the same with a weak word (key / auth / signature): value of 8+ characters
    ("gw", r"(?P<gw_pre>" + _PRE[3:-1] + r")(?P<gw_name>" + _NAMEC + r"{0,40}" + _SW_WEAK + r")"
           r"(?:\\?[\"'])?[ \t]*(?::=|=>|[:=])[ \t]*(?P<gw_val>" + _VALUE_LONG + r")"),
    # --password X / -token X (space separated flag)
    ("f", r"(?P<f_pre>^|[\s\"'=(])(?P<f_name>-" + _NAMEC + r"{0,40}" + _SW + r")[ \t]+(?P<f_val>"
          + _VALUE + r")"),
    # URL userinfo scheme://user:pass@host
    # (RFC 3986 userinfo may hold sub-delims such as ' ( ) ; , so only /?#@ " < > [ ] \ and space end it)
    ("u", r"\b[A-Za-z][A-Za-z0-9+.\-]{0,20}://(?P<u_user>[^\s/?#@:\"'<>\[\]\\]*):(?P<u_val>[^\s/?#@\"<>\[\]\\]+)@"),
    # bare Bearer / Basic credentials
    ("bb", r"\b(?i:bearer)[ \t]+(?P<bb_val>[A-Za-z0-9._~+/\-]{8,}=*)"),
    ("bs", r"\b(?i:basic)[ \t]+(?P<bs_val>[A-Za-z0-9+/]{6,}={0,2})"),
]


class _Rule:
    __slots__ = ("typ", "name", "rx", "gidx")

    def __init__(self, typ: str, name: str, pattern: str) -> None:
        self.typ = typ          # "ctx" (a callback decides) or "known" (a token format)
        self.name = name        # context rule name, or the kind of a known format
        self.rx = re2.compile(pattern, _opts()) if typ == "ctx" else None
        self.gidx = dict(self.rx.groupindex) if self.rx is not None else {}


class _Matcher:
    """Two-phase matching, linear and cheap per candidate.

    1. ``coarse``: the alternation of every rule compiled with ``never_capture``: one DFA pass over the
       text, and the Python wrapper's per-match cost does not grow with the number of groups.
    2. for each candidate span a ``FullMatchSet`` names the rule (the lowest index matching the span
       exactly is the alternative that leftmost-first semantics chose), then only that rule's own regex
       runs on the (short) span to extract its groups.
    """

    def __init__(self, ctx: list[tuple[str, str]], known: list[tuple[str, str]]) -> None:
        self.rules = [_Rule("ctx", n, p) for n, p in ctx] + [_Rule("known", k, p) for k, p in known]
        pats = [p for _n, p in ctx] + [p for _k, p in known]
        o = _opts()
        o.never_capture = True
        self.coarse = re2.compile("|".join(f"(?:{p})" for p in pats), o)
        self.set = re2.Set.FullMatchSet(o)
        for p in pats:
            self.set.Add(p)
        self.set.Compile()

    def rule_for(self, cand: str) -> "_Rule | None":
        idx = self.set.Match(cand)
        return self.rules[min(idx)] if idx else None


_FULL = _Matcher(_CONTEXT_RULES, KNOWN_FORMATS)
_KNOWN = _Matcher([], KNOWN_FORMATS)
# one regex per known format, to name the kind of a value caught by a context rule
_KNOWN_SINGLE = [(kind, re2.compile(pat)) for kind, pat in KNOWN_FORMATS]
_KNOWN_ANY_FULL = _KNOWN.coarse

# --------------------------------------------------------------------------------------------------
# Value plausibility
# --------------------------------------------------------------------------------------------------
_PLACEHOLDERS = {
    "", "null", "none", "nil", "true", "false", "undefined", "n/a", "na", "empty", "unset", "redacted",
    "masked", "hidden", "omitted", "secret", "token", "password", "required", "optional", "string", "str",
    "value", "yes", "no", "on", "off", "0", "-", "--", "...", "…", "tbd", "todo", "xxx", "changeit?",
}
_STOPWORDS = {
    "expired", "expire", "expires", "invalid", "missing", "required", "not", "is", "was", "has", "have",
    "had", "for", "of", "the", "a", "an", "and", "or", "provided", "found", "set", "unset", "mismatch",
    "error", "failed", "failure", "denied", "rejected", "accepted", "refused", "length", "short", "long",
    "updated", "changed", "reset", "check", "see", "please", "unknown", "ok", "enabled", "disabled",
    "default", "auto", "incorrect", "wrong", "too", "must", "should", "cannot", "could", "does", "did",
    "will", "would", "can", "may", "authentication", "authenticated", "authorization", "verification",
    "verified", "valid", "malformed", "revoked", "rotated", "refreshed", "refresh", "renewed",
    "obtained", "received", "generated", "loaded", "present", "absent", "available", "unavailable",
    "in", "from", "to", "with", "without", "via", "using", "used", "use", "file", "env", "environment",
    "values", "key", "stored", "saved", "configured", "specified", "supplied", "given", "were", "be",
    "been", "being", "it", "this", "that", "these", "those", "expiring", "expiry", "at", "after",
    "before", "format", "type", "bearer", "basic", "digest", "negotiate", "ntlm", "requested",
    "request", "response", "mismatched", "unauthorized", "forbidden", "unsupported", "supported",
    "none", "true", "false", "success", "successful", "succeeded", "ok.", "done", "fetching",
    "fetched", "reading", "read", "writing", "written", "loading", "saving", "retrying", "retry",
    "waiting", "ignored", "ignoring", "skipping", "skipped", "deprecated", "removed", "added",
    "created", "deleted", "applied", "expected", "got", "if", "when", "then", "else", "only", "also",
    "all", "any", "some", "each", "every", "via", "by", "on", "off", "as", "per", "its", "your", "my",
    "our", "their", "his", "her", "no", "yes", "false.", "true.", "string", "int", "bool", "str",
    "object", "array", "list", "dict", "map", "secret", "token", "password", "credentials",
    "credential", "cookie", "cookies", "signature", "sig", "auth", "generation", "length:",
}
_B64ISH = re2.compile(r"^[A-Za-z0-9+/_=\-]+$")
_HEX = re2.compile(r"^[0-9a-fA-F]+$")
_UUID = re2.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_DNS_NAME = re2.compile(r"^[a-z0-9]([a-z0-9.\-]*[a-z0-9])?$")
_SHELL_REF = re2.compile(r"^(?:\$\{[^}]*\}?|\$\([^)]*\)?|\$[A-Za-z_][A-Za-z0-9_]*|%\([^)]*\)s|%s|\{\{.*\}\}?|\$\$.*)$")
_PATHLIKE = re2.compile(r"^(?:~|\.{1,2})?(?:/[A-Za-z0-9_.@:+\-]+)+/?$")


def _entropy(s: str) -> float:
    if not s:
        return 0.0
    counts: dict[str, int] = {}
    for ch in s:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def looks_random(v: str, min_len: int = 16) -> bool:
    """High-entropy machine-generated value (API key, base64 secret, hex key)?"""
    if len(v) < min_len:
        return False
    if _UUID.search(v):
        return False
    if _HEX.search(v):
        return len(v) >= 24 and _entropy(v) >= 3.0
    if not _B64ISH.search(v):
        return False
    has_digit = any(c.isdigit() for c in v)
    has_upper = any(c.isupper() for c in v)
    has_lower = any(c.islower() for c in v)
    if not has_digit and not (has_upper and has_lower and len(v) >= 24):
        return False
    if not (has_upper or has_lower):
        return False
    # dns-ish names with hyphens and words (train-7d9f8c6b5-x2x9q) are not secrets
    if "-" in v and _DNS_NAME.search(v) and max(len(p) for p in v.split("-")) < 16:
        return False
    return _entropy(v) >= 3.2


def _is_path(v: str) -> bool:
    if not _PATHLIKE.search(v):
        return False
    for seg in v.split("/"):
        if looks_random(seg, 12):
            return False
    return True


def _decodes_to_userpass(v: str) -> bool:
    try:
        raw = base64.b64decode(v + "=" * (-len(v) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    try:
        s = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return ":" in s and s.isprintable()


_MASK_CHARS = frozenset("*xX•.#?_-~ ")


def _is_secret_value(v: str, strength: str | None, kind: str) -> bool:
    """Is this value (already unquoted) a credential, given how strongly its label says so?"""
    v = v.strip()
    if not v or v.startswith(MARKER_PREFIX):
        return False
    low = v.lower()
    if low in _PLACEHOLDERS:
        return False
    bare = low.rstrip(".,:;!")
    if bare in _STOPWORDS and bare.isalpha():
        return False  # prose: "token: expired", "password: incorrect"
    if v[0] in "<[":
        return False
    if ("$" in v or "{" in v or "%" in v) and _SHELL_REF.search(v):
        return False  # $VAR, ${VAR}, $(cmd), {{ template }}, %(name)s
    if set(v) <= _MASK_CHARS or low.startswith("***") or low.startswith("xxxx"):
        return False
    if strength == WEAK:
        if kind == "auth" and _decodes_to_userpass(v):
            return True
        if kind == "secret":
            # bare `secret: db-creds` is usually the name of a Kubernetes Secret
            if _DNS_NAME.search(v) and not looks_random(v):
                return False
            return len(v) >= 6 and not v.isalpha() or looks_random(v)
        return looks_random(v)
    # STRONG
    if v.startswith("--") and len(v) > 2 and v[2].isalpha():
        return False  # next flag, not a value: "--password --verbose"
    if "/" in v and _is_path(v):
        return False
    return True


def _known_kind(value: str) -> str | None:
    """Kind of a known token format fully or partly present in value (first match)."""
    if len(value) < 8:
        return None
    m = _KNOWN_ANY_FULL.search(value)
    if not m:
        return None
    for kind, rx in _KNOWN_SINGLE:
        if rx.search(value):
            return kind
    return None


def _split_quotes(val: str) -> tuple[str, str, str]:
    """('"', inner, '"') for quoted values so the quotes survive the replacement."""
    if len(val) >= 4 and val.startswith('\\"') and val.endswith('\\"'):
        return '\\"', val[2:-2], '\\"'
    if len(val) >= 2 and val[0] in "\"'`" and val[-1] == val[0]:
        return val[0], val[1:-1], val[0]
    if val and val[0] in "\"'`":
        return val[0], val[1:], ""
    return "", val, ""


# --------------------------------------------------------------------------------------------------
# Known-format validation (regex candidates that need a look at the whole token)
# --------------------------------------------------------------------------------------------------
def _check_known(kind: str, token: str) -> bool:
    if kind == "openai_key" and token.startswith("sk-") and not token.startswith(
        ("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-")
    ):
        body = token[3:]
        return (any(c.isdigit() for c in body) and any(c.isupper() for c in body)
                and any(c.islower() for c in body) and _entropy(body) >= 3.5)
    if kind == "private_key" and token.startswith("LS0tLS1CRUdJTi"):
        head = token[: (min(len(token), 120) // 4) * 4]
        try:
            return b"PRIVATE KEY" in base64.b64decode(head)
        except (binascii.Error, ValueError):
            return False
    if kind == "azure_client_secret":
        return any(c.isdigit() for c in token) and _entropy(token) >= 3.5
    if kind == "twilio_key":
        return _entropy(token) >= 3.0
    return True


# --------------------------------------------------------------------------------------------------
# The matcher
# --------------------------------------------------------------------------------------------------
class _Counter:
    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0


class _M:
    """Groups of one rule's match on a candidate span (positions relative to the span)."""

    __slots__ = ("full", "m", "gidx")

    def __init__(self, full: str, m: Any, gidx: dict[str, int]) -> None:
        self.full = full
        self.m = m
        self.gidx = gidx

    def group(self, name: str) -> str:
        return self.m.group(self.gidx[name]) or ""

    def span(self, name: str) -> tuple[int, int]:
        return self.m.span(self.gidx[name])


def _replace_value(m: _M, vgroup: str, kind: str, counter: _Counter) -> str:
    full = m.full
    vs, ve = m.span(vgroup)
    q1, inner, q2 = _split_quotes(full[vs:ve])
    k = _known_kind(inner) or kind
    counter.n += 1
    return full[:vs] + q1 + marker(k) + q2 + full[ve:]


def _fallback(m: _M, vgroup: str, depth: int, counter: _Counter) -> str:
    """A candidate was rejected (``token: expired``).  Its span is not dropped unexamined: the part
    before the value is scanned for known formats, the value itself once more with every rule (one
    level deep, so the total work stays linear)."""
    full = m.full
    if depth > 0:
        return _sub(_KNOWN, full, 1, counter)
    vs = m.span(vgroup)[0]
    head, tail = full[:vs], full[vs:]
    # a known token is ≥ 16 characters; a short pure word cannot hold any candidate
    if len(head) >= 16:
        head = _sub(_KNOWN, head, 1, counter)
    t = tail.strip(" \t\"'")
    if len(t) >= _MIN_LEN and not (t.isalpha() and len(t) < 16):
        tail = _sub(_FULL, tail, 1, counter)
    return head + tail


_AUTH_SCHEMES = ("bearer", "basic", "token", "negotiate", "ntlm", "apikey", "aws4-hmac-sha256", "hmac",
                 "key", "sso-key", "gensecret", "splunk", "dsn", "jwt")


def _plausible_credential(v: str) -> bool:
    """A single token that could be a bearer / API credential (not a word like 'server' or 'expired')."""
    v = v.strip(".,;")
    if len(v) < 8 or v.startswith(MARKER_PREFIX) or _SHELL_REF.search(v) or v[0] in "<[":
        return False
    if v.isalpha() and (v.islower() or v.isupper() or v.istitle()):
        return False
    return (any(c.isdigit() for c in v) or (any(c.isupper() for c in v) and any(c.islower() for c in v))
            or _known_kind(v) is not None) and not _is_path(v)


def _handle_header(m: _M, depth: int, counter: _Counter) -> str:
    full = m.full
    hname = m.group("h_name").lower()
    vs, ve = m.span("h_val")
    val = full[vs:ve]
    if hname in ("cookie", "set-cookie"):
        stripped = val.rstrip()
        if "=" not in stripped or not _is_secret_value(stripped, STRONG, "cookie"):
            return _fallback(m, "h_val", depth, counter)
        counter.n += 1
        return full[:vs] + marker("cookie") + val[len(stripped):] + full[ve:]
    lead = len(val) - len(val.lstrip())
    words = val.split()
    if not words:
        return _fallback(m, "h_val", depth, counter)
    scheme = words[0].lower()
    if scheme in _AUTH_SCHEMES and len(words) >= 2:
        # credential = the word after the scheme (Digest/AWS4 carry parameters: take the rest of the line)
        cstart = val.index(words[1], lead + len(words[0]))
        if scheme in ("aws4-hmac-sha256", "hmac"):
            cend = len(val.rstrip())
            ok = len(val[cstart:cend]) >= 8
        else:
            cend = cstart + len(words[1])
            cred = words[1].rstrip(".,;")
            cend = cstart + len(cred)
            ok = (_decodes_to_userpass(cred) or looks_random(cred, 8)) if scheme == "basic" else _plausible_credential(cred)
        if not ok:
            return _fallback(m, "h_val", depth, counter)
        cred = val[cstart:cend]
        kind = _known_kind(cred) or ("aws_signature" if scheme == "aws4-hmac-sha256" else scheme)
        if scheme == "basic":
            kind = "basic_auth"
        counter.n += 1
        return full[: vs + cstart] + marker(kind) + full[vs + cend:]
    # no scheme: a bare API key / token header value (a single token).  Headers that only ever carry a
    # credential (X-API-Key, Private-Token, …) take any non-prose value; "authorization: <word>" is
    # often prose ("authorization: server message: …") so it needs a credential-looking value.
    cred = words[0].rstrip(".,;")
    ok = (_plausible_credential(cred) if hname in ("authorization", "proxy-authorization")
          else len(cred) >= 6 and _is_secret_value(cred, STRONG, "api_key"))
    if not ok:
        return _fallback(m, "h_val", depth, counter)
    cstart = val.index(cred)
    kind = _known_kind(cred) or ("api_key" if "key" in hname else "token")
    counter.n += 1
    return full[: vs + cstart] + marker(kind) + full[vs + cstart + len(cred):]


def _handle(rule: _Rule, cand: str, depth: int, counter: _Counter) -> str:
    if rule.typ == "known":
        esc = cand[:2] if cand[:1] == "\\" else ""
        if _check_known(rule.name, cand[len(esc):]):
            counter.n += 1
            return esc + marker(rule.name)
        return cand
    mm = rule.rx.fullmatch(cand)
    if mm is None:  # cannot happen (the set said the rule matches the span); stay safe
        return _sub(_KNOWN, cand, 1, counter)
    m = _M(cand, mm, rule.gidx)
    name = rule.name
    full = cand
    vg = name + "_val"
    if name in ("g", "gw", "f", "q"):
        nm = m.group(name + "_name")
        ns = m.span(name + "_name")[0]
        if ns > 0 and full[ns - 1] == "\\" and nm[:1] in "nrt":
            nm = nm[1:]  # "\ntoken: …" in JSON-encoded logs: the n belongs to the escape
        strength, kind = classify_name(nm)
        if name == "q" and strength is None:
            strength, kind = WEAK, "token"
        _q1, inner, _q2 = _split_quotes(m.group(vg))
        if name in ("g", "gw") and not _q1 and inner.isalpha():
            ne = m.span(name + "_name")[1]
            if ne < len(full) and full[ne] in "\"'":
                strength = None  # '"creds" : configmap …' is prose about an object called creds
        if strength and name in ("g", "gw") and _BLOCK_INDICATOR.search(inner):
            return _Block(full[: m.span(vg)[1]], kind)
        if strength and _is_secret_value(inner, strength, kind):
            if kind in ("secret", "api_key") and "aws" in nm.lower() and "secret" in nm.lower():
                kind = "aws_secret_key"
            return _replace_value(m, vg, kind, counter)
        return _fallback(m, vg, depth, counter)
    if name in ("ej", "ey"):
        strength, kind = classify_name(m.group(name + "_name"))
        _q1, inner, _q2 = _split_quotes(m.group(vg))
        if strength and name == "ey" and _BLOCK_INDICATOR.search(inner):
            return _Block(full[: m.span(vg)[1]], "env")
        if strength and _is_secret_value(inner, strength, kind):
            return _replace_value(m, vg, "env", counter)
        return _fallback(m, vg, depth, counter)
    if name == "h":
        return _handle_header(m, depth, counter)
    if name in ("tp", "es"):
        _q1, inner, _q2 = _split_quotes(m.group(vg))
        if _is_secret_value(inner, STRONG, "password"):
            return _replace_value(m, vg, "password", counter)
        return _fallback(m, vg, depth, counter)
    if name in ("ac", "x", "ka"):
        strength, kind = classify_name(m.group(name + "_name"))
        _q1, inner, _q2 = _split_quotes(m.group(vg))
        if strength and _is_secret_value(inner, strength, kind):
            return _replace_value(m, vg, "aws_secret_key" if "aws_secret" in m.group(name + "_name").lower() else kind,
                                  counter)
        return _fallback(m, vg, depth, counter)
    if name == "dl":
        _q1, inner, _q2 = _split_quotes(m.group(vg))
        if _is_secret_value(inner, STRONG, "password"):
            return _replace_value(m, vg, "docker_password", counter)
        return _fallback(m, vg, depth, counter)
    if name == "cu":
        if _is_secret_value(m.group(vg), STRONG, "password"):
            return _replace_value(m, vg, "password", counter)
        return _fallback(m, vg, depth, counter)
    if name == "u":
        inner = m.group(vg)
        if _is_secret_value(inner, STRONG, "password") or _known_kind(inner):
            return _replace_value(m, vg, "url_password", counter)
        return _fallback(m, vg, depth, counter)
    if name == "bb":
        v = m.group(vg)
        if (len(v) >= 12 and not v.startswith(MARKER_PREFIX)
                and (any(c.isdigit() for c in v) or (any(c.isupper() for c in v) and any(c.islower() for c in v)))
                and not _is_path(v)):
            return _replace_value(m, vg, "bearer", counter)
        return _fallback(m, vg, depth, counter)
    if name == "bs":
        if _decodes_to_userpass(m.group(vg)):
            return _replace_value(m, vg, "basic_auth", counter)
        return _fallback(m, vg, depth, counter)
    return cand


class _Block:
    """A YAML block scalar (``password: |`` + more-indented lines) whose lines must be redacted."""

    __slots__ = ("head", "kind")

    def __init__(self, head: str, kind: str) -> None:
        self.head = head  # candidate text up to and including the indicator
        self.kind = kind


_BLOCK_INDICATOR = re2.compile(r"^[|>][+\-]?[1-9]?[ \t]*$")
_BLOCK_MAX = 64 * 1024


def _block_end(text: str, value_pos: int) -> int:
    """End of the block scalar whose indicator sits on the line containing value_pos."""
    ls = text.rfind("\n", 0, value_pos) + 1
    line = text[ls:value_pos]
    key_indent = len(line) - len(line.lstrip(" \t-"))
    nl = text.find("\n", value_pos)
    if nl == -1:
        return len(text)
    pos = nl + 1
    limit = min(len(text), pos + _BLOCK_MAX)
    while pos < limit:
        nxt = text.find("\n", pos, limit)
        line_end = nxt if nxt != -1 else limit
        ln = text[pos:line_end]
        stripped = ln.lstrip(" \t")
        if stripped and len(ln) - len(stripped) <= key_indent:
            break
        pos = line_end + 1 if nxt != -1 else limit
    return min(pos, len(text))


_MEMO_MAX = 4096


def _sub(matcher: _Matcher, text: str, depth: int, counter: _Counter) -> str:
    out: list[str] = []
    pos = 0
    # ASCII text (the common case) is scanned as bytes: byte offsets are character offsets, and the
    # wrapper skips its per-match offset translation
    subject = text.encode("ascii") if text.isascii() else text
    # identical candidates (a log repeats its lines; hostile input repeats its pattern) are decided once
    memo: dict[str, tuple[Any, int]] = {}
    for cm in matcher.coarse.finditer(subject):
        s, e = cm.span()
        if s < pos:
            continue  # inside a block scalar already replaced
        cand = text[s:e]
        hit = memo.get(cand)
        if hit is not None:
            rep, delta = hit
            counter.n += delta
        else:
            rule = matcher.rule_for(cand)
            if rule is None:
                continue
            before = counter.n
            rep = _handle(rule, cand, depth, counter)
            if len(memo) < _MEMO_MAX:
                memo[cand] = (rep, counter.n - before)
        if isinstance(rep, _Block):
            vend = s + len(rep.head)
            bend = _block_end(text, vend)
            inner_block = text[vend:bend].strip()
            if not inner_block or (inner_block.startswith(MARKER_PREFIX) and "\n" not in inner_block):
                continue  # empty, or already redacted
            body = text[vend:bend]
            first = body.split("\n", 2)[1] if "\n" in body else ""
            indent = first[: len(first) - len(first.lstrip(" \t"))]
            counter.n += 1
            out.append(text[pos:s])
            out.append(rep.head + "\n" + indent + marker(rep.kind) + ("\n" if body.endswith("\n") else ""))
            pos = bend
            continue
        if rep != cand:
            out.append(text[pos:s])
            out.append(rep)
            pos = e
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


# --------------------------------------------------------------------------------------------------
# PEM blocks (stage 1)
# --------------------------------------------------------------------------------------------------
_PEM_BEGIN = re2.compile(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re2.compile(r"^-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
# body of a block whose END is missing (truncated output): base64 lines / RFC 1421 headers separated by
# real or escaped newlines; on one line (flattened) only long base64 words continue the block.
_PEM_BODY = re2.compile(
    r"^(?:[ \t]+[A-Za-z0-9+/=]{20,}|(?:[ \t]*(?:\r?\n|\\r\\n|\\n)[ \t]*)+(?:[A-Za-z0-9+/=]+|[A-Za-z][A-Za-z\-]*:[ \t][^\r\n\\]*))*"
)
_PEM_WINDOW = 64 * 1024


def _redact_pem(text: str, counter: _Counter) -> str:
    if "PRIVATE KEY" not in text:
        return text
    begins = [m.span() for m in _PEM_BEGIN.finditer(text)]
    if not begins:
        return text
    out: list[str] = []
    pos = 0
    for i, (bs, be) in enumerate(begins):
        if bs < pos:
            continue
        limit = min(begins[i + 1][0] if i + 1 < len(begins) else len(text), be + _PEM_WINDOW)
        end = -1
        j = text.find("-----END", be, limit)
        while j != -1:
            mm = _PEM_END.search(text[j: j + 80])
            if mm:
                end = j + mm.end()
                break
            j = text.find("-----END", j + 8, limit)
        if end == -1:
            window = text[be:limit]
            body = _PEM_BODY.search(window)
            bend = body.end() if body else 0
            if bend < len(window) and window[bend] not in "\r\n\\ \t\"',;}":
                # the last "word" continues into non-base64 text (a log line after a truncated key):
                # it was not a body line, give it back
                cut = max(window.rfind("\n", 0, bend), window.rfind("\\n", 0, bend))
                bend = cut if cut > 0 else bend
            end = be + bend
        out.append(text[pos:bs])
        out.append(marker("private_key"))
        counter.n += 1
        pos = end
    out.append(text[pos:])
    return "".join(out)


# --------------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------------
_MIN_LEN = 8


def redact_with_count(text: str) -> tuple[str, int]:
    """Redact and return the number of markers inserted."""
    if not isinstance(text, str) or len(text) < _MIN_LEN:
        return text, 0
    counter = _Counter()
    out = _redact_pem(text, counter)
    out = _sub(_FULL, out, 0, counter)
    return out, counter.n


def redact(text: str) -> str:
    """Replace every credential-shaped value in ``text`` by ``[REDACTED:<kind>]`` (idempotent)."""
    return redact_with_count(text)[0]


# ---------------------------------------------------------------- structure-aware (JSON-like data)
_SECRET_TYPES_PREFIX = ("kubernetes.io/", "bootstrap.kubernetes.io/", "helm.sh/release")


def _is_k8s_secret(d: dict) -> bool:
    kind = d.get("kind")
    if kind == "Secret":
        return True
    if kind is None and ("data" in d or "stringData" in d or "string_data" in d):
        t = d.get("type")
        return isinstance(t, str) and (t == "Opaque" or t.startswith(_SECRET_TYPES_PREFIX))
    return False


def _redact_scalar_under_key(key: str, v: Any) -> tuple[bool, Any]:
    """Apply the key-name rule to a scalar value; (handled, new value)."""
    strength, kind = classify_name(key)
    if not strength:
        return False, v
    if isinstance(v, bool) or v is None:
        return False, v
    if isinstance(v, (int, float)):
        if strength == STRONG:
            return True, marker(kind)
        return False, v
    if isinstance(v, str):
        if _is_secret_value(v, strength, kind):
            k = _known_kind(v) or kind
            if "aws" in key.lower() and "secret" in key.lower():
                k = "aws_secret_key"
            return True, marker(k)
    return False, v


def _redact_all_leaves(obj: Any, kind: str) -> Any:
    if isinstance(obj, dict):
        return {k: _redact_all_leaves(v, kind) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_redact_all_leaves(v, kind) for v in obj]
    if obj is None or isinstance(obj, bool):
        return obj
    return marker(kind)


def _redact_value(obj: Any, counter: list[int]) -> Any:
    if isinstance(obj, str):
        out, n = redact_with_count(obj)
        counter[0] += n
        return out
    if obj is None or isinstance(obj, (bool, int, float)):
        return obj
    if isinstance(obj, dict):
        secret_obj = _is_k8s_secret(obj)
        env_name = None
        for nk in ("name", "key"):
            if isinstance(obj.get(nk), str) and "value" in obj:
                env_name = obj[nk]
                break
        new: dict = {}
        for k, v in obj.items():
            nk = k
            if isinstance(k, str) and len(k) >= _MIN_LEN:
                nk, n = redact_with_count(k)
                counter[0] += n
            if secret_obj and k in ("data", "stringData", "string_data") and isinstance(v, dict):
                new[nk] = _redact_all_leaves(v, "secret_data")
                counter[0] += len(v)
                continue
            if env_name is not None and k == "value" and not isinstance(v, (dict, list)):
                strength, kind = classify_name(env_name)
                if strength and v is not None and not isinstance(v, bool) and (
                    isinstance(v, (int, float)) and strength == STRONG
                    or isinstance(v, str) and _is_secret_value(v, strength, kind)
                ):
                    new[nk] = marker("env")
                    counter[0] += 1
                    continue
            if isinstance(k, str) and not isinstance(v, (dict, list)):
                handled, nv = _redact_scalar_under_key(k, v)
                if handled:
                    new[nk] = nv
                    counter[0] += 1
                    continue
            new[nk] = _redact_value(v, counter)
        return new
    if isinstance(obj, (list, tuple)):
        return [_redact_value(v, counter) for v in obj]
    return obj


def redact_value_with_count(obj: Any) -> tuple[Any, int]:
    counter = [0]
    out = _redact_value(obj, counter)
    return out, counter[0]


def redact_value(obj: Any) -> Any:
    """Deep copy of JSON-like data with every string redacted plus structure-aware rules:

    * ``{"name": <secret-like>, "value": …}`` (env entries, annotations) → value ``[REDACTED:env]``
    * a secret-like key (password, clientSecret, accessToken, apiKey, credentials, auth, …) holding a
      scalar → ``[REDACTED:<kind>]``; ``tokenType: "Bearer"``, ``secretName``, ``expiresIn`` stay.
    * Kubernetes Secret ``data`` / ``stringData`` → every value redacted (keys kept).
    * numbers / bools / None unchanged unless they sit under a strong secret key.
    """
    return redact_value_with_count(obj)[0]


@functools.lru_cache(maxsize=1)
def rule_summary() -> dict[str, int]:
    return {"known_formats": len(KNOWN_FORMATS), "context_rules": len(_CONTEXT_RULES)}
