"""Serve a recorded cassette's Kubernetes responses over HTTP (any number of times), for tests that run the
command in another process (a pseudo-terminal for --watch). The client side is the real kubernetes client."""
from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import yaml


class ReplayServer:
    def __init__(self, cassette: Path, routes=None):
        """``routes(path)`` may answer a request first: ``(status, body bytes, content type)`` or None."""
        doc = yaml.safe_load(cassette.read_text())
        self.answers: dict[str, tuple[int, bytes]] = {}
        for it in doc["interactions"]:
            u = urlsplit(it["request"]["uri"])
            key = u.path + ("?" + u.query if u.query else "")
            body = it["response"]["body"]["string"]
            self.answers[key] = (it["response"]["status"]["code"], body.encode() if isinstance(body, str) else body)
        self.requests: list[str] = []
        srv = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                srv.requests.append("GET " + self.path)
                ctype = "application/json"
                hit = routes(self.path) if routes else None
                if hit is not None:
                    status, body, ctype = hit
                else:
                    status, body = srv.answers.get(self.path, (404, b'{"kind":"Status","code":404}'))
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _refuse(self):
                srv.requests.append(self.command + " " + self.path)
                self.send_response(405)
                self.end_headers()

            do_POST = do_PUT = do_PATCH = do_DELETE = _refuse

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
