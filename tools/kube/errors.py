"""Typed Kubernetes read errors: every failure of the reader is a :class:`KubeError`; an attempted write is a
:class:`KubeWriteRefused` (a :class:`tools.base.WriteRefused`: nothing was sent)."""
from __future__ import annotations

from typing import Any, Literal

import urllib3

from workload_diagnose.tools.base import WriteRefused as _WriteRefusedBase

__all__ = ["KubeErrorKind", "KubeError", "KubeWriteRefused", "translate"]

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


def _status_message(e: Any, limit: int = 500) -> str:
    body = getattr(e, "body", None)
    if body:
        try:
            import json

            msg = json.loads(body).get("message")
            if msg:
                return str(msg)[:limit]
        except Exception:
            return str(body)[:limit]
    return (str(getattr(e, "reason", "") or e) or type(e).__name__)[:limit]


def _redacted(text: str) -> str:
    try:
        from workload_diagnose import guardrails

        return guardrails.sanitize_text(text).text
    except ImportError:  # pragma: no cover - guardrails ships with this package
        return text


def translate(e: BaseException, what: str, *, message_chars: int = 500, detail_chars: int = 300,
              bad_request_not_found: bool = True) -> KubeError:
    """Map any client/transport exception to a typed KubeError (message sanitised: it can quote the server).

    ``message_chars`` bounds the server's message quoted, ``detail_chars`` a transport error's text;
    ``bad_request_not_found`` reads a 400 saying "not found" (e.g. no previous terminated container) as
    ``not_found``. The lifecycle reader (:mod:`tools.kube.lifecycle`) keeps its own, narrower quotes and a 400 as
    ``error``."""
    k = _translate_raw(e, what, message_chars, detail_chars, bad_request_not_found)
    k.message = _redacted(k.message)
    k.args = (f"{k.kind}: {k.message}" + (f" (HTTP {k.status})" if k.status else ""),)
    return k


def _translate_raw(e: BaseException, what: str, message_chars: int, detail_chars: int,
                   bad_request_not_found: bool) -> KubeError:
    if isinstance(e, KubeError):
        return e
    from kubernetes.client.exceptions import ApiException

    if isinstance(e, ApiException):
        status = getattr(e, "status", None) or 0
        msg = _status_message(e, message_chars)
        if status == 0:  # TLS failure and the like: no usable answer from the server
            return KubeError("unavailable", f"{what}: {msg}", None)
        if status == 401:
            return KubeError("unauthorized", f"{what}: {msg}", status)
        if status == 403:
            return KubeError("forbidden", f"{what}: {msg}", status)
        if status == 404:
            return KubeError("not_found", f"{what}: {msg}", status)
        if status == 400 and bad_request_not_found and "not found" in msg.lower():
            return KubeError("not_found", f"{what}: {msg}", status)
        if status in (502, 503, 504):
            return KubeError("unavailable", f"{what}: {msg}", status)
        return KubeError("error", f"{what}: {msg}", status)
    if isinstance(e, (urllib3.exceptions.HTTPError, OSError, TimeoutError)):
        return KubeError("unavailable", f"{what}: {type(e).__name__}: {str(e)[:detail_chars]}", None)
    return KubeError("error", f"{what}: {type(e).__name__}: {str(e)[:detail_chars]}", None)
