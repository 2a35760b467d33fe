"""/docs and /redoc on an air-gapped cluster: headless Chromium opens them from a running service, driven over the
DevTools protocol, which reports every request the page makes (Network.requestWillBeSent). Swagger UI and ReDoc
render the API (their scripts ran), and every request the page made went to the service on localhost. Whatever
else Chromium itself sends (its own update and sign-in services) goes to a local proxy that stands for the rest of
the world, so nothing leaves the machine either way. The control: FastAPI's stock /docs page, which loads Swagger
UI from a CDN, is caught by the same means."""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from fastapi.openapi.docs import get_swagger_ui_html

from tests.service.live import config_for, live_service


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name) or (f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}") else None)
        if found:
            return found
    msg = ("CHROMIUM NOT INSTALLED: `./dev system` installs it (as root: apt-get install -y chromium, as CI does)"
           ": the offline /docs test is skipped")
    if os.environ.get("WD_REQUIRE_K8S", "").strip().lower() not in ("", "0", "false", "no"):
        pytest.fail(msg + " (WD_REQUIRE_K8S is set, so this is a failure)", pytrace=False)
    sys.stderr.write(f"\n*** {msg} ***\n")
    pytest.skip(msg)


class Outside:
    """The rest of the world, as an HTTP proxy: records the target of every request (CONNECT host:port or an
    absolute URL) and refuses it."""

    def __init__(self):
        self.seen: list[str] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self._stop = False
        self.t = threading.Thread(target=self._loop, daemon=True)
        self.t.start()

    def _loop(self):
        while not self._stop:
            try:
                c, _ = self.sock.accept()
            except OSError:
                continue
            with c:
                c.settimeout(2)
                try:
                    line = c.recv(4096).split(b"\r\n", 1)[0].decode("latin-1")
                    if line:
                        self.seen.append(line)
                    c.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                except OSError:
                    pass

    def close(self):
        self._stop = True
        self.t.join(2)
        self.sock.close()


class Page:
    """One headless Chromium page under the DevTools protocol: every request it makes is recorded."""

    def __init__(self, outside: Outside, profile: Path):
        import websocket

        self.proc = subprocess.Popen(
            [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-default-apps", "--disable-dev-shm-usage", "--remote-debugging-port=0",
             f"--proxy-server=http://127.0.0.1:{outside.port}", f"--user-data-dir={profile}",
             "--window-size=1280,1600", "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        browser = None
        deadline = time.monotonic() + 60
        while browser is None:
            line = self.proc.stderr.readline()
            assert line or self.proc.poll() is None, "Chromium exited"
            if m := re.search(r"DevTools listening on (ws://\S+)", line):
                browser = m.group(1)
            assert time.monotonic() < deadline, "Chromium did not start"
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()  # keep its pipe drained
        port = browser.split(":")[2].split("/")[0]
        targets = httpx.get(f"http://127.0.0.1:{port}/json/list", timeout=10).json()
        page = next(t for t in targets if t["type"] == "page")
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30, suppress_origin=True)
        self.requests: list[str] = []
        self.blocked: dict[str, str] = {}  # url -> why the browser refused it (e.g. "csp")
        self._urls: dict[str, str] = {}
        self._id = 0
        self.call("Network.enable")
        self.call("Page.enable")

    def call(self, method: str, **params) -> dict:
        self._id += 1
        self.ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            self._event(msg)
            if msg.get("id") == self._id:
                return msg.get("result", {})

    def _event(self, msg: dict) -> None:
        if msg.get("method") == "Network.requestWillBeSent":
            self.requests.append(msg["params"]["request"]["url"])
            self._urls[msg["params"]["requestId"]] = msg["params"]["request"]["url"]
        elif msg.get("method") == "Network.loadingFailed" and msg["params"].get("blockedReason"):
            url = self._urls.get(msg["params"]["requestId"], "?")
            self.blocked[url] = msg["params"]["blockedReason"]

    def open(self, url: str, settle_s: float = 4.0) -> None:
        """Navigate, wait for the load event, then let the page's scripts fetch and render."""
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + 60
        while True:
            msg = json.loads(self.ws.recv())
            self._event(msg)
            if msg.get("method") == "Page.loadEventFired":
                break
            assert time.monotonic() < deadline, "the page did not load"
        end = time.monotonic() + settle_s
        self.ws.settimeout(0.2)
        while time.monotonic() < end:
            try:
                self._event(json.loads(self.ws.recv()))
            except Exception:  # noqa: BLE001  (a receive timeout: nothing new)
                pass
        self.ws.settimeout(30)

    def text(self, expression: str) -> str:
        return str(self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value"))

    def screenshot(self, path: Path) -> bytes:
        import base64

        data = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        path.write_bytes(data)
        return data

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            self.proc.kill()
            self.proc.wait(10)


def _off_host(requests: list[str], base: str) -> list[str]:
    """The page's requests that did not go to the service (inline data and blobs stay in the page)."""
    return [u for u in requests if not u.startswith((base + "/", "data:", "blob:"))]


@pytest.fixture(scope="module")
def docs_service(sim):
    with live_service(config_for(sim)) as url:
        yield url


def test_swagger_ui_renders_the_api_with_no_request_beyond_localhost(docs_service, tmp_path, capsys):
    outside = Outside()
    page = Page(outside, tmp_path / "profile")
    try:
        page.open(f"{docs_service}/docs")
        dom = page.text("document.documentElement.outerHTML")
        shot = tmp_path / "docs.png"
        data = page.screenshot(shot)
    finally:
        page.close()
        outside.close()
    assert "opblock" in dom and "/v1/diagnoses" in dom and "/v1/alertmanager" in dom, dom[:2000]
    assert f"{docs_service}/openapi.json" in page.requests and f"{docs_service}/docs/assets/swagger-ui-bundle.js" \
        in page.requests, page.requests
    assert _off_host(page.requests, docs_service) == []
    assert not [s for s in outside.seen if "jsdelivr" in s or "swagger.io" in s or "tiangolo" in s], outside.seen
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    with capsys.disabled():
        print(f"\n[docs] headless Chromium screenshot of /docs, offline: {shot} ({len(data):,} bytes)")


def test_redoc_renders_the_api_with_no_request_beyond_localhost(docs_service, tmp_path):
    outside = Outside()
    page = Page(outside, tmp_path / "profile")
    try:
        page.open(f"{docs_service}/redoc")
        text = page.text("document.body.innerText")
    finally:
        page.close()
        outside.close()
    assert "/v1/diagnoses" in text and "/v1/alertmanager" in text, text[:2000]
    assert f"{docs_service}/docs/assets/redoc.standalone.js" in page.requests
    # ReDoc's sidebar shows its maker's logo from cdn.redoc.ly: the page's Content-Security-Policy stops it in the
    # browser (the page works without it); nothing else is asked of any other host
    tried = _off_host(page.requests, docs_service)
    assert all(page.blocked.get(u) == "csp" for u in tried), (tried, page.blocked)
    assert all("redoc.ly" in u for u in tried), tried
    assert not [s for s in outside.seen if "redoc" in s or "fonts.g" in s or "jsdelivr" in s], outside.seen


def test_the_pages_allow_nothing_but_this_service(docs_service):
    for path in ("/docs", "/redoc", "/docs/oauth2-redirect"):
        r = httpx.get(f"{docs_service}{path}")
        csp = r.headers["content-security-policy"]
        assert r.status_code == 200 and csp.startswith("default-src 'self'; script-src 'self' 'sha256-" if path != "/redoc"
                                                       else "default-src 'self'; script-src 'self'; ")
        assert "http" not in csp and "cdn" not in r.text.lower()
    for name in ("swagger-ui-bundle.js", "swagger-ui.css", "redoc.standalone.js", "favicon.png"):
        assert httpx.get(f"{docs_service}/docs/assets/{name}").status_code == 200
    assert httpx.get(f"{docs_service}/docs/assets/..%2f..%2fpyproject.toml").status_code == 404
    assert httpx.get(f"{docs_service}/docs/assets/core.py").status_code == 404


def test_control_the_stock_cdn_page_is_caught_by_the_same_means(tmp_path):
    page_html = get_swagger_ui_html(openapi_url="/openapi.json", title="stock").body

    class H(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.end_headers()
            self.wfile.write(page_html)

        def log_message(self, *a):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{srv.server_address[1]}"
    outside = Outside()
    page = Page(outside, tmp_path / "profile")
    try:
        page.open(f"{base}/", settle_s=2.0)
    finally:
        page.close()
        outside.close()
        srv.shutdown()
        srv.server_close()
    assert any("cdn.jsdelivr.net" in u for u in _off_host(page.requests, base)), page.requests
    assert any("cdn.jsdelivr.net" in s for s in outside.seen), outside.seen  # and it never left the machine
