# The image deploy/kubernetes runs: `workload-diagnose serve`, built from this repository alone.
#
#   docker build -t workload-diagnose:0.1.0 .                                   # base and run-profile overlays
#   docker build --build-arg EXTRAS=postgres -t workload-diagnose:0.1.0-postgres .   # the postgres overlay
#
# EXTRAS: the package's extras to install, comma-separated (postgres, slack, llm). The image runs as UID/GID
# 10001 with no shell needed at run time, writes nothing outside HOME=/tmp (the Deployment mounts an emptyDir
# there and keeps the root filesystem read-only) and writes no byte code.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS wheel
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY workload_diagnose ./workload_diagnose
COPY agent ./agent
COPY tools ./tools
COPY guardrails ./guardrails
COPY evals ./evals
COPY docs ./docs
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM ${PYTHON_IMAGE}
ARG EXTRAS=""
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HOME=/tmp \
    TMPDIR=/tmp \
    PATH=/opt/workload-diagnose/bin:$PATH
COPY --from=wheel /wheels /wheels
RUN python -m venv /opt/workload-diagnose \
    && set -- /wheels/workload_diagnose-*.whl \
    && /opt/workload-diagnose/bin/pip install --no-cache-dir "$1${EXTRAS:+[$EXTRAS]}" \
    && rm -rf /wheels \
    && /opt/workload-diagnose/bin/workload-diagnose --help > /dev/null
USER 10001:10001
WORKDIR /tmp
EXPOSE 8080
ENTRYPOINT ["workload-diagnose"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
