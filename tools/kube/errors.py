"""Typed Kubernetes read errors: every failure of the reader is a :class:`KubeError`; an attempted write is a
:class:`KubeWriteRefused` (a :class:`tools.base.WriteRefused`: nothing was sent)."""
from __future__ import annotations

from typing import Any, Literal

import urllib3

from tools.base import WriteRefused as _WriteRefusedBase

__all__ = ["KubeErrorKind", "KubeError", "KubeWriteRefused"]

KubeErrorKind = Literal["unavailable", "unauthorized", "forbidden", "not_found", "error"]


class KubeError(Exception):
    """Any failed Kubernetes read, typed. ``status`` is the HTTP status when the server answered."""

    def __init__(self, kind: KubeErrorKind, message: str, status: int | None = None):
        super().__init__(f"{kind}: {message}" + (f" (HTTP {status})" if status else ""))
        self.kind: KubeErrorKind = kind
        self.message = message
        self.status = status

    def __reduce__(self):  # picklable (xdist, caching)
        return (self.__class__, (self.kind, self.message, self.status))


class KubeWriteRefused(_WriteRefusedBase):
    """A non-read Kubernetes request was attempted through the read-only client. Nothing was sent."""


def _status_message(e: Any) -> str:
    body = getattr(e, "body", None)
    if body:
        try:
            import json

            msg = json.loads(body).get("message")
            if msg:
                return str(msg)[:500]
        except Exception:
            return str(body)[:500]
    return (str(getattr(e, "reason", "") or e) or type(e).__name__)[:500]


def _redacted(text: str) -> str:
    try:
        import guardrails

        return guardrails.sanitize_text(text).text
    except ImportError:  # pragma: no cover - guardrails ships with this package
        return text


def _translate(e: BaseException, what: str) -> KubeError:
    """Map any client/transport exception to a typed KubeError (message sanitised: it can quote the server)."""
    k = _translate_raw(e, what)
    k.message = _redacted(k.message)
    k.args = (f"{k.kind}: {k.message}" + (f" (HTTP {k.status})" if k.status else ""),)
    return k


def _translate_raw(e: BaseException, what: str) -> KubeError:
    if isinstance(e, KubeError):
        return e
    from kubernetes.client.exceptions import ApiException

    if isinstance(e, ApiException):
        status = getattr(e, "status", None) or 0
        msg = _status_message(e)
        if status == 0:  # TLS failure and the like: no usable answer from the server
            return KubeError("unavailable", f"{what}: {msg}", None)
        if status == 401:
            return KubeError("unauthorized", f"{what}: {msg}", status)
        if status == 403:
            return KubeError("forbidden", f"{what}: {msg}", status)
        if status == 404:
            return KubeError("not_found", f"{what}: {msg}", status)
        if status == 400 and "not found" in msg.lower():  # e.g. previous terminated container not found
            return KubeError("not_found", f"{what}: {msg}", status)
        if status in (502, 503, 504):
            return KubeError("unavailable", f"{what}: {msg}", status)
        return KubeError("error", f"{what}: {msg}", status)
    if isinstance(e, (urllib3.exceptions.HTTPError, OSError, TimeoutError)):
        return KubeError("unavailable", f"{what}: {type(e).__name__}: {str(e)[:300]}", None)
    return KubeError("error", f"{what}: {type(e).__name__}: {str(e)[:300]}", None)
