"""Structure-aware redaction of JSON-like data (API bodies, specs): a value is judged by the key it sits
under as well as by its text.

* ``{"name": <secret-like>, "value": …}`` (env entries, annotations) → value ``[REDACTED:env]``
* a secret-like key (password, clientSecret, accessToken, apiKey, credentials, auth, …) holding a scalar
  → ``[REDACTED:<kind>]``; ``tokenType: "Bearer"``, ``secretName``, ``expiresIn`` stay.
* Kubernetes Secret ``data`` / ``stringData`` → every value redacted (keys kept).
* numbers / bools / None unchanged unless they sit under a strong secret key.
* every other string (keys included) goes through the text redactor.
"""

from __future__ import annotations

from typing import Any

from ..names import STRONG, classify_name
from .engine import redact_with_count
from .heuristics import MIN_LEN, is_secret_value, known_kind
from .re2util import marker

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
        if is_secret_value(v, strength, kind, structured=True):
            k = known_kind(v) or kind
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
            if isinstance(k, str) and len(k) >= MIN_LEN:
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
                    or isinstance(v, str) and is_secret_value(v, strength, kind, structured=True)
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


