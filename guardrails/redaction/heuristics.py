"""Is this value a credential?  Plausibility tests on a candidate value (placeholders, prose, shell
references, paths, masks, entropy), the kind of a known token format inside a value, and the checks some
known formats need on the whole token.  Plain string tests and bounded re2 searches only: every function
here is linear in its argument."""

from __future__ import annotations

import base64
import binascii
import math
from collections import Counter

import re2

from ..names import WEAK
from .re2util import MARKER_PREFIX, options, whole_match
from .rules import CONT, KNOWN_FORMATS

MIN_LEN = 8  # a shorter text holds no credential worth a marker

# known formats whose matches need a look at the whole token (check_known)
CHECKED_KINDS = frozenset({"openai_key", "private_key", "azure_client_secret", "twilio_key", "base64_secret"})

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
# whole-value tests (re2 on the UTF-8 bytes; a character class alone: bytes.translate deleting it leaves nothing)
_B64ISH_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_=-"
_HEX_CHARS = "0123456789abcdefABCDEF"
_UUID = whole_match(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_DNS_NAME = whole_match(r"[a-z0-9]([a-z0-9.\-]*[a-z0-9])?")
_SHELL_REF = whole_match(r"\$\{[^}]*\}?|\$\([^)]*\)?|\$[A-Za-z_][A-Za-z0-9_]*|%\([^)]*\)s|%s|\{\{.*\}\}?|\$\$.*")
_PATHLIKE = whole_match(r"(?:~|\.{1,2})?(?:/[A-Za-z0-9_.@:+\-]+)+/?")


_ENTROPY_SAMPLE = 4096


def entropy(s: str) -> float:
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


def has_digit(v: str) -> bool:
    if v.isascii():
        return any(d in v for d in "0123456789")
    return any(c.isdigit() for c in v)


def has_upper(v: str) -> bool:
    return v != v.lower() if v.isascii() else any(c.isupper() for c in v)


def has_lower(v: str) -> bool:
    return v != v.upper() if v.isascii() else any(c.islower() for c in v)


def looks_random(v: str, min_len: int = 16) -> bool:
    """High-entropy machine-generated value (API key, base64 secret, hex key)?"""
    if len(v) < min_len:
        return False
    if len(v) == 36 and _UUID(v):  # (a UUID is 36 characters)
        return False
    if not v or not v.isascii():
        return False  # (neither hex nor base64-ish)
    if not v.strip(_HEX_CHARS):  # (all hex: strip stops at the first other character)
        return len(v) >= 24 and entropy(v) >= 3.0
    if v.encode("ascii").translate(None, _B64ISH_BYTES):
        return False
    # ASCII from here on: str methods instead of loops over the characters
    digit, upper = has_digit(v), has_upper(v)
    if not digit and not upper:
        return False  # (neither a digit nor both cases; nor a letter of either case: no lower either)
    lower = has_lower(v)
    if not digit and not (upper and lower and len(v) >= 24):
        return False
    if not (upper or lower):
        return False
    # dns-ish names with hyphens and words (train-7d9f8c6b5-x2x9q) are not secrets
    if "-" in v and _DNS_NAME(v) and max(map(len, v.split("-"))) < 16:
        return False
    return entropy(v) >= 3.2


def is_path(v: str) -> bool:
    if not _PATHLIKE(v):
        return False
    for seg in set(v.split("/")):
        if len(seg) >= 12 and looks_random(seg, 12):
            return False
    return True


def decodes_to_userpass(v: str) -> bool:
    try:
        raw = base64.b64decode(v + "=" * (-len(v) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    try:
        s = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return ":" in s and s.isprintable()


_WORD_MAX = max(map(len, _PLACEHOLDERS | _STOPWORDS))
_MASK_CHARS = "*xX•.#?_-~ "  # a value made of these only is a mask (str.strip: no pass over a long value)


def is_secret_value(v: str, strength: str | None, kind: str, structured: bool = False) -> bool:
    """Is this value (already unquoted) a credential, given how strongly its label says so?

    ``structured``: the value is a whole JSON field under a secret-like key (not a word in free text), so a
    leading ``--`` is part of the value, not the next command-line flag."""
    v = v.strip()
    if not v or v.startswith(MARKER_PREFIX):
        return False
    # placeholders and stop words are short words: a longer value is neither (lower() never shortens a
    # string, nor makes or removes the punctuation stripped), and is not lower-cased whole
    if len(v) <= _WORD_MAX and v.lower() in _PLACEHOLDERS:
        return False
    bare = v.rstrip(".,:;!")
    if len(bare) <= _WORD_MAX:
        bare = bare.lower()
        if bare in _STOPWORDS and bare.isalpha():
            return False  # prose: "token: expired", "password: incorrect"
    if v[0] in "<[":
        return False
    if ("$" in v or "{" in v or "%" in v) and _SHELL_REF(v):
        return False  # $VAR, ${VAR}, $(cmd), {{ template }}, %(name)s
    if not v.strip(_MASK_CHARS) or v.startswith("***") or v[:4].lower() == "xxxx":
        return False
    if strength == WEAK:
        if kind == "auth" and decodes_to_userpass(v):
            return True
        if kind == "secret":
            # bare `secret: db-creds` is usually the name of a Kubernetes Secret
            if _DNS_NAME(v) and not looks_random(v):
                return False
            return len(v) >= 6 and not v.isalpha() or looks_random(v)
        return looks_random(v)
    # STRONG
    if not structured and v.startswith("--") and len(v) > 2 and v[2].isalpha():
        return False  # next flag, not a value: "--password --verbose"
    if "/" in v and is_path(v):
        return False
    return True


# the kind of a value caught by a context rule: the first known format found anywhere in it
_KNOWN_SET = re2.Set.SearchSet(options())
for _k, _p in KNOWN_FORMATS:
    _KNOWN_SET.Add(_p)
_KNOWN_SET.Compile()


def known_kind(value: str) -> str | None:
    """Kind of a known token format fully or partly present in value (first match)."""
    if len(value) < 8:
        return None
    idx = _KNOWN_SET.Match(value)  # one pass: every format found anywhere; the first in list order wins
    return KNOWN_FORMATS[min(idx)][0] if idx else None


_CONT = re2.compile(CONT, options())
_LEAD_CONT = re2.compile("^" + CONT, options())


def unfold(val: str) -> str:
    """The value without its shell line continuations (``abc\\`` + newline + ``def`` is ``abcdef``)."""
    return _CONT.sub("", val) if "\\" in val else val


def split_quotes(val: str) -> tuple[str, str, str]:
    """('"', inner, '"') for quoted values so the quotes survive the replacement.  A value that starts on the
    next line keeps that line continuation before it; ``inner`` is unfolded (the value that is judged)."""
    lead = _LEAD_CONT.search(val) if val[:1] == "\\" else None
    if lead is not None:
        q1, inner, q2 = _split_quotes(val[lead.end():])
        return val[:lead.end()] + q1, unfold(inner), q2
    q1, inner, q2 = _split_quotes(val)
    return q1, unfold(inner), q2


def _split_quotes(val: str) -> tuple[str, str, str]:
    if len(val) >= 4 and val.startswith('\\"') and val.endswith('\\"'):
        return '\\"', val[2:-2], '\\"'
    if len(val) >= 2 and val[0] in "\"'`" and val[-1] == val[0]:
        return val[0], val[1:-1], val[0]
    if val and val[0] in "\"'`":
        return val[0], val[1:], ""
    return "", val, ""


# Known-format validation (regex candidates that need a look at the whole token)
def check_known(kind: str, token: str) -> bool:
    if kind == "openai_key" and token.startswith("sk-") and not token.startswith(
        ("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-")
    ):
        body = token[3:]
        return has_digit(body) and has_upper(body) and has_lower(body) and entropy(body) >= 3.5
    if kind == "private_key" and token.startswith("LS0tLS1CRUdJTi"):
        head = token[: (min(len(token), 120) // 4) * 4]
        try:
            return b"PRIVATE KEY" in base64.b64decode(head)
        except (binascii.Error, ValueError):
            return False
    if kind == "azure_client_secret":
        return has_digit(token) and entropy(token) >= 3.5
    if kind == "twilio_key":
        return entropy(token) >= 3.0
    return True


def plausible_credential(v: str) -> bool:
    """A single token that could be a bearer / API credential (not a word like 'server' or 'expired')."""
    v = v.strip(".,;")
    if len(v) < 8 or v.startswith(MARKER_PREFIX) or _SHELL_REF(v) or v[0] in "<[":
        return False
    if v.isalpha() and (v.islower() or v.isupper() or v.istitle()):
        return False
    return ((has_digit(v) or (has_upper(v) and has_lower(v)) or known_kind(v) is not None)
            and not is_path(v))
