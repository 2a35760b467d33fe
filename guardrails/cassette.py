"""vcrpy hooks that keep credentials out of recorded cassettes.

    vcr.VCR(before_record_request=before_record_request,
            before_record_response=before_record_response)

* request: Authorization / Cookie / API-key headers replaced, URI query secrets redacted, body redacted
  (JSON-aware: ``{"clientSecret": …}`` of ``POST /api/v1/token``; form-aware:
  ``client_secret=…`` of ``POST /api/v2/token``; otherwise text redaction).
* response: Set-Cookie / Authorization headers replaced; body (``response["body"]["string"]``, bytes or
  str, gzip/deflate-compressed or not) parsed as JSON when possible, passed through ``redact_value``
  (``accessToken``/``access_token``/``idToken``/``refreshToken`` → ``[REDACTED:token]``) and re-serialised,
  so the cassette stays valid JSON; Content-Length is kept consistent.

The hooks are deterministic, which matters because vcrpy also runs ``before_record_request`` on live
requests when matching them against the cassette on replay.
"""

from __future__ import annotations

import gzip
import json
import zlib
from typing import Any
from urllib.parse import parse_qsl, quote

from .names import classify_name
from .redaction import is_secret_value, marker, redact, redact_value

SENSITIVE_HEADERS = {
    "authorization", "proxy-authorization", "cookie", "set-cookie", "set-cookie2", "x-api-key",
    "x-auth-token", "x-access-token", "private-token", "x-goog-api-key", "api-key", "x-amz-security-token",
    "x-csrf-token", "x-xsrf-token", "x-runai-token", "x-registry-auth",
}


def _scrub_header_value(name: str, value: Any) -> Any:
    lname = name.lower()
    if lname in SENSITIVE_HEADERS:
        kind = lname.replace("-", "_")
        if isinstance(value, list):
            return [marker(kind) for _ in value] or [marker(kind)]
        return marker(kind)
    if isinstance(value, list):
        return [redact(v) if isinstance(v, str) else v for v in value]
    if isinstance(value, str):
        return redact(value)
    return value


def _scrub_headers(headers: Any) -> None:
    if headers is None:
        return
    for k in list(headers.keys()):
        headers[k] = _scrub_header_value(k, headers[k])


def _header(headers: Any, name: str) -> str:
    if not headers:
        return ""
    for k in headers.keys():
        if k.lower() == name:
            v = headers[k]
            if isinstance(v, list):
                v = v[0] if v else ""
            return v.decode() if isinstance(v, bytes) else str(v)
    return ""


def _redact_form(text: str) -> str | None:
    """x-www-form-urlencoded body → redacted body, or None if it does not look like a form."""
    if "=" not in text or "\n" in text or " " in text.strip() or text.lstrip().startswith(("{", "[")):
        return None
    try:
        pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        return None
    out = []
    for k, v in pairs:
        strength, kind = classify_name(k)
        if strength and is_secret_value(v, strength, kind):
            nv = marker(kind)
        else:
            nv = redact(v)
        out.append(f"{quote(k, safe='')}={quote(nv, safe='[]:')}")
    return "&".join(out)


def redact_body_text(text: str, content_type: str = "") -> str:
    """Redact an HTTP body given as text; JSON stays valid JSON."""
    stripped = text.strip()
    if stripped[:1] in ("{", "[") or "json" in content_type:
        try:
            obj = json.loads(text)
        except ValueError:
            pass
        else:
            return json.dumps(redact_value(obj), ensure_ascii=False)
    if "x-www-form-urlencoded" in content_type or (content_type == "" and "=" in stripped):
        form = _redact_form(stripped)
        if form is not None:
            return form
    return redact(text)


def _redact_body(body: Any, content_type: str = "", content_encoding: str = "") -> Any:
    if body is None or body == b"" or body == "":
        return body
    if isinstance(body, str):
        return redact_body_text(body, content_type)
    if not isinstance(body, (bytes, bytearray)):
        return body
    raw = bytes(body)
    enc = content_encoding.lower()
    recompress = None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
            recompress = "gzip"
        except (OSError, EOFError, zlib.error):
            return body
    elif "deflate" in enc:
        try:
            raw = zlib.decompress(raw)
            recompress = "deflate"
        except zlib.error:
            return body
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return body  # binary payload: nothing textual to redact
    new = redact_body_text(text, content_type).encode("utf-8")
    if recompress == "gzip":
        return gzip.compress(new, mtime=0)
    if recompress == "deflate":
        return zlib.compress(new)
    return new


def before_record_request(request: Any) -> Any:
    """vcrpy hook: scrub credentials from a request before it is written (or matched)."""
    if request is None:
        return None
    headers = getattr(request, "headers", None)
    content_type = _header(headers, "content-type").lower()
    try:
        uri = request.uri
        new_uri = redact(uri)
        if new_uri != uri:
            request.uri = new_uri
    except AttributeError:
        pass
    _scrub_headers(headers)
    body = getattr(request, "body", None)
    if isinstance(body, (bytes, str)) and body:
        request.body = _redact_body(body, content_type)
    return request


def before_record_response(response: Any) -> Any:
    """vcrpy hook: scrub credentials from a recorded response (dict with status/headers/body)."""
    if response is None:
        return None
    headers = response.get("headers") or {}
    content_type = _header(headers, "content-type").lower()
    content_encoding = _header(headers, "content-encoding").lower()
    _scrub_headers(headers)
    body = response.get("body")
    if isinstance(body, dict) and "string" in body:
        old = body["string"]
        new = _redact_body(old, content_type, content_encoding)
        body["string"] = new
        if new is not old and isinstance(new, (bytes, str)):
            length = len(new if isinstance(new, bytes) else new.encode("utf-8"))
            for k in list(headers.keys()):
                if k.lower() == "content-length":
                    headers[k] = [str(length)] if isinstance(headers[k], list) else str(length)
    return response
