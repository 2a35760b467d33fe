"""The service's routes, one module each: a module here with ``build(caller) -> APIRouter`` is an endpoint (and
``ORDER``, where its paths stand in the OpenAPI document; modules without one come last, by name). ``ROUTERS``
lists them, found in this package; ``agent.service.app`` includes each. ``caller`` is the app's auth dependency
(it yields the request's :class:`agent.service.auth.Principal`; it is an OpenAPI security requirement only when
auth is configured). A procedure's own route is not a module to add: ``procedures.py`` makes one per spec."""
from __future__ import annotations

import importlib
import pkgutil


def _discover() -> tuple[str, ...]:
    found = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if callable(getattr(module, "build", None)):
            found.append((getattr(module, "ORDER", 1_000), info.name, module.__name__))
    return tuple(name for _, _, name in sorted(found))


ROUTERS: tuple[str, ...] = _discover()
