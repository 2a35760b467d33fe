"""Kubeconfig credential plugins: refused unless the caller allows them.

A kubeconfig user with ``exec`` runs a program to get its credentials, and one with ``auth-provider`` runs a
helper (``gcp``'s ``cmd-path``) or calls an identity provider (``oidc`` refresh). The ``kubernetes`` client does
either silently as it loads the kubeconfig. A read-only diagnosis does not run programs named in a file it was
pointed at: the loader refuses such a user (one line naming the user entry and how to allow it) unless
``WD_KUBE_ALLOW_EXEC=1`` is set, or ``--allow-kube-exec`` was given (the CLI flag sets the variable for its
process). Only the user of the context that would be loaded counts; when that cannot be told, every user does.
"""
from __future__ import annotations

import os
from typing import Any, Mapping

__all__ = ["ALLOW_EXEC_ENV", "ALLOW_EXEC_FLAG", "exec_allowed", "credential_plugin", "refusal"]

ALLOW_EXEC_ENV = "WD_KUBE_ALLOW_EXEC"
ALLOW_EXEC_FLAG = "--allow-kube-exec"
_TRUE = ("1", "true", "yes", "on")


def exec_allowed(environ: Mapping[str, str] | None = None) -> bool:
    """The caller allows kubeconfig credential plugins (``WD_KUBE_ALLOW_EXEC=1``)."""
    return (os.environ if environ is None else environ).get(ALLOW_EXEC_ENV, "").strip().lower() in _TRUE


def _named(items: Any, name: Any) -> dict | None:
    if not isinstance(items, list):
        return None
    return next((i for i in items if isinstance(i, dict) and i.get("name") == name), None)


def _plugin(user: Any) -> str | None:
    if not isinstance(user, dict):
        return None
    ex = user.get("exec")
    if ex:
        cmd = ex.get("command") if isinstance(ex, dict) else None
        return f"runs the credential plugin {os.path.basename(str(cmd))[:60]!r} (exec)" if cmd \
            else "runs a credential plugin (exec)"
    ap = user.get("auth-provider")
    if ap:
        name = ap.get("name") if isinstance(ap, dict) else None
        return f"uses the auth-provider {str(name)[:40]!r} (a helper command or an identity-provider call)" \
            if name else "uses an auth-provider (a helper command or an identity-provider call)"
    return None


def _label(name: Any) -> str:
    text = "".join(c if c.isprintable() else "?" for c in str(name))
    return repr(text[:80])


def credential_plugin(doc: Mapping[str, Any], context: str | None = None) -> str | None:
    """What the user entry that loading ``doc`` (with ``context``, else its current-context) would use runs, as
    "the kubeconfig user 'X' runs ..."; None when it runs nothing."""
    ctx = _named(doc.get("contexts"), context or doc.get("current-context"))
    user_name = (ctx.get("context") or {}).get("user") if ctx and isinstance(ctx.get("context"), dict) else None
    entry = _named(doc.get("users"), user_name) if user_name is not None else None
    candidates = [entry] if entry is not None else [u for u in (doc.get("users") or []) if isinstance(u, dict)] \
        if isinstance(doc.get("users"), list) else []
    for u in candidates:
        what = _plugin(u.get("user"))
        if what:
            return f"the kubeconfig user {_label(u.get('name'))} {what}"
    return None


def refusal(doc: Mapping[str, Any], context: str | None = None,
            environ: Mapping[str, str] | None = None) -> str | None:
    """The one-line refusal for ``doc``, or None when it runs no plugin or plugins are allowed."""
    what = credential_plugin(doc, context)
    if what is None or exec_allowed(environ):
        return None
    return f"{what}: refused (pass {ALLOW_EXEC_FLAG} or set {ALLOW_EXEC_ENV}=1 to allow it)"
