"""What to do with a candidate: the decision of each context rule (is the labelled value a credential,
and which part of the candidate is replaced), the known-format checks, YAML block scalars, and the
fallback that re-scans a rejected candidate so a real token inside it is still removed.

A candidate that a callback rejects (``token: expired``, ``--token-file /x``) is not dropped silently: its
span is re-scanned once with the full rule set (inner rejections fall back to the known formats only).
The fixed depth keeps the whole thing linear.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import unquote

from ..names import STRONG, WEAK, classify_name
from .heuristics import (
    MIN_LEN,
    check_known,
    decodes_to_userpass,
    has_digit,
    has_lower,
    has_upper,
    is_path,
    is_secret_value,
    known_kind,
    looks_random,
    plausible_credential,
    split_quotes,
)
from .re2util import MARKER_PREFIX, marker
from .rules import NAME_MAX, SCHEME_MAX

if TYPE_CHECKING:
    from .counter import CounterBase as Counter
    from .matcher import CompiledRule


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


def _replace_value(m: _M, vgroup: str, kind: str, counter: Counter, long_head: bool = False) -> str:
    full = m.full
    vs, ve = m.span(vgroup)
    q1, inner, q2 = split_quotes(full[vs:ve])
    k = known_kind(inner) or kind
    counter.n += 1
    head = counter.sub(counter.known, full[:vs], 1, counter) if long_head else full[:vs]
    return head + q1 + marker(k) + q2 + full[ve:]


# A candidate the rules did not produce while names and schemes were bounded, and whose value is not a
# secret: it is not a candidate at all (as before), the scan goes on inside it (see sub).  Its span is
# not consumed as a rejected candidate's is: "<long name>_token: token: hunter2" must still find hunter2.
class _Rescan:
    __slots__ = ()


RESCAN = _Rescan()


def long_name(m: _M, name: str) -> bool:
    """A name longer than the rules once allowed (names and schemes used to be bounded: a longer one was
    no candidate, and the scan looked inside it for known token formats; _replace_value still does)."""
    if name == "u":
        return m.span("u_user")[0] - 3 > SCHEME_MAX
    a, b = m.span(name + "_name")
    return b - a > NAME_MAX


def _fallback(m: _M, vgroup: str, depth: int, counter: Counter) -> str:
    """A candidate was rejected (``token: expired``).  Its span is not dropped unexamined: the part
    before the value is scanned for known formats, the value itself once more with every rule (one
    level deep, so the total work stays linear)."""
    full = m.full
    if depth > 0:
        return counter.sub(counter.known, full, 1, counter)
    vs = m.span(vgroup)[0]
    head, tail = full[:vs], full[vs:]
    # a known token is ≥ 16 characters; a short pure word cannot hold any candidate
    if len(head) >= 16:
        head = counter.sub(counter.known, head, 1, counter)
    t = tail.strip(" \t\"'")
    if len(t) >= MIN_LEN and not (t.isalpha() and len(t) < 16):
        tail = counter.sub(counter.full, tail, 1, counter)
    return head + tail


_AUTH_SCHEMES = ("bearer", "basic", "token", "negotiate", "ntlm", "apikey", "aws4-hmac-sha256", "hmac",
                 "key", "sso-key", "gensecret", "splunk", "dsn", "jwt")


def _handle_header(m: _M, depth: int, counter: Counter) -> str:
    full = m.full
    hname = m.group("h_name").lower()
    vs, ve = m.span("h_val")
    val = full[vs:ve]
    if hname in ("cookie", "set-cookie"):
        stripped = val.rstrip()
        if "=" not in stripped or not is_secret_value(stripped, STRONG, "cookie"):
            return _fallback(m, "h_val", depth, counter)
        counter.n += 1
        return full[:vs] + marker("cookie") + val[len(stripped):] + full[ve:]
    lead = len(val) - len(val.lstrip())
    words = val.split(None, 2)  # (the scheme and the credential: the rest of a long value is not split)
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
            ok = (decodes_to_userpass(cred) or looks_random(cred, 8)) if scheme == "basic" else plausible_credential(cred)
        if not ok:
            return _fallback(m, "h_val", depth, counter)
        cred = val[cstart:cend]
        kind = known_kind(cred) or ("aws_signature" if scheme == "aws4-hmac-sha256" else scheme)
        if scheme == "basic":
            kind = "basic_auth"
        counter.n += 1
        return full[: vs + cstart] + marker(kind) + full[vs + cend:]
    # no scheme: a bare API key / token header value (a single token).  Headers that only ever carry a
    # credential (X-API-Key, Private-Token, …) take any non-prose value; "authorization: <word>" is
    # often prose ("authorization: server message: …") so it needs a credential-looking value.
    cred = words[0].rstrip(".,;")
    ok = (plausible_credential(cred) if hname in ("authorization", "proxy-authorization")
          else len(cred) >= 6 and is_secret_value(cred, STRONG, "api_key"))
    if not ok:
        return _fallback(m, "h_val", depth, counter)
    cstart = val.index(cred)
    kind = known_kind(cred) or ("api_key" if "key" in hname else "token")
    counter.n += 1
    return full[: vs + cstart] + marker(kind) + full[vs + cstart + len(cred):]


class _Base64:
    __slots__ = ()


B64 = _Base64()  # a base64 fragment: the scan decides the run around it (engine.sub, encoded.py)


def handle(rule: CompiledRule, cand: str, depth: int, counter: Counter) -> str:
    if rule.typ == "known":
        if rule.name == "base64_secret":
            return B64
        if cand[0] == "\\":  # a token right after a JSON escape: the escape stays
            if rule.check and not check_known(rule.name, cand[2:]):
                return cand
            counter.n += 1
            return cand[:2] + rule.marker
        if rule.check and not check_known(rule.name, cand):
            return cand
        counter.n += 1
        return rule.marker
    sp = rule.spans(cand)
    if sp is None:  # cannot happen (the set said the rule matches the span); stay safe
        return counter.sub(counter.known, cand, 1, counter)
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
        _q1, inner, _q2 = split_quotes(m.group(vg))
        if name == "q" and "%" in inner:
            inner = unquote(inner)  # sig=abc%2Bdef%3D (Azure SAS): judge the value, not its URL encoding
        if name in ("g", "gw") and not _q1 and inner.isalpha():
            ne = m.span(name + "_name")[1]
            if ne < len(full) and full[ne] in "\"'":
                strength = None  # '"creds" : configmap …' is prose about an object called creds
        if strength and name in ("g", "gw") and _block_indicator(inner):
            return Block(full[: m.span(vg)[1]], kind, long_name(m, name))
        if strength and is_secret_value(inner, strength, kind):
            if kind in ("secret", "api_key") and "aws" in nm.lower() and "secret" in nm.lower():
                kind = "aws_secret_key"
            return _replace_value(m, vg, kind, counter, long_name(m, name))
        if name != "q" and long_name(m, name):
            return RESCAN
        return _fallback(m, vg, depth, counter)
    if name in ("ej", "ey"):
        strength, kind = classify_name(m.group(name + "_name"))
        _q1, inner, _q2 = split_quotes(m.group(vg))
        if strength and name == "ey" and _block_indicator(inner):
            return Block(full[: m.span(vg)[1]], "env")
        if strength and is_secret_value(inner, strength, kind):
            return _replace_value(m, vg, "env", counter)
        return _fallback(m, vg, depth, counter)
    if name == "h":
        return _handle_header(m, depth, counter)
    if name in _MORE:
        return _MORE[name](m, depth, counter)
    if name in ("tp", "es"):
        _q1, inner, _q2 = split_quotes(m.group(vg))
        if is_secret_value(inner, STRONG, "password"):
            return _replace_value(m, vg, "password", counter)
        return _fallback(m, vg, depth, counter)
    if name in ("ac", "x", "ka"):
        strength, kind = classify_name(m.group(name + "_name"))
        _q1, inner, _q2 = split_quotes(m.group(vg))
        if strength and is_secret_value(inner, strength, kind):
            return _replace_value(m, vg, "aws_secret_key" if "aws_secret" in m.group(name + "_name").lower() else kind,
                                  counter, name == "x" and long_name(m, name))
        if name == "x" and long_name(m, name):
            return RESCAN
        return _fallback(m, vg, depth, counter)
    if name == "dl":
        _q1, inner, _q2 = split_quotes(m.group(vg))
        if is_secret_value(inner, STRONG, "password"):
            return _replace_value(m, vg, "docker_password", counter)
        return _fallback(m, vg, depth, counter)
    if name == "cu":
        if is_secret_value(m.group(vg), STRONG, "password"):
            return _replace_value(m, vg, "password", counter)
        return _fallback(m, vg, depth, counter)
    if name == "u":
        inner = m.group(vg)
        us = m.span("u_user")[0]
        whole = m.group("u_user") + ":" + inner
        if m.group("u_user") and ":" in whole and known_kind(whole) == "telegram_bot_token":
            # scheme://<bot id>:<secret>@…: user and password are one token (a Telegram bot token)
            counter.n += 1
            ve = m.span(vg)[1]
            return full[:us] + marker("telegram_bot_token") + full[ve:]
        if is_secret_value(inner, STRONG, "password") or known_kind(inner):
            return _replace_value(m, vg, "url_password", counter, long_name(m, name))
        if long_name(m, name):
            return RESCAN
        return _fallback(m, vg, depth, counter)
    if name == "bb":
        v = m.group(vg)
        if (len(v) >= 12 and not v.startswith(MARKER_PREFIX)
                and (has_digit(v) or (has_upper(v) and has_lower(v)))
                and not is_path(v)):
            return _replace_value(m, vg, "bearer", counter)
        return _fallback(m, vg, depth, counter)
    if name == "bs":
        if decodes_to_userpass(m.group(vg)):
            return _replace_value(m, vg, "basic_auth", counter)
        return _fallback(m, vg, depth, counter)
    return cand


class Block:
    """A YAML block scalar (``password: |`` + more-indented lines) whose lines must be redacted."""

    __slots__ = ("head", "kind", "long_head")

    def __init__(self, head: str, kind: str, long_head: bool = False) -> None:
        self.head = head  # candidate text up to and including the indicator
        self.kind = kind
        self.long_head = long_head  # scan the head for known formats (see long_name)


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


def block_end(text: str, value_pos: int) -> tuple[int, int]:
    """End of the block scalar whose indicator sits on the line containing value_pos, and the end of what
    was read to find it (the line after the block)."""
    ls = text.rfind("\n", 0, value_pos) + 1
    line = text[ls:value_pos]
    key_indent = len(line) - len(line.lstrip(" \t-"))
    nl = text.find("\n", value_pos)
    if nl == -1:
        return len(text), len(text)
    pos = nl + 1
    read = pos
    limit = min(len(text), pos + _BLOCK_MAX)
    while pos < limit:
        nxt = text.find("\n", pos, limit)
        line_end = nxt if nxt != -1 else limit
        read = line_end + 1
        ln = text[pos:line_end]
        stripped = ln.lstrip(" \t")
        if stripped and len(ln) - len(stripped) <= key_indent:
            break
        pos = line_end + 1 if nxt != -1 else limit
    return min(pos, len(text)), min(read, len(text))


# ------------------------------------------------------------------ the formats of issue 10 item 2
def _strong_value(kind: str, vg: str) -> "object":
    """A handler replacing the (unquoted) value when it is a credential whatever it looks like."""
    def h(m: _M, depth: int, counter: Counter) -> str:
        _q1, inner, _q2 = split_quotes(m.group(vg))
        if is_secret_value(inner, STRONG, kind):
            return _replace_value(m, vg, kind, counter)
        return _fallback(m, vg, depth, counter)
    return h


def _wandb_login(m: _M, depth: int, counter: Counter) -> str:
    if looks_random(m.group("wl_val"), 32):
        return _replace_value(m, "wl_val", "wandb_key", counter)
    return _fallback(m, "wl_val", depth, counter)


def _escaped_name(m: _M, name: str) -> str:
    """The key of an escaped or encoded pair without what belongs to an escape before it: "\\u0026password"
    is "password" after an escaped &, "\\ntoken" "token" after a newline."""
    nm = m.group(name + "_name")
    ns = m.span(name + "_name")[0]
    if ns > 0 and m.full[ns - 1] == "\\":
        if nm[:1] in ("u", "x"):
            n = 5 if nm[:1] == "u" else 3
            if len(nm) > n and all(c in "0123456789abcdefABCDEF" for c in nm[1:n]):
                return nm[n:]
        if nm[:1] in "nrt":
            return nm[1:]
    return nm


def _encoded_pair(m: _M, depth: int, counter: Counter) -> str:
    """password%3D… / password\\u003d… : the key decides as in key=value, the value is judged decoded."""
    name = "ue" if "ue_val" in m.gidx else "ee"
    vg = name + "_val"
    nm = _escaped_name(m, name)
    strength, kind = classify_name(nm)
    if strength is None and nm.lower() in ("sig", "signature"):
        strength, kind = WEAK, "signature"
    value = m.group(vg)
    if name == "ue":
        value = unquote(unquote(value))  # (encoded once more inside an encoded URL: %2521 is %21 is !)
    if strength and is_secret_value(value, strength, kind):
        return _replace_value(m, vg, kind, counter, long_name(m, name))
    if long_name(m, name):
        return RESCAN
    return _fallback(m, vg, depth, counter)


_PROSE_PUNCT = ".,;:!?"


def _prose(m: _M, depth: int, counter: Counter) -> str:
    """"with password X", "the password is X": prose, so the value must look like a password (not a plain
    word: "with password authentication", "the secret is mounted …"); sentence punctuation after it stays."""
    name = "pw" if "pw_val" in m.gidx else "pi"
    vg = name + "_val"
    strength, kind = classify_name(m.group(name + "_name").replace(" ", "_"))
    vs, ve = m.span(vg)
    q1, inner, q2 = split_quotes(m.full[vs:ve])
    value = inner.rstrip(_PROSE_PUNCT)
    plain_word = value.isalpha() and (value.islower() or value.istitle() or value.isupper())
    if strength and value and not plain_word and is_secret_value(value, strength, kind):
        counter.n += 1
        return (m.full[:vs] + q1 + marker(known_kind(value) or kind) + inner[len(value):] + q2 + m.full[ve:])
    return _fallback(m, vg, depth, counter)


_MORE = {
    "nr": _strong_value("netrc_password", "nr_val"),
    "oj": _strong_value("jdbc_password", "oj_val"),
    "pk": _strong_value("gcp_private_key_id", "pk_val"),
    "wl": _wandb_login,
    "ue": _encoded_pair,
    "ee": _encoded_pair,
    "pw": _prose,
    "pi": _prose,
}
