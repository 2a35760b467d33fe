"""Read-only enforcement for the Kubernetes client, at three layers.

The reader's ``ApiClient`` is a :func:`ReadOnlyApiClient` whose REST client (:func:`ReadOnlyRESTClient`), urllib3
``PoolManager`` and every connection pool refuse any method but ``GET``/``HEAD`` (and the
``exec``/``attach``/``portforward``/``proxy`` subresources and ``secrets``) with :class:`KubeWriteRefused`
*before* a connection is opened, whoever calls them (``CoreV1Api(reader.api_client).delete_namespaced_pod``,
``CustomObjectsApi(reader.api_client).create_namespaced_custom_object``, ``reader.api_client.call_api(...,
"DELETE")``, ``kubernetes.stream.stream(...)``, the pool manager itself). This guards against mistakes, not
against hostile code in the same process. :func:`check_read_request` is the one classifier: unknown is refused.
"""
from __future__ import annotations

import threading
from typing import Any
from urllib.parse import unquote, urlsplit

from workload_diagnose.tools.kube.errors import KubeWriteRefused

__all__ = ["CONNECT_TIMEOUT_S", "READ_TIMEOUT_S", "check_read_request", "ReadOnlyRESTClient", "ReadOnlyApiClient"]

CONNECT_TIMEOUT_S = 3.0
READ_TIMEOUT_S = 10.0

_READ_METHODS = frozenset({"GET", "HEAD"})
# GET-based subresources that act on the cluster (run commands, open tunnels) are not reads.
_REFUSED_SUBRESOURCES = frozenset({"exec", "attach", "portforward", "proxy"})
# Credential contents are never requested (the skill's rule); a missing secret shows in events anyway.
_REFUSED_RESOURCES = frozenset({"secrets"})


def check_read_request(method: Any, url: Any) -> None:
    """Raise :class:`KubeWriteRefused` unless ``method url`` is a plain read. Unknown is refused."""
    m = str(method or "").upper()
    if m not in _READ_METHODS:
        raise KubeWriteRefused(f"refused {m or '?'} {url}: the Kubernetes reader is read-only (GET/HEAD only)")
    try:
        path = urlsplit(str(url)).path
    except ValueError as e:
        raise KubeWriteRefused(f"refused {m} {url!r}: unparseable URL") from e
    segs = [unquote(s) for s in path.split("/") if s]
    if len(segs) >= 2 and segs[0] == "api":
        rest = segs[2:]
    elif len(segs) >= 3 and segs[0] == "apis":
        rest = segs[3:]
    else:
        return  # discovery, /version, /healthz, /openapi ...
    if rest and rest[0] == "watch":  # legacy /api/v1/watch/... paths
        rest = rest[1:]
    if rest and rest[0] == "proxy":  # legacy /api/v1/proxy/...
        raise KubeWriteRefused(f"refused {m} {path}: proxy requests are not reads")
    if len(rest) >= 3 and rest[0] == "namespaces":
        rest = rest[2:]
    if rest and rest[0] in _REFUSED_RESOURCES:
        raise KubeWriteRefused(f"refused {m} {path}: reading {rest[0]} is not allowed (credential contents)")
    if len(rest) >= 3 and rest[2] in _REFUSED_SUBRESOURCES:
        raise KubeWriteRefused(f"refused {m} {path}: the {rest[2]} subresource is not a read")


_guarded_pool_classes: dict[type, type] = {}
_guarded_lock = threading.Lock()


def _guarded_pool_class(cls: type) -> type:
    """A subclass of a urllib3 connection pool class that checks every request it would make.

    Only ``urlopen``/``_make_request`` are overridden, so vcrpy's class-level patches of ``ConnectionCls``,
    ``_get_conn`` and ``_new_conn`` on the base classes still apply.
    """
    with _guarded_lock:
        if cls in _guarded_pool_classes or getattr(cls, "_wd_read_only", False):
            return _guarded_pool_classes.get(cls, cls)

        def urlopen(self, method, url, *args, **kwargs):
            check_read_request(method, url)
            return super(guarded, self).urlopen(method, url, *args, **kwargs)

        def _make_request(self, conn, method, url, *args, **kwargs):
            check_read_request(method, url)
            return super(guarded, self)._make_request(conn, method, url, *args, **kwargs)

        guarded = type(
            "ReadOnly" + cls.__name__,
            (cls,),
            {"urlopen": urlopen, "_make_request": _make_request, "_wd_read_only": True, "__module__": __name__},
        )
        _guarded_pool_classes[cls] = guarded
        return guarded


_guarded_managers: dict[type, type] = {}


def _harden_pool_manager(pm: Any) -> None:
    """Make a PoolManager/ProxyManager (and every pool it will create) refuse non-read requests."""
    cls = type(pm)
    if not getattr(cls, "_wd_read_only", False):
        with _guarded_lock:
            guarded = _guarded_managers.get(cls)
            if guarded is None:

                def urlopen(self, method, url, *args, **kwargs):
                    check_read_request(method, url)
                    return super(guarded_cls, self).urlopen(method, url, *args, **kwargs)

                guarded_cls = type(
                    "ReadOnly" + cls.__name__,
                    (cls,),
                    {"urlopen": urlopen, "_wd_read_only": True, "__module__": __name__},
                )
                guarded = _guarded_managers[cls] = guarded_cls
        pm.__class__ = guarded
    pm.pool_classes_by_scheme = {k: _guarded_pool_class(v) for k, v in pm.pool_classes_by_scheme.items()}
    pm.clear()  # no pool created before hardening survives


def _kube_client():
    from kubernetes import client

    return client


def _rest_base():
    from kubernetes.client import rest

    return rest.RESTClientObject


def _api_client_base():
    from kubernetes.client import api_client

    return api_client.ApiClient


_SEAL = "_wd_sealed"


class _ReadOnlyRESTClientMixin:
    _wd_timeouts: tuple[float, float] = (CONNECT_TIMEOUT_S, READ_TIMEOUT_S)

    def request(self, method, url, headers=None, body=None, post_params=None, _request_timeout=None):
        check_read_request(method, url)
        if _request_timeout is None:
            _request_timeout = self._wd_timeouts
        return super().request(  # type: ignore[misc]
            method, url, headers=headers, body=body, post_params=post_params, _request_timeout=_request_timeout
        )

    def __setattr__(self, name, value):
        if getattr(self, _SEAL, False) and name in ("pool_manager", "request", "__class__"):
            raise KubeWriteRefused(f"refused to replace {name} of the read-only REST client")
        super().__setattr__(name, value)


def _make_rest_client_class():
    return type("ReadOnlyRESTClient", (_ReadOnlyRESTClientMixin, _rest_base()), {"__module__": __name__})


class _ReadOnlyApiClientMixin:
    def call_api(self, method, url, *args, **kwargs):
        check_read_request(method, url)
        return super().call_api(method, url, *args, **kwargs)  # type: ignore[misc]

    def __setattr__(self, name, value):
        if getattr(self, _SEAL, False) and name in ("rest_client", "call_api", "request", "__class__"):
            raise KubeWriteRefused(
                f"refused to replace {name} of the read-only ApiClient (websocket exec/attach/portforward and "
                "transport swaps are not allowed)"
            )
        super().__setattr__(name, value)


_classes: dict[str, type] = {}


def _ro_classes() -> tuple[type, type]:
    if not _classes:
        _classes["rest"] = _make_rest_client_class()
        _classes["api"] = type(
            "ReadOnlyApiClient", (_ReadOnlyApiClientMixin, _api_client_base()), {"__module__": __name__}
        )
    return _classes["rest"], _classes["api"]


def ReadOnlyRESTClient(configuration: Any, timeouts: tuple[float, float] | None = None) -> Any:  # noqa: N802
    """A ``kubernetes.client.rest.RESTClientObject`` that refuses non-reads at three layers."""
    rest_cls, _ = _ro_classes()
    rc = rest_cls(configuration)
    _harden_pool_manager(rc.pool_manager)
    if timeouts:
        object.__setattr__(rc, "_wd_timeouts", tuple(timeouts))
    object.__setattr__(rc, _SEAL, True)
    return rc


def ReadOnlyApiClient(configuration: Any, timeouts: tuple[float, float] | None = None) -> Any:  # noqa: N802
    """A ``kubernetes.client.ApiClient`` whose transport refuses anything but GET/HEAD reads."""
    _, api_cls = _ro_classes()
    ac = api_cls(configuration)
    base_rest = ac.rest_client
    object.__setattr__(ac, "rest_client", ReadOnlyRESTClient(configuration, timeouts))
    try:
        base_rest.close()
    except Exception:  # pragma: no cover
        pass
    ac.user_agent = "workload-diagnose/0.1 (read-only)"
    object.__setattr__(ac, _SEAL, True)
    return ac
