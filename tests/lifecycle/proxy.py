"""A small read-only HTTP proxy in front of the test kube-apiserver that puts back the pod fields the 1.20 server
prunes (``spec.resourceClaims``, ``status.resourceClaimStatuses``).

The scenario stores them in pod annotations (``wd.test/resourceClaims``, ``wd.test/resourceClaimStatuses``) on the
real server; the proxy copies them into the pod JSON it returns. Everything else passes through unchanged: the
client's bearer token reaches the apiserver, so authentication stays real. Only GET is forwarded; every request
is counted in ``methods``.

``discovery`` stands in for API groups the 1.20 server cannot serve as a given cluster would: ``{group: APIGroup
document}`` answers ``GET /apis/<group>`` with that document (e.g. a Kueue ≤0.13 cluster serving only v1beta1),
``{group: None}`` with a 404 (the group is not installed). Reads of the group's resources still reach the real
apiserver.
"""
from __future__ import annotations

import json
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import urllib3

ANN_CLAIMS = "wd.test/resourceClaims"
ANN_STATUSES = "wd.test/resourceClaimStatuses"


def restore_pruned(doc):
    if isinstance(doc, dict) and doc.get("kind") == "PodList":
        for p in doc.get("items") or []:
            restore_pruned(p)
    elif isinstance(doc, dict) and ("spec" in doc and "metadata" in doc):
        ann = (doc.get("metadata") or {}).get("annotations") or {}
        if ANN_CLAIMS in ann:
            doc.setdefault("spec", {})["resourceClaims"] = json.loads(ann[ANN_CLAIMS])
        if ANN_STATUSES in ann:
            doc.setdefault("status", {})["resourceClaimStatuses"] = json.loads(ann[ANN_STATUSES])
    return doc


class FieldProxy:
    def __init__(self, upstream: str, discovery: dict[str, dict | None] | None = None):
        self.upstream = upstream.rstrip("/")
        self.discovery = dict(discovery or {})
        self.pool = urllib3.PoolManager(cert_reqs=ssl.CERT_NONE)
        self.methods: list[str] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _refuse(self):
                proxy.methods.append(self.command)
                self.send_response(405)
                self.end_headers()

            do_POST = do_PUT = do_PATCH = do_DELETE = _refuse

            def do_GET(self):
                proxy.methods.append("GET")
                group = self.path.split("?")[0].removeprefix("/apis/")
                if self.path.startswith("/apis/") and group in proxy.discovery:
                    doc = proxy.discovery[group]
                    return self._answer(404 if doc is None else 200, json.dumps(
                        doc if doc is not None else {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                                     "reason": "NotFound", "code": 404}).encode(),
                                        "application/json")
                headers = {k: v for k, v in self.headers.items() if k.lower() in ("authorization", "accept")}
                r = proxy.pool.request("GET", proxy.upstream + self.path, headers=headers, preload_content=True,
                                       timeout=10)
                body = r.data
                if r.status == 200 and "/pods" in self.path.split("?")[0]:
                    try:
                        body = json.dumps(restore_pruned(json.loads(body))).encode()
                    except ValueError:
                        pass
                self._answer(r.status, body, r.headers.get("Content-Type", "application/json"))

            def _answer(self, status: int, body: bytes, ctype: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._t = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> "FieldProxy":
        self._t.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
