"""A real uvicorn server (the service's own app) on a free loopback port, in a thread, and the Run:ai
simulator behind it: what the service tests and the load test talk to over real HTTP."""
from __future__ import annotations

import contextlib
import hashlib
import socket
import threading
import time
from typing import Iterator

from workload_diagnose.agent.service.config import ServiceConfig, parse_tokens


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tokens(**scopes: tuple[list[str], list[str]]) -> tuple[dict[str, str], tuple]:
    """``tokens(bot_a=(clusters, projects), …)`` → ({name: token text}, the parsed ApiTokens, hashed)."""
    texts = {name: f"wd-test-{name}-{hashlib.sha256(name.encode()).hexdigest()[:16]}" for name in scopes}
    doc = {"tokens": [{"name": n, "sha256": hashlib.sha256(texts[n].encode()).hexdigest(),
                       "clusters": c, "projects": p} for n, (c, p) in scopes.items()]}
    return texts, parse_tokens(doc)


def config_for(sim, **kw) -> ServiceConfig:
    """A service config pointing at a running simulator with its service account."""
    return ServiceConfig(runai_url=sim.url, client_id=sim.client_id, client_secret=sim.client_secret, kube="off",
                         **kw)


@contextlib.contextmanager
def live_service(config: ServiceConfig, transport=None) -> Iterator[str]:
    import uvicorn

    from workload_diagnose.agent.service.app import create_app

    port = free_port()
    from workload_diagnose.agent.service.connections import limits_for, server_config

    server = uvicorn.Server(server_config(create_app(config, transport=transport), limits_for(config),
                                          host="127.0.0.1", port=port, log_level="warning", access_log=False,
                                          lifespan="on"))  # as `serve` runs it
    t = threading.Thread(target=server.run, name=f"uvicorn-{port}", daemon=True)
    t.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not t.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the service did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        t.join(15)
