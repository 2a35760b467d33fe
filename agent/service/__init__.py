"""The HTTP service (``workload-diagnose serve``) and the MCP server (``workload-diagnose mcp``) for support bots.

* ``config.py``   the service's settings, read once from the environment (auth mode, API tokens, limits)
* ``app.py``      ``create_app(config)``: the FastAPI app, its middleware and routers (``routes/``: one file each)
* ``models.py``   the request body (``extra="forbid"``, the CLI's validators) and the error bodies
* ``auth.py``     who is calling: service-account API tokens scoped to clusters/projects, or pass-through
* ``upstream.py`` one Run:ai connection pool and token cache per process; a per-request source over it
* ``runner.py``   one diagnosis in the bounded thread pool (the graph is synchronous)
* ``limits.py``   request body size (413), concurrency (429 + Retry-After)
* ``metrics.py``  Prometheus: diagnoses by outcome/category, latency, upstream errors
* ``sse.py``      ``Accept: text/event-stream``: one progress event per tool call, then the result
* ``errors.py``   one-line JSON errors: 422 field errors, the product's failures (``agent.entrypoints.errors``)
* ``mcp.py``      the MCP server's read-only tools over the same runner

Heavy imports (fastapi, uvicorn, mcp) stay inside this package so ``workload-diagnose --help`` stays fast.
"""
