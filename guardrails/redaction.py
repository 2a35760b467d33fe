"""Credential redaction for untrusted evidence (logs, events, specs, commands, annotations, API bodies).

Design
------
* Every regex runs on google-re2 (``import re2``): matching is linear in the input, so hostile input
  cannot make the redactor backtrack.  re2 has no look-around and no back-references, so "is this
  really a secret?" decisions that would need them are made in small Python callbacks that only see
  the (already bounded) candidate match.
* Four stages, each linear:
    1. PEM private-key blocks (``-----BEGIN … PRIVATE KEY-----`` … ``-----END …-----``): found with
       ``str.find`` inside windows bounded by the next BEGIN and 64 KiB, so many unterminated headers
       cannot make the scan quadratic (a run of identical blocks is decided once).
    2. Command rules (``docker login -p``, ``mysql -pX``, ``redis-cli -a``, ``sshpass -p``,
       ``echo X | … --password-stdin``), each as its own pass over the lines holding its command word:
       they skip an unbounded part of the line before their flag, and inside one alternation that made
       every later search read to the end of the line (quadratic).
    3. One combined re2 alternation holding the other *context* rules (``key=value`` with a secret-like
       key, ``--password X`` flags, ``- name: DB_PASSWORD / value: …`` env entries, YAML block scalars,
       Authorization / Cookie / API-key headers, URL userinfo, query parameters, ``curl -u user:pass``,
       XML elements, bare ``Bearer``/``Basic`` credentials) and the *known token formats* (AWS, GitHub,
       GitLab, Slack, OpenAI, Anthropic, Hugging Face, NGC ``nvapi-``, Stripe, Google, Azure, JWT, …).
       It is compiled without captures (named groups made non-capturing: re2 runs its NFA over every
       match of a regex with groups) and searched match by match with re2's low-level ``RE2.Match``; a
       ``re2.Set`` names the rule of each candidate (a bare token whose first characters only one known
       format can start with needs none) and only that rule's regex extracts groups from the candidate;
       identical candidates are decided once per call (memo).  Text that repeats a unit is decided once
       per unit when the patterns' structure proves that the searches would see the same thing
       (``_Lookahead``).  No pattern keeps a counter that restarts inside long tokens (the DFA stays
       small: one 2 MiB random token is scanned at ~80 MB/s, not 3).
    4. A candidate that a callback rejects (``token: expired``, ``--token-file /x``) is not dropped
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
import re
from collections import Counter
from typing import Any

import re2

from .names import _KEY_STRONG_PREV, STRONG, WEAK, classify_name

MARKER_PREFIX = "[REDACTED:"


def marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


# DFA budget of the combined alternations.  re2 builds its DFA lazily and only allocates what an input
# needs (a few MiB for logs); the budget is the ceiling before re2 falls back to its ~50x slower NFA.
# The patterns are written so that the DFA stays small on any input (no counted repetition that many
# overlapping candidates can be inside at once, see _NAME below), and the budget leaves headroom.
_MAX_MEM = 256 << 20


def _opts(max_mem: int = _MAX_MEM) -> re2.Options:
    o = re2.Options()
    o.max_mem = max_mem
    return o


_GROUP_NAME = re.compile(r"\(\?P<\w+>")


def _no_names(pattern: str) -> str:
    """The pattern with its named groups made non-capturing.  ``Options.never_capture`` does not apply to
    *named* groups in re2, and a regex with capture groups makes re2 run its NFA (or BitState) over every
    match after the DFA found it: 2-4 µs per match, ~10 MB/s over a long one."""
    return _GROUP_NAME.sub("(?:", pattern)


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
# A key / flag / element name is the whole run of name characters before the secret word (the rules
# require a non-name character before it).  It is written unbounded, not ``{0,40}``: a counted
# repetition that restarts after every separator keeps one DFA state per combination of the counters
# in flight, and one long token over an alphabet like [A-Za-z0-9+/._-] then exhausts any DFA budget
# (re2 falls back to its NFA: ~1 MB/s).  Names longer than _NAME_MAX characters are new candidates; the
# text before their value is scanned for known token formats (as the scan did when they were not
# candidates), see _long_name.
_NAME = _NAMEC + r"*"
_NAME_MAX = 40
_SCHEME_MAX = 21
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
    ("x", r"<(?P<x_name>" + _NAME + _SW + r")>(?P<x_val>[^<\n]+)</"),
    # key/name + value attribute pairs: <add key="ApiKey" value="SECRET"/>
    ("ka", r"(?P<ka_pre>" + _PRE[3:-1] + r")(?i:key|name)[ \t]*=[ \t]*[\"'](?P<ka_name>[A-Za-z0-9_.\-]{1,100})[\"'][ \t]+(?i:value)[ \t]*=[ \t]*"
           r"(?P<ka_val>" + _VALUE + r")"),
    # curl -u user:pass / --user / --proxy-user
    ("cu", r"(?P<cu_pre>^|[\s\"'])(?:-u|--user|--proxy-user)[ \t]+[\"']?(?P<cu_user>[^\s:\"']+):(?P<cu_val>[^\s\"']+)"),
    # generic key = value / key: value with a secret-like key
    ("g", r"(?P<g_pre>" + _PRE[3:-1] + r")(?P<g_name>" + _NAME + _SW + r")"
          r"(?:\\?[\"'])?\]?[ \t]*(?::=|=>|[:=])[ \t]*(?P<g_val>" + _VALUE + r")"),
    # the same with a weak word (key / auth / signature): value of 8+ characters
    ("gw", r"(?P<gw_pre>" + _PRE[3:-1] + r")(?P<gw_name>" + _NAME + _SW_WEAK + r")"
           r"(?:\\?[\"'])?[ \t]*(?::=|=>|[:=])[ \t]*(?P<gw_val>" + _VALUE_LONG + r")"),
    # --password X / -token X (space separated flag)
    ("f", r"(?P<f_pre>^|[\s\"'=(])(?P<f_name>-" + _NAME + _SW + r")[ \t]+(?P<f_val>"
          + _VALUE + r")"),
    # URL userinfo scheme://user:pass@host
    # (RFC 3986 userinfo may hold sub-delims such as ' ( ) ; , so only /?#@ " < > [ ] \ and space end it)
    # The scheme is letters/digits with at most three + . - separators, not "up to 21 characters": a
    # scheme can start after every separator, and 21-character counters started there multiply the DFA
    # states (see _NAME); an unbounded [A-Za-z0-9+.-]* would keep every search reading to the end of a
    # long dotted token (quadratic).  The text before the userinfo of a scheme longer than _SCHEME_MAX is
    # scanned for known formats (see _long_name).
    ("u", r"\b[A-Za-z][A-Za-z0-9]*(?:[+.\-][A-Za-z0-9]*){0,3}://"
          r"(?P<u_user>[^\s/?#@:\"'<>\[\]\\]*):(?P<u_val>[^\s/?#@\"<>\[\]\\]+)@"),
    # bare Bearer / Basic credentials
    ("bb", r"\b(?i:bearer)[ \t]+(?P<bb_val>[A-Za-z0-9._~+/\-]{8,}=*)"),
    ("bs", r"\b(?i:basic)[ \t]+(?P<bs_val>[A-Za-z0-9+/]{6,}={0,2})"),
]


_CHECKED_KINDS = frozenset({"openai_key", "private_key", "azure_client_secret", "twilio_key"})
_UNANCHORED = re2._Anchor.UNANCHORED
_ANCHOR_START = re2._Anchor.ANCHOR_START
_ANCHOR_BOTH = re2._Anchor.ANCHOR_BOTH
_LONG_CAND = 2048  # candidates longer than this get their groups without re2's NFA (see _Rule.spans)


class _Rule:
    __slots__ = ("typ", "name", "pattern", "rx", "gidx", "ngroups", "split", "marker", "check")

    def __init__(self, typ: str, name: str, pattern: str) -> None:
        self.typ = typ          # "ctx" (a callback decides) or "known" (a token format)
        self.name = name        # context rule name, or the kind of a known format
        self.pattern = pattern
        self.marker = marker(name)
        self.check = typ == "known" and name in _CHECKED_KINDS  # _check_known has a test for it
        self.rx = re2.compile(pattern, _opts(64 << 20)) if typ == "ctx" else None
        self.gidx = dict(self.rx.groupindex) if self.rx is not None else {}
        self.ngroups = self.rx.groups if self.rx is not None else 0
        self.split: Any = None  # (head, value, value group index) or False; built on first long candidate

    def _split(self) -> Any:
        """For a rule whose value group ends the pattern: the part before it (with its groups) and the value
        (without groups), to split a long candidate with two DFA passes instead of one NFA pass."""
        if self.split is None:
            self.split = False
            pattern, vg = self.pattern, f"(?P<{self.name}_val>"
            if vg in pattern and pattern.endswith(")"):
                i = pattern.index(vg)
                try:
                    val = re2.compile(pattern[i + len(vg):-1], _opts(64 << 20))
                    head = re2.compile(pattern[:i], _opts(64 << 20))
                except re2.error:
                    return self.split
                if val.groups == 0 and all(self.gidx.get(g) == j for g, j in head.groupindex.items()):
                    self.split = (head, val, self.gidx[f"{self.name}_val"])
        return self.split

    def spans(self, cand: str) -> "list[tuple[int, int]] | None":
        """Spans of every group of this rule's full match of ``cand`` (positions in ``cand``)."""
        if not cand.isascii():
            mm = self.rx.fullmatch(cand)
            return None if mm is None else [mm.span(i) for i in range(self.ngroups + 1)]
        b = cand.encode("ascii")
        n = len(b)
        split = self._split() if n > _LONG_CAND else False
        if split:
            # leftmost-first takes the first completion of the head (in priority order) after which
            # the value can match the rest: when the head's own first completion leaves a rest the
            # value matches entirely, that is the split, and no NFA runs over the long value
            head, val, vidx = split
            hs = head._regexp.Match(_ANCHOR_START, b, 0, n)
            if hs[0][0] >= 0:
                he = hs[0][1]
                if val._regexp.Match(_ANCHOR_BOTH, b, he, n)[0][0] >= 0:
                    out = [(0, n)] + hs[1:] + [(-1, -1)] * (self.ngroups + 1 - len(hs))
                    out[vidx] = (he, n)
                    return out
        sp = self.rx._regexp.Match(_ANCHOR_BOTH, b, 0, n)
        return sp if sp[0][0] >= 0 else None


@functools.lru_cache(maxsize=None)
def _fullmatch_set(patterns: tuple[str, ...]) -> Any:
    """re2.Set (anchored both ends) of the patterns, as its low-level Match: bytes -> [indices]."""
    o = _opts()
    o.never_capture = True
    st = re2.Set.FullMatchSet(o)
    for p in patterns:
        st.Add(_no_names(p))
    st.Compile()
    return st._set.Match


class _Matcher:
    """Two-phase matching, linear and cheap per candidate.

    1. ``coarse``: the alternation of every rule with its groups made non-capturing: one DFA pass over
       the text, found match by match with re2's low-level ``RE2.Match`` (the Python ``finditer`` wrapper
       costs ~1 µs per match on its own).
    2. for each candidate span a ``FullMatchSet`` names the rule (the lowest index matching the span
       exactly is the alternative that leftmost-first semantics chose), then only that rule's own regex
       runs on the (short) span to extract its groups.
    """

    def __init__(self, ctx: list[tuple[str, str]], known: list[tuple[str, str]]) -> None:
        self.rules = [_Rule("ctx", n, p) for n, p in ctx] + [_Rule("known", k, p) for k, p in known]
        self.patterns = [p for _n, p in ctx] + [p for _k, p in known]
        o = _opts()
        o.never_capture = True
        self.coarse = re2.compile("|".join(f"(?:{_no_names(p)})" for p in self.patterns), o)
        self.search = self.coarse._regexp.Match  # (anchor, bytes, pos, endpos) -> [(start, end)]
        # which rule matched a candidate: the lowest index among the patterns matching it exactly.  Two
        # sets (context rules, then known formats): one set of both costs 3-4 µs per random-looking
        # token (its DFA tracks both families at once), the two ~0.4 µs each.
        self.nctx = len(ctx)
        self.ctx_set = self._set([p for _n, p in ctx]) if ctx else None
        self.known_set = self._set([p for _k, p in known]) if known else None
        self.lookahead = _Lookahead(self.patterns)
        self.by_prefix: dict[bytes, "_Rule | bool"] = {}

    @staticmethod
    def _set(patterns: list[str]) -> Any:
        return _fullmatch_set(tuple(patterns))

    def rule_for(self, cand: bytes) -> "_Rule | None":
        """The rule that matched the (UTF-8 encoded) candidate span."""
        if cand.translate(None, _PLAIN):
            if self.ctx_set is not None:
                idx = self.ctx_set(cand)
                if idx:
                    return self.rules[min(idx)]
        else:
            # a bare token: only known formats can match it; when a single one can start with its first
            # characters, that is the one the scan matched (no set to run)
            key = cand[:6] if cand[:1] == b"\\" else cand[:4]
            rule = self.by_prefix.get(key)
            if rule is None and len(self.by_prefix) < _PREFIX_CACHE:
                rule = self.by_prefix[key] = self._unique_known(key)
            if rule:
                return rule
        idx = self.known_set(cand) if self.known_set is not None else None
        return self.rules[self.nctx + min(idx)] if idx else None

    def _unique_known(self, prefix: bytes) -> "_Rule | bool":
        """The only known format that can match a text starting with ``prefix`` (False if not one)."""
        tree = self.lookahead.build()
        if tree is None:
            return False
        text = prefix.decode("ascii")
        found = [i for i, t in enumerate(tree[1][self.nctx:]) if len(text) in _advance(t, text, frozenset({0}))]
        return self.rules[self.nctx + found[0]] if len(found) == 1 else False


# --------------------------------------------------------------------------------------------------
# Periodic input.  Hostile input repeats a short unit ('token: ' × 100 000) so that every unit is one
# match; re2's per-call cost (~0.6 µs) alone then caps the scan near 15 MB/s.  When the text after a
# match is an exact repetition of the unit just scanned (from the search start to the match end), the
# next searches would find the same match shifted by one period, as long as nothing a search looks at
# differs: its one character of context before the search start (for \b), and every character that
# some match attempt started before the match could still consume.  _Lookahead bounds that second
# distance for a given unit from the patterns' structure: a run of one character class cannot be
# longer than the longest run of that class in the periodic text, and a branch that needs a character
# absent from the unit ends there.  Copies whose search window lies inside the repetition are then
# decided at once (same replacement, same count) without searching; the last ones are scanned as
# usual.  Results are identical to scanning every copy (tests/guardrails/test_linearity.py checks
# this on generated periodic inputs).
# --------------------------------------------------------------------------------------------------
try:
    from re import _constants as _sre_c, _parser as _sre_parse  # Python >= 3.11
except ImportError:  # pragma: no cover
    import sre_constants as _sre_c  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

_INF = 1 << 40
# units made only of these characters are analysed (Python's and re2's classes agree on them: \s is
# [ \t\n\r] here, \w and \d are ASCII, case folding is ASCII)
_SAFE = frozenset(chr(c) for c in range(32, 127)) | frozenset("\t\n\r")
_CATEGORY = {
    _sre_c.CATEGORY_DIGIT: frozenset("0123456789"),
    _sre_c.CATEGORY_SPACE: frozenset(" \t\n\r"),
    _sre_c.CATEGORY_WORD: frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"),
}
_CATEGORY.update({
    _sre_c.CATEGORY_NOT_DIGIT: _SAFE - _CATEGORY[_sre_c.CATEGORY_DIGIT],
    _sre_c.CATEGORY_NOT_SPACE: _SAFE - _CATEGORY[_sre_c.CATEGORY_SPACE],
    _sre_c.CATEGORY_NOT_WORD: _SAFE - _CATEGORY[_sre_c.CATEGORY_WORD],
})
# every context rule needs one of these characters (a separator, a space, a tag): a candidate made of
# other _SAFE characters only (a bare token) can only be a known format, and the context rules are not
# even tried on it (tests/guardrails/test_linearity.py proves it against the patterns with _possible)
_CTX_CHARS = "=: \t<"
_PLAIN = bytes(sorted(ord(c) for c in _SAFE - set(_CTX_CHARS)))
_PERIOD_MAX = 1024        # longest unit considered
_PERIOD_MIN_SPAN = 16384  # shortest repetition worth an analysis (0.2-1 ms for a new unit)


class _Unsupported(Exception):
    pass


def _fold(chars: set[str], icase: bool) -> set[str]:
    return chars | {c.swapcase() for c in chars} if icase else chars


def _ir(sub: Any, icase: bool) -> tuple:
    """Pattern tree (re's parser) -> ('c', chars) | ('s', items) | ('a', items) | ('r', lo, hi, item) | ('e',)
    (zero-width) | ('n',) (^: cannot match)."""
    items = [_ir_node(op, av, icase) for op, av in sub]
    return items[0] if len(items) == 1 else ("s", tuple(items))


def _ir_node(op: Any, av: Any, icase: bool) -> tuple:
    c = _sre_c
    if op is c.LITERAL:
        return ("c", frozenset(_fold({chr(av)}, icase) & _SAFE))
    if op is c.NOT_LITERAL:
        return ("c", frozenset(_SAFE - _fold({chr(av)}, icase)))
    if op is c.ANY:
        return ("c", frozenset(_SAFE - {"\n"}))
    if op is c.IN:
        neg, pos = False, set()
        for iop, iav in av:
            if iop is c.NEGATE:
                neg = True
            elif iop is c.LITERAL:
                pos.add(chr(iav))
            elif iop is c.RANGE:
                pos.update(chr(x) for x in range(iav[0], min(iav[1], 127) + 1))
            elif iop is c.CATEGORY and iav in _CATEGORY:
                pos |= _CATEGORY[iav]
            else:
                raise _Unsupported(iop)
        pos = _fold(pos, icase)
        return ("c", frozenset(_SAFE - pos if neg else pos & _SAFE))
    if op is c.AT:
        # ^ only matches at offset 0, never inside a repetition that starts after it
        return ("n",) if av in (c.AT_BEGINNING, c.AT_BEGINNING_STRING) else ("e",)
    if op is c.BRANCH:
        return ("a", tuple(_ir(b, icase) for b in av[1]))
    if op is c.SUBPATTERN:
        _group, add, rem, p = av
        ic = (icase or bool(add & c.SRE_FLAG_IGNORECASE)) and not (rem & c.SRE_FLAG_IGNORECASE)
        return _ir(p, ic)
    if op in (c.MAX_REPEAT, c.MIN_REPEAT):
        lo, hi, p = av
        return ("r", lo, None if hi == c.MAXREPEAT else hi, _ir(p, icase))
    raise _Unsupported(op)


class _Lookahead:
    """Upper bound on how far past its start any match attempt of the patterns can get inside a text that
    repeats a unit, or None when no small bound is known (see the comment above)."""

    def __init__(self, patterns: list[str]) -> None:
        self.patterns = patterns
        self.tree: tuple | None = None  # built on first use
        self.cache: dict[str, int | None] = {}

    def build(self) -> tuple | None:
        """The alternation of the patterns as one tree (None if a pattern uses an unsupported construct)."""
        if self.tree is None:
            try:
                self.tree = ("a", tuple(_ir(_sre_parse.parse(p), False) for p in self.patterns))
            except Exception:  # noqa: BLE001 - any doubt disables what depends on the tree
                self.tree = ("x",)
        return None if self.tree == ("x",) else self.tree

    def bound(self, unit: str) -> int | None:
        hit = self.cache.get(unit, False)
        if hit is not False:
            return hit  # type: ignore[return-value]
        res = None
        if set(unit) <= _SAFE:
            tree = self.build()
            if tree is not None:
                vp = _Eval(unit).ev(tree)[1]
                res = vp if vp < _INF else None
        if len(self.cache) >= 256:
            self.cache.clear()
        self.cache[unit] = res
        return res


class _Eval:
    """(longest full match, longest viable prefix) of a pattern tree over the periodic text unit*∞."""

    __slots__ = ("chars", "double", "runs")

    def __init__(self, unit: str) -> None:
        self.chars = frozenset(unit)
        self.double = unit + unit
        self.runs: dict[frozenset, int] = {}

    def run(self, cls: frozenset) -> int:
        """Longest run of characters of ``cls`` in the periodic text."""
        r = self.runs.get(cls)
        if r is None:
            if self.chars <= cls:
                r = _INF
            else:
                table = {ord(ch): ("x" if ch in cls else " ") for ch in self.chars}
                r = max(map(len, self.double.translate(table).split()), default=0)
            self.runs[cls] = r
        return r

    def ev(self, node: tuple) -> tuple[int | None, int]:
        kind = node[0]
        if kind == "c":
            return (None, 0) if node[1].isdisjoint(self.chars) else (1, 1)
        if kind == "e":
            return 0, 0
        if kind == "n":
            return None, 0
        if kind == "s":
            acc, vp = 0, 0
            for item in node[1]:
                ml, v = self.ev(item)
                vp = max(vp, acc + v)
                if ml is None:
                    return None, min(vp, _INF)
                acc = min(acc + ml, _INF)
            return acc, max(vp, acc)
        if kind == "a":
            best_ml, best_vp = None, 0
            for item in node[1]:
                ml, v = self.ev(item)
                if ml is not None and (best_ml is None or ml > best_ml):
                    best_ml = ml
                best_vp = max(best_vp, v)
            return best_ml, best_vp
        if kind == "r":
            _k, lo, hi, item = node
            # a repetition of single characters: one run of the union of their classes, possibly ended
            # by a branch that starts but cannot complete
            branches = item[1] if item[0] == "a" else (item,)
            cls: set[str] = set()
            partial = 0
            simple = True
            for b in branches:
                if b[0] == "c":
                    cls |= b[1]
                    continue
                ml, v = self.ev(b)
                if ml is None:
                    partial = max(partial, v)
                elif ml > 0:
                    simple = False
                    break
            if simple:
                run = self.run(frozenset(cls)) if not self.chars.isdisjoint(cls) else 0
                cap = run if hi is None else min(run, hi)
                return (cap if cap >= lo else None), min(cap + partial, _INF)
            ml, v = self.ev(item)
            if ml is None or ml == 0:
                return (ml if lo > 0 else 0), v
            if hi is None:
                return _INF, _INF
            return min(hi * ml, _INF), min((hi - 1) * ml + v, _INF)
        return _INF, _INF  # unknown node: no bound


def _possible(node: tuple, alphabet: frozenset) -> bool:
    """Can the pattern tree match some text made only of ``alphabet`` characters?"""
    kind = node[0]
    if kind == "c":
        return not node[1].isdisjoint(alphabet)
    if kind == "s":
        return all(_possible(x, alphabet) for x in node[1])
    if kind == "a":
        return any(_possible(x, alphabet) for x in node[1])
    if kind == "r":
        return node[1] == 0 or _possible(node[3], alphabet)
    return True  # zero-width assertions (^ too: a candidate starts a text), unknown nodes


_PREFIX_CACHE = 1024  # distinct token prefixes analysed per process (then the known-format set decides)


def _advance(node: tuple, text: str, at: frozenset) -> frozenset:
    """Positions in ``text`` (len(text) = consumed all of it, anything may follow) that a match of the tree
    can reach when it starts at one of the positions ``at``.  Conservative: assertions always hold."""
    n = len(text)
    kind = node[0]
    if kind == "c":
        cls = node[1]
        out = {i + 1 for i in at if i < n and text[i] in cls}
        if n in at and cls:
            out.add(n)
        return frozenset(out)
    if kind == "s":
        for item in node[1]:
            if not at:
                break
            at = _advance(item, text, at)
        return at
    if kind == "a":
        out: frozenset = frozenset()
        for item in node[1]:
            out |= _advance(item, text, at)
        return out
    if kind == "r":
        _k, lo, hi, item = node
        for _ in range(lo):
            nxt = _advance(item, text, at)
            if nxt == at or not nxt:
                at = nxt
                break
            at = nxt
        acc, cur, more = at, at, (hi - lo if hi is not None else n + 1)
        while cur and more > 0:
            cur = _advance(item, text, cur) - acc
            acc |= cur
            more -= 1
        return acc
    return at  # zero-width (assertions, ^) or unknown: no constraint


def _copies(text: str, unit: str, start: int) -> int:
    """Number of consecutive copies of ``unit`` in ``text`` from ``start`` (C-speed comparisons)."""
    p = len(unit)
    room = (len(text) - start) // p
    n, step = 0, 1
    while step:
        if n + step <= room and text.startswith(unit * step, start + n * p):
            n += step
            step *= 2
        else:
            step //= 2
    return n


# Command rules (docker login -p, mysql -p, redis-cli -a, sshpass -p, echo … | --password-stdin) skip an
# unbounded stretch of the line before their flag ([^\n|;&]*?).  In the single alternation a command word
# without its flag kept every later search reading to the end of the line ("mysql ghp_… " repeated,
# "redis-cli password=x " repeated: quadratic).  Each runs as its own pass before the others (only when
# its literal occurs): alone, a search that reads to the end of the line finds no match there at all.
# (rule, pattern, literals one of which it needs, the part of the pattern a match starts with)
_COMMAND_RULES: list[tuple[str, str, tuple[str, ...], str]] = [
    ("dl", dict(_CONTEXT_RULES)["dl"], ("login",),
     r"\b(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|helm[ \t]+registry)[ \t]+(?:auth[ \t]+)?login\b"),
    ("tp", r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?[ \t]-p(?P<tp_val>" + _VALUE + r")",
     ("mysql", "mariadb"), r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b"),
    ("tp", r"\b(?:redis-cli|keydb-cli)\b[^\n|;&]*?[ \t]-a[ \t]+(?P<tp_val>" + _VALUE + r")", ("-cli",),
     r"\b(?:redis-cli|keydb-cli)\b"),
    ("tp", r"\bsshpass[ \t]+-p[ \t]*(?P<tp_val>" + _VALUE + r")", ("sshpass",), r"\bsshpass[ \t]+-p"),
    ("es", dict(_CONTEXT_RULES)["es"], ("--password-stdin",), r"\becho[ \t]"),
]
_COMMANDS = [(_Matcher([(n, p)], []), lits, re2.compile(word)._regexp.Match)
             for n, p, lits, word in _COMMAND_RULES]
_CMD_LITERALS = tuple(lit for _n, _p, lits, _w in _COMMAND_RULES for lit in lits)
_CMD_ANY_WORD = re2.compile("|".join(f"(?:{w})" for _n, _p, _l, w in _COMMAND_RULES))._regexp.Match
_MAIN_RULES = [(n, p) for n, p in _CONTEXT_RULES if n not in ("dl", "tp", "es")]
# the rules after the (unbounded-name) generic and URL rules: what can match where one of those was
# declined (see _RESCAN)
_TAIL_RULES = [(n, p) for n, p in _CONTEXT_RULES if n in ("bb", "bs")]
# Two formats start with a counted run after any word boundary (Terraform: 14 characters and
# ".atlasv1."; Azure: 3 characters, a digit and "Q~"): inside long tokens their counters multiply the DFA
# states of everything else (2.5x slower scans of random base64).  A text without their literal cannot
# hold them: it is scanned by the same alternations without them (the same results: an alternative that
# matches nowhere changes no leftmost-first choice).  _Counter holds the matchers of a call.
_GATED = {"terraform_token": ".atlasv1.", "azure_client_secret": "Q~"}
_GATED_LITERALS = tuple(_GATED.values())
_LITE_FORMATS = [(k, p) for k, p in KNOWN_FORMATS if k not in _GATED]
_FULL_LITE = _Matcher(_MAIN_RULES, _LITE_FORMATS)
_KNOWN_LITE = _Matcher([], _LITE_FORMATS)
_TAIL_LITE = _Matcher(_TAIL_RULES, _LITE_FORMATS)
# one pass over a long text finds whether it holds a command word or a gated literal at all
_GATE_LITERALS = _CMD_LITERALS + _GATED_LITERALS
_GATE = re2.compile("|".join([f"(?:{w})" for _n, _p, _l, w in _COMMAND_RULES]
                             + [re2.escape(lit) for lit in _GATED_LITERALS]))._regexp.Match


@functools.lru_cache(maxsize=1)
def _full_matchers() -> tuple[_Matcher, _Matcher, _Matcher]:
    """The main, known-format and tail matchers with every format, built on the first text that needs them
    (``redaction._FULL`` / ``_KNOWN`` / ``_TAIL`` name them too)."""
    return (_Matcher(_MAIN_RULES, KNOWN_FORMATS), _Matcher([], KNOWN_FORMATS),
            _Matcher(_TAIL_RULES, KNOWN_FORMATS))


def __getattr__(name: str) -> Any:
    if name in ("_FULL", "_KNOWN", "_TAIL"):
        return _full_matchers()[("_FULL", "_KNOWN", "_TAIL").index(name)]
    raise AttributeError(name)


# the kind of a value caught by a context rule: the first known format found anywhere in it
_KNOWN_SET = re2.Set.SearchSet(_opts())
for _k, _p in KNOWN_FORMATS:
    _KNOWN_SET.Add(_p)
_KNOWN_SET.Compile()

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


_ENTROPY_SAMPLE = 4096


def _entropy(s: str) -> float:
    """Shannon entropy (bits per character).  A value longer than 4 KiB is measured on 4 Ki characters
    taken at a regular stride over its whole length (C-speed slicing and counting: the cost of a 10 MB
    value is that of a 4 KiB one)."""
    n = len(s)
    if not n:
        return 0.0
    if n > _ENTROPY_SAMPLE:
        s = s[:: -(-n // _ENTROPY_SAMPLE)]
        n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _has_digit(v: str) -> bool:
    if v.isascii():
        return any(d in v for d in "0123456789")
    return any(c.isdigit() for c in v)


def _has_upper(v: str) -> bool:
    return v != v.lower() if v.isascii() else any(c.isupper() for c in v)


def _has_lower(v: str) -> bool:
    return v != v.upper() if v.isascii() else any(c.islower() for c in v)


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
    # ASCII from here on: str methods instead of loops over the characters
    has_digit = _has_digit(v)
    has_upper = _has_upper(v)
    has_lower = _has_lower(v)
    if not has_digit and not (has_upper and has_lower and len(v) >= 24):
        return False
    if not (has_upper or has_lower):
        return False
    # dns-ish names with hyphens and words (train-7d9f8c6b5-x2x9q) are not secrets
    if "-" in v and _DNS_NAME.search(v) and max(map(len, v.split("-"))) < 16:
        return False
    return _entropy(v) >= 3.2


def _is_path(v: str) -> bool:
    if not _PATHLIKE.search(v):
        return False
    for seg in set(v.split("/")):
        if len(seg) >= 12 and looks_random(seg, 12):
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


def _is_secret_value(v: str, strength: str | None, kind: str, structured: bool = False) -> bool:
    """Is this value (already unquoted) a credential, given how strongly its label says so?

    ``structured``: the value is a whole JSON field under a secret-like key (not a word in free text), so a
    leading ``--`` is part of the value, not the next command-line flag."""
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
    if not structured and v.startswith("--") and len(v) > 2 and v[2].isalpha():
        return False  # next flag, not a value: "--password --verbose"
    if "/" in v and _is_path(v):
        return False
    return True


def _known_kind(value: str) -> str | None:
    """Kind of a known token format fully or partly present in value (first match)."""
    if len(value) < 8:
        return None
    idx = _KNOWN_SET.Match(value)  # one pass: every format found anywhere; the first in list order wins
    return KNOWN_FORMATS[min(idx)][0] if idx else None


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
        return _has_digit(body) and _has_upper(body) and _has_lower(body) and _entropy(body) >= 3.5
    if kind == "private_key" and token.startswith("LS0tLS1CRUdJTi"):
        head = token[: (min(len(token), 120) // 4) * 4]
        try:
            return b"PRIVATE KEY" in base64.b64decode(head)
        except (binascii.Error, ValueError):
            return False
    if kind == "azure_client_secret":
        return _has_digit(token) and _entropy(token) >= 3.5
    if kind == "twilio_key":
        return _entropy(token) >= 3.0
    return True


# --------------------------------------------------------------------------------------------------
# The matcher
# --------------------------------------------------------------------------------------------------
class _Counter:
    """Markers inserted so far, and the matchers of this call (see _LITE)."""

    __slots__ = ("n", "full", "known", "tail")

    def __init__(self, lite: bool = False) -> None:
        self.n = 0
        self.full, self.known, self.tail = (_FULL_LITE, _KNOWN_LITE, _TAIL_LITE) if lite else _full_matchers()


class _M:
    """Groups of one rule's match on a candidate span (positions relative to the span)."""

    __slots__ = ("full", "sp", "gidx")

    def __init__(self, full: str, sp: "list[tuple[int, int]]", gidx: dict[str, int]) -> None:
        self.full = full
        self.sp = sp
        self.gidx = gidx

    def group(self, name: str) -> str:
        a, b = self.sp[self.gidx[name]]
        return self.full[a:b] if a >= 0 else ""

    def span(self, name: str) -> tuple[int, int]:
        return self.sp[self.gidx[name]]


def _replace_value(m: _M, vgroup: str, kind: str, counter: _Counter, long_head: bool = False) -> str:
    full = m.full
    vs, ve = m.span(vgroup)
    q1, inner, q2 = _split_quotes(full[vs:ve])
    k = _known_kind(inner) or kind
    counter.n += 1
    head = _sub(counter.known, full[:vs], 1, counter) if long_head else full[:vs]
    return head + q1 + marker(k) + q2 + full[ve:]


# A candidate the rules did not produce while names and schemes were bounded, and whose value is not a
# secret: it is not a candidate at all (as before), the scan goes on inside it (see _sub).  Its span is
# not consumed as a rejected candidate's is: "<long name>_token: token: hunter2" must still find hunter2.
class _Rescan:
    __slots__ = ()


_RESCAN = _Rescan()


def _long_name(m: _M, name: str) -> bool:
    """A name longer than the rules once allowed (names and schemes used to be bounded: a longer one was
    no candidate, and the scan looked inside it for known token formats; _replace_value still does)."""
    if name == "u":
        return m.span("u_user")[0] - 3 > _SCHEME_MAX
    a, b = m.span(name + "_name")
    return b - a > _NAME_MAX


def _fallback(m: _M, vgroup: str, depth: int, counter: _Counter) -> str:
    """A candidate was rejected (``token: expired``).  Its span is not dropped unexamined: the part
    before the value is scanned for known formats, the value itself once more with every rule (one
    level deep, so the total work stays linear)."""
    full = m.full
    if depth > 0:
        return _sub(counter.known, full, 1, counter)
    vs = m.span(vgroup)[0]
    head, tail = full[:vs], full[vs:]
    # a known token is ≥ 16 characters; a short pure word cannot hold any candidate
    if len(head) >= 16:
        head = _sub(counter.known, head, 1, counter)
    t = tail.strip(" \t\"'")
    if len(t) >= _MIN_LEN and not (t.isalpha() and len(t) < 16):
        tail = _sub(counter.full, tail, 1, counter)
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
    return ((_has_digit(v) or (_has_upper(v) and _has_lower(v)) or _known_kind(v) is not None)
            and not _is_path(v))


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
        if cand[0] == "\\":  # a token right after a JSON escape: the escape stays
            if rule.check and not _check_known(rule.name, cand[2:]):
                return cand
            counter.n += 1
            return cand[:2] + rule.marker
        if rule.check and not _check_known(rule.name, cand):
            return cand
        counter.n += 1
        return rule.marker
    sp = rule.spans(cand)
    if sp is None:  # cannot happen (the set said the rule matches the span); stay safe
        return _sub(counter.known, cand, 1, counter)
    m = _M(cand, sp, rule.gidx)
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
        if strength and name in ("g", "gw") and _block_indicator(inner):
            return _Block(full[: m.span(vg)[1]], kind, _long_name(m, name))
        if strength and _is_secret_value(inner, strength, kind):
            if kind in ("secret", "api_key") and "aws" in nm.lower() and "secret" in nm.lower():
                kind = "aws_secret_key"
            return _replace_value(m, vg, kind, counter, _long_name(m, name))
        if name != "q" and _long_name(m, name):
            return _RESCAN
        return _fallback(m, vg, depth, counter)
    if name in ("ej", "ey"):
        strength, kind = classify_name(m.group(name + "_name"))
        _q1, inner, _q2 = _split_quotes(m.group(vg))
        if strength and name == "ey" and _block_indicator(inner):
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
                                  counter, name == "x" and _long_name(m, name))
        if name == "x" and _long_name(m, name):
            return _RESCAN
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
            return _replace_value(m, vg, "url_password", counter, _long_name(m, name))
        if _long_name(m, name):
            return _RESCAN
        return _fallback(m, vg, depth, counter)
    if name == "bb":
        v = m.group(vg)
        if (len(v) >= 12 and not v.startswith(MARKER_PREFIX)
                and (_has_digit(v) or (_has_upper(v) and _has_lower(v)))
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

    __slots__ = ("head", "kind", "long_head")

    def __init__(self, head: str, kind: str, long_head: bool = False) -> None:
        self.head = head  # candidate text up to and including the indicator
        self.kind = kind
        self.long_head = long_head  # scan the head for known formats (see _long_name)


def _block_indicator(v: str) -> bool:
    """``v`` is a YAML block scalar indicator: ^[|>][+-]?[1-9]?[ \t]*$ (plain string tests: this runs for
    every candidate whose value starts with | or >)."""
    if not v or v[0] not in "|>":
        return False
    i = 1
    if v[i:i + 1] in ("+", "-"):
        i += 1
    if v[i:i + 1] in ("1", "2", "3", "4", "5", "6", "7", "8", "9"):
        i += 1
    return not v[i:].strip(" \t")


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


def _sub(matcher: _Matcher, text: str, depth: int, counter: _Counter, subject: bytes | None = None) -> str:
    ascii_ = text.isascii()
    # re2 scans UTF-8 bytes; for ASCII text byte offsets are character offsets
    if subject is None:
        subject = text.encode("ascii") if ascii_ else text.encode("utf-8")
    search = matcher.search
    rule_for = matcher.rule_for
    by_prefix_get = matcher.by_prefix.get
    unanchored, plain, memo_max = _UNANCHORED, _PLAIN, _MEMO_MAX
    end = len(subject)
    out: list[str] = []
    append = out.append
    pos = 0        # text[pos:] is not in out yet (characters)
    bpos = 0       # where the next search starts (bytes)
    mb = mc = 0    # non-ASCII text: byte offset mb is character offset mc
    no_period_until = 0
    # identical candidates (a log repeats its lines; hostile input repeats its pattern) are decided once
    memo: dict[str, tuple[Any, int]] = {}
    memo_get = memo.get
    while True:
        bs, be = search(unanchored, subject, bpos, end)[0]
        if bs < 0:
            break
        if ascii_:
            s, e, p = bs, be, bpos
        else:
            s = mc + _re2_chars(subject, mb, bs)
            e = s + _re2_chars(subject, bs, be)
            mb, mc = be, e
            p = -1
        bpos = be if be > bs else be + (1 if ascii_ else len(text[e:e + 1].encode("utf-8")))
        if s < pos:
            continue  # inside a block scalar already replaced
        cb = subject[bs:be]
        if not cb.translate(None, plain):
            # a bare token whose first characters only one known format can start with: the common case
            # of a real token, kept short (see rule_for)
            rule = by_prefix_get(cb[:4])
            if rule and not rule.check and cb[0] != 92:  # (not after a JSON escape: "\\n" + token)
                counter.n += 1
                append(text[pos:s])
                append(rule.marker)
                pos = e
                continue
        cand = text[s:e]
        hit = memo_get(cand)
        if hit is not None:
            rep, delta = hit
            counter.n += delta
        else:
            rule = rule_for(cb)
            if rule is None:
                rep, delta = cand, 0
            else:
                before = counter.n
                rep = _handle(rule, cand, depth, counter)
                delta = counter.n - before
            if len(memo) < memo_max:
                memo[cand] = (rep, delta)
        if rep is _RESCAN:
            # not a candidate (see _RESCAN): what the scan finds at s instead is a match of a rule after it
            # in the alternation that can start there (a known format after a JSON escape, Bearer, ...),
            # else the next match from s + 1
            tb, te = counter.tail.search(_ANCHOR_START, subject, bs, end)[0]
            if tb < 0:
                bpos = bs + 1
                while bpos < end and (subject[bpos] & 0xC0) == 0x80:
                    bpos += 1
                continue
            e = s + (te - tb if ascii_ else _re2_chars(subject, tb, te))
            if not ascii_:
                mb, mc = te, e
            cand = text[s:e]
            rule = counter.tail.rule_for(subject[tb:te])
            rep = cand if rule is None else _handle(rule, cand, depth, counter)
            bpos = te
            if rep.__class__ is _Block or rep is _RESCAN or rep == cand:
                continue  # (neither can be: the tail has no such rules)
            append(text[pos:s])
            append(rep)
            pos = e
            continue
        if rep.__class__ is _Block:
            vend = s + len(rep.head)
            bend = _block_end(text, vend)
            inner_block = text[vend:bend].strip()
            if not inner_block or (inner_block.startswith(MARKER_PREFIX) and "\n" not in inner_block):
                continue  # empty, or already redacted
            body = text[vend:bend]
            first = body.split("\n", 2)[1] if "\n" in body else ""
            indent = first[: len(first) - len(first.lstrip(" \t"))]
            counter.n += 1
            append(text[pos:s])
            head = _sub(counter.known, rep.head, 1, counter) if rep.long_head else rep.head
            append(head + "\n" + indent + marker(rep.kind) + ("\n" if body.endswith("\n") else ""))
            pos = bend
            continue
        changed = rep is not cand and rep != cand
        if changed:
            append(text[pos:s])
            append(rep)
            pos = e
        # periodic input: copies of the unit just scanned that the searches would treat identically
        if p > 0 and e >= no_period_until and e - p <= _PERIOD_MAX and text[p - 1] == text[e - 1]:
            unit = text[p:e]
            if text.startswith(unit, e):
                period = e - p
                m = _copies(text, unit, e)
                region_end = e + m * period
                no_period_until = region_end
                if m * period >= _PERIOD_MIN_SPAN:
                    la = matcher.lookahead.bound(unit)
                    if la is not None:
                        # copy i (1..k) is searched from p + i*period; everything that search reads lies
                        # before s + i*period + la + 1 < region_end
                        k = min(m, (region_end - s - la - 2) // period)
                        if k > 0:
                            counter.n += delta * k
                            if changed:
                                append((text[p:s] + rep) * k)
                                pos = e + k * period
                            bpos = be + k * period
    if not out:
        return text
    append(text[pos:])
    return "".join(out)


def _re2_chars(b: bytes, start: int, stop: int) -> int:
    """Number of characters in the UTF-8 bytes b[start:stop]."""
    return len(b[start:stop].decode("utf-8")) if stop > start else 0


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


def _pem_end(text: str, be: int, limit: int) -> int:
    """End of the block whose BEGIN header ends at ``be`` (the next BEGIN or 64 KiB is ``limit``)."""
    j = text.find("-----END", be, limit)
    while j != -1:
        mm = _PEM_END.search(text[j: j + 80])
        if mm:
            return j + mm.end()
        j = text.find("-----END", j + 8, limit)
    window = text[be:limit]
    body = _PEM_BODY.search(window)
    bend = body.end() if body else 0
    if bend < len(window) and window[bend] not in "\r\n\\ \t\"',;}":
        # the last "word" continues into non-base64 text (a log line after a truncated key):
        # it was not a body line, give it back
        cut = max(window.rfind("\n", 0, bend), window.rfind("\\n", 0, bend))
        bend = cut if cut > 0 else bend
    return be + bend


def _redact_pem(text: str, counter: _Counter) -> str:
    if "PRIVATE KEY" not in text:
        return text
    n = len(text)
    if text.isascii():
        subject = text.encode("ascii")
        search = _PEM_BEGIN._regexp.Match

        def next_begin(frm: int) -> tuple[int, int]:
            return search(_UNANCHORED, subject, frm, n)[0]
    else:
        spans = [m.span() for m in _PEM_BEGIN.finditer(text)]
        it = iter(spans)

        def next_begin(frm: int) -> tuple[int, int]:  # the next header starting at or after frm
            for sp in it:
                if sp[0] >= frm:
                    return sp
            return (-1, -1)
    bs, be = next_begin(0)
    if bs < 0:
        return text
    out: list[str] = []
    pos = 0
    mark = marker("private_key")
    while bs >= 0:
        nbs, nbe = next_begin(be)
        limit = min(nbs if nbs >= 0 else n, be + _PEM_WINDOW)
        end = _pem_end(text, be, limit)
        out.append(text[pos:bs])
        out.append(mark)
        counter.n += 1
        pos = end
        if (nbs >= 0 and nbs == limit and end <= nbs and nbs - bs <= _PERIOD_MAX
                and text.startswith(text[bs:nbs], nbs)):
            # repeated blocks (hostile: the same unterminated header thousands of times): a copy is
            # decided like this one when everything its decision reads (its header, the text up to the
            # next header and 80 characters more) lies inside the repetition
            period = nbs - bs
            m = _copies(text, text[bs:nbs], nbs)
            k = m - 1 - 256 // period
            if k > 0:
                out.append((text[end:nbs] + mark) * k)
                counter.n += k
                pos = end + k * period
                nbs, nbe = next_begin(pos)
        if nbs >= 0 and nbs < pos:
            nbs, nbe = next_begin(pos)
        bs, be = nbs, nbe
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
    if len(text) < 4096:  # (the literals of the command rules and of the gated formats)
        gate = not any(map(text.__contains__, _GATE_LITERALS))
    else:  # one DFA pass for the command words and the literals of the gated formats
        subject = text.encode("utf-8")
        gate = _GATE(_UNANCHORED, subject, 0, len(subject))[0][0] < 0
    counter = _Counter(gate or not any(map(text.__contains__, _GATED_LITERALS)))
    out = _redact_pem(text, counter)
    out, subject = _redact_commands(out, counter, gate)
    out = _sub(counter.full, out, 0, counter, subject)
    return out, counter.n


def _redact_commands(text: str, counter: _Counter, none: bool = False) -> tuple[str, bytes | None]:
    """The command rules, each on its own (see _COMMAND_RULES), on the lines holding its command word only:
    a command match and everything its search reads lie within one line (the rules never cross a line
    break), so running it over those lines gives what a run over the whole text gives.  Returns the text
    and, when at hand, its UTF-8 encoding (for the next stage)."""
    if len(text) < 4096:
        if none or not any(map(text.__contains__, _CMD_LITERALS)):
            return text, None
        for matcher, literals, _word in _COMMANDS:
            if any(map(text.__contains__, literals)):
                text = _sub(matcher, text, 0, counter)
        return text, None
    b = text.encode("utf-8")
    if none or _CMD_ANY_WORD(_UNANCHORED, b, 0, len(b))[0][0] < 0:  # no command word at all
        return text, b
    for matcher, _literals, word in _COMMANDS:
        n = len(b)
        pieces: list[bytes] = []
        last = pos = 0
        while True:
            ws, we = word(_UNANCHORED, b, pos, n)[0]
            if ws < 0:
                break
            ls = b.rfind(b"\n", 0, ws) + 1
            le = b.find(b"\n", we)
            le = n if le == -1 else le
            line = b[ls:le].decode("utf-8")
            red = _sub(matcher, line, 0, counter)
            if red is not line:
                pieces.append(b[last:ls])
                pieces.append(red.encode("utf-8"))
                last = le
            pos = le + 1 if le < n else n
            if pos >= n:
                break
        if pieces:
            pieces.append(b[last:])
            b = b"".join(pieces)
            text = b.decode("utf-8")
    return text, b


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
        if _is_secret_value(v, strength, kind, structured=True):
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
                    or isinstance(v, str) and _is_secret_value(v, strength, kind, structured=True)
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
