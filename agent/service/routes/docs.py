"""``GET /docs`` (Swagger UI) and ``GET /redoc`` (ReDoc) that work on an air-gapped cluster: their scripts and
styles are the ones bundled in the ``fastapi-offline`` package (a runtime dependency), served by this service under
``/docs/assets/``, never a CDN's. Each page carries a Content-Security-Policy that lets the browser load nothing
from anywhere but this service (its one inline script allowed by hash), so a page that tried would be stopped
by the browser, not only by the network. No token is needed to read the pages; "Authorize" in Swagger UI takes
an API token for the calls made from it.
"""
from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path
from typing import Any, Callable

from fastapi import APIRouter, HTTPException, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import FileResponse, HTMLResponse

ORDER = 90
ASSETS = {"swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css",
          "redoc.standalone.js": "text/javascript", "favicon.png": "image/png"}
PREFIX = "/docs/assets"
OAUTH2_REDIRECT = "/docs/oauth2-redirect"
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)


def _asset_dir() -> Path:
    import fastapi_offline

    return Path(fastapi_offline.__file__).parent / "static"


def csp(html: str) -> str:
    """This service only: scripts from it (and the page's own inline script, by its hash), styles from it (inline
    ones too: Swagger UI and ReDoc set element styles), images and fonts from it or inline, fetches to it."""
    scripts = " ".join(["'self'"] + ["'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'"
                                     for s in _INLINE_SCRIPT.findall(html)])
    return (f"default-src 'self'; script-src {scripts}; style-src 'self' 'unsafe-inline'; "
            "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; "
            "frame-ancestors 'none'; base-uri 'none'; form-action 'none'")


def _page(html: HTMLResponse) -> HTMLResponse:
    body = bytes(html.body).decode()
    return HTMLResponse(body, headers={"Content-Security-Policy": csp(body), "X-Content-Type-Options": "nosniff",
                                       "Referrer-Policy": "no-referrer"})


def build(caller: Callable[..., Any]) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/docs")
    async def swagger(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        return _page(get_swagger_ui_html(
            openapi_url=f"{root}{request.app.openapi_url}", title=f"{request.app.title} - Swagger UI",
            oauth2_redirect_url=f"{root}{OAUTH2_REDIRECT}", swagger_js_url=f"{root}{PREFIX}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{PREFIX}/swagger-ui.css", swagger_favicon_url=f"{root}{PREFIX}/favicon.png",
            swagger_ui_parameters={"validatorUrl": None}))  # no badge from validator.swagger.io

    @router.get(OAUTH2_REDIRECT)
    async def oauth2_redirect() -> HTMLResponse:
        return _page(get_swagger_ui_oauth2_redirect_html())

    @router.get("/redoc")
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        return _page(get_redoc_html(
            openapi_url=f"{root}{request.app.openapi_url}", title=f"{request.app.title} - ReDoc",
            redoc_js_url=f"{root}{PREFIX}/redoc.standalone.js", redoc_favicon_url=f"{root}{PREFIX}/favicon.png",
            with_google_fonts=False))

    @router.get(PREFIX + "/{name}")
    async def asset(name: str) -> FileResponse:
        if name not in ASSETS:  # a fixed list: no path reaches any other file
            raise HTTPException(404, "Not Found")
        return FileResponse(_asset_dir() / name, media_type=ASSETS[name],
                            headers={"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"})

    return router
