"""KubeReader: the four ``kubectl`` questions of the diagnose skill (Step 4), read-only and bounded, plus the
generic custom-object reads (:mod:`tools.kube.custom`)::

    kubectl describe pod <pod> -n <ns>                                   -> get_pod / find_pods
    kubectl logs <pod> -n <ns> -c <container> --previous                 -> previous_log
    kubectl get events -n <ns> --field-selector involvedObject.name=<pod> -> pod_events
    kubectl describe node <node>                                         -> get_node
    kubectl get events -A --field-selector involvedObject.kind=Node,...  -> node_events
    kubectl get --raw .../pods/<dcgm-exporter>:9400/proxy/metrics        -> tools.kube.metrics.read_gpu_health
    kubectl get <plural>.<group> [-n <ns>] [<name>] -o json              -> get_custom_object / list_custom_objects
"""
from __future__ import annotations

import contextlib
import os
import re
import threading
from pathlib import Path
from typing import Any

import urllib3

from workload_diagnose.tools.kube import plugins
from workload_diagnose.tools.kube.custom import CustomObjectReads
from workload_diagnose.tools.kube.errors import KubeError, KubeWriteRefused
from workload_diagnose.tools.kube.errors import _redacted, translate
from workload_diagnose.tools.kube.facts import (KubeEvent, LogExcerpt, NodeFacts, PodFacts, events_cmd, logs_cmd,
                                                node_events_cmd)
from workload_diagnose.tools.kube.facts import _Cleaner, _event_facts, _event_sort_key, _g, _node_facts, _pod_facts, _pod_manifest
from workload_diagnose.tools.kube.guard import CONNECT_TIMEOUT_S, READ_TIMEOUT_S, ReadOnlyApiClient, _kube_client

__all__ = ["LIST_LIMIT", "MAX_LIST_PAGES", "LOG_CHUNK_BYTES", "DEFAULT_TAIL_LINES", "DEFAULT_LIMIT_BYTES",
           "MAX_LOG_LINE_CHARS", "WORKLOAD_LABEL_KEYS", "KubeReader", "kubeconfig_for"]

LIST_LIMIT = 100
MAX_LIST_PAGES = 5  # find_pods' name-prefix fallback looks at no more than 500 pods
LOG_CHUNK_BYTES = 64 * 1024
DEFAULT_TAIL_LINES = 200
DEFAULT_LIMIT_BYTES = 262_144
MAX_LOG_LINE_CHARS = 4096
WORKLOAD_LABEL_KEYS = ("workloadName", "release", "job-name")

_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
_LABEL_VALUE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")


def _check_name(what: str, value: Any) -> str:
    if not isinstance(value, str) or not _DNS_SUBDOMAIN.match(value):
        raise KubeError("error", f"invalid {what} name {value!r} (expected a DNS-1123 name)")
    return value



def kubeconfig_for(server: str, token: str | None = None, *, ca_file: str | None = None,
                   insecure: bool = False, context: str = "wd") -> dict:
    """A minimal kubeconfig dict for ``server`` (handy for tests and cassette replay)."""
    cluster: dict[str, Any] = {"server": server}
    if ca_file:
        cluster["certificate-authority"] = str(ca_file)
    if insecure:
        cluster["insecure-skip-tls-verify"] = True
    user: dict[str, Any] = {"token": token} if token else {}
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": context, "cluster": cluster}],
        "users": [{"name": context, "user": user}],
        "contexts": [{"name": context, "context": {"cluster": context, "user": context}}],
        "current-context": context,
    }


# -------------------------------------------------------------------------------------------- reader


class KubeReader(CustomObjectReads):
    """Read-only, bounded Kubernetes evidence reader (Tier 2). Construct with :meth:`from_kubeconfig`,
    :meth:`from_url`, or ``KubeReader(api_client)`` (whose configuration is reused through a new read-only
    client; the caller's own client is left as it is)."""

    def __init__(self, api_client: Any, *, timeouts: tuple[float, float] = (CONNECT_TIMEOUT_S, READ_TIMEOUT_S)):
        if api_client is None:
            raise KubeError("unavailable", "no Kubernetes client configuration")
        import copy

        self.timeouts = (float(timeouts[0]), float(timeouts[1]))
        cfg = copy.deepcopy(api_client.configuration)  # never alter the caller's configuration
        _configure(cfg)
        ro = ReadOnlyApiClient(cfg, self.timeouts)
        for k, v in (getattr(api_client, "default_headers", None) or {}).items():
            if k.lower() != "user-agent":
                ro.default_headers[k] = v
        if getattr(api_client, "cookie", None):
            ro.cookie = api_client.cookie
        self.api_client = ro
        self._core = _kube_client().CoreV1Api(ro)
        self._bound = threading.local()  # the deadline of the diagnosis this thread reads for (bounded_by)

    # -- construction ------------------------------------------------------------------------------
    @classmethod
    def from_kubeconfig(
        cls,
        path: str | os.PathLike | dict | None = None,
        context: str | None = None,
        *,
        server: str | None = None,
        timeouts: tuple[float, float] = (CONNECT_TIMEOUT_S, READ_TIMEOUT_S),
    ) -> "KubeReader":
        """Load a kubeconfig file (or dict). ``path=None`` means ``$KUBECONFIG`` / ``~/.kube/config``.
        ``server`` overrides the cluster URL (e.g. to replay a cassette recorded against another port).
        A missing or unusable kubeconfig raises ``KubeError('unavailable')``, and so does one whose user runs a
        credential plugin (``exec``, ``auth-provider``) unless ``WD_KUBE_ALLOW_EXEC=1`` (:mod:`tools.kube.plugins`):
        nothing is run before that check."""
        import copy

        import yaml
        from kubernetes.config import kube_config

        cfg = _kube_client().Configuration()
        try:
            if isinstance(path, dict):
                doc, base = copy.deepcopy(path), ""
            else:
                if path is None:
                    env = os.environ.get("KUBECONFIG", "")
                    path = env.split(os.pathsep)[0] if env else str(Path.home() / ".kube" / "config")
                p = Path(path)
                if not p.is_file():
                    raise KubeError("unavailable", f"no kubeconfig at {p}")
                doc, base = yaml.safe_load(p.read_text()), str(p.resolve().parent)
            if not isinstance(doc, dict):
                raise KubeError("unavailable", "unusable kubeconfig: not a mapping")
            if refused := plugins.refusal(doc, context):
                raise KubeError("unavailable", refused)
            if server:
                # In the document, not on the Configuration: the loader's token-refresh hook re-applies the
                # kubeconfig's server before every request.
                _override_server(doc, context, server.rstrip("/"))
            loader = kube_config.KubeConfigLoader(config_dict=doc, active_context=context, config_base_path=base)
            loader.load_and_set(cfg)
        except KubeError:
            raise
        except Exception as e:  # ConfigException, YAML errors, missing context ...
            # first line only: YAML errors quote the offending line, which may hold a token
            first = (str(e).strip().splitlines() or [""])[0][:200]
            raise KubeError("unavailable", f"unusable kubeconfig: {type(e).__name__}: {_redacted(first)}") from e
        return cls(_kube_client().ApiClient(cfg), timeouts=timeouts)

    @classmethod
    def from_url(
        cls,
        server: str,
        token: str | None = None,
        *,
        ca_file: str | None = None,
        verify_ssl: bool = True,
        timeouts: tuple[float, float] = (CONNECT_TIMEOUT_S, READ_TIMEOUT_S),
    ) -> "KubeReader":
        """A reader for ``server`` with an optional bearer token (no kubeconfig file needed)."""
        return cls.from_kubeconfig(
            kubeconfig_for(server, token, ca_file=ca_file, insecure=not verify_ssl), timeouts=timeouts
        )

    def close(self) -> None:
        try:
            self.api_client.close()
        except Exception:  # pragma: no cover
            pass

    def __enter__(self) -> "KubeReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    _check_name = staticmethod(_check_name)  # the custom-object reads (tools.kube.custom) validate with it

    @property
    def server(self) -> str:
        return self.api_client.configuration.host

    # -- reads -------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def bounded_by(self, deadline: Any):
        """Inside the block, this thread's reads end by ``deadline`` (a ``tools.deadline.Deadline``, the one of
        the diagnosis's Run:ai reads) as well: each read's timeouts are cut to the time left, and once none is left
        a read fails at once as a KubeError (a limitation), not after its own timeout."""
        prev = getattr(self._bound, "deadline", None)
        self._bound.deadline = deadline
        try:
            yield self
        finally:
            self._bound.deadline = prev

    def read_timeouts(self, what: str) -> tuple[float, float]:
        """(connect, read) timeouts for a read made on this reader's client by another module (the dcgm-exporter
        reads): its own, cut to the time left of the deadline it is bounded by (:meth:`bounded_by`)."""
        return self._timeouts(what)

    def _timeouts(self, what: str) -> tuple[float, float]:
        deadline = getattr(self._bound, "deadline", None)
        left = deadline.remaining() if deadline is not None else None
        if left is None:
            return self.timeouts
        if left <= 0.001:
            raise KubeError("error", deadline.stopped(f"{what} (Tier 2)"))
        return (min(self.timeouts[0], left), min(self.timeouts[1], left))

    def _call(self, what: str, fn, *args, **kwargs):
        kwargs.setdefault("_request_timeout", self._timeouts(what))
        try:
            return fn(*args, **kwargs)
        except KubeWriteRefused:
            raise
        except Exception as e:
            raise translate(e, what) from e

    def namespace_exists(self, ns: str) -> bool:
        _check_name("namespace", ns)
        try:
            self._call(f"read namespace {ns}", self._core.read_namespace, ns)
            return True
        except KubeError as e:
            if e.kind == "not_found":
                return False
            raise

    def get_pod(self, ns: str, name: str) -> PodFacts:
        _check_name("namespace", ns)
        _check_name("pod", name)
        pod = self._call(f"read pod {ns}/{name}", self._core.read_namespaced_pod, name, ns)
        return self._facts(pod)

    def _facts(self, pod: Any) -> PodFacts:
        pf = _pod_facts(pod)
        pf.manifest = _pod_manifest(self.api_client, pod)
        return pf

    def _list_pods(self, ns: str, what: str, label_selector: str | None = None, pages: int = 1) -> list[Any]:
        items: list[Any] = []
        cont: str | None = None
        for _ in range(pages):
            kw: dict[str, Any] = {"limit": LIST_LIMIT}
            if label_selector:
                kw["label_selector"] = label_selector
            if cont:
                kw["_continue"] = cont
            res = self._call(what, self._core.list_namespaced_pod, ns, **kw)
            items.extend(_g(res, "items") or [])
            md = _g(res, "metadata")
            cont = _g(md, "_continue") or _g(md, "var_continue") or None
            if not cont:
                break
        return items

    def find_pods(self, ns: str, workload_name: str) -> list[PodFacts]:
        """Pods of a workload: the first of ``workloadName=``, ``release=``, ``job-name=`` label selectors that
        matches, else pods named ``<workload_name>-*``. Bounded: 100 pods per selector, 500 for the fallback.
        Sorted by pod name."""
        _check_name("namespace", ns)
        if not isinstance(workload_name, str) or not workload_name:
            raise KubeError("error", f"invalid workload name {workload_name!r}")
        if _LABEL_VALUE.match(workload_name):
            for key in WORKLOAD_LABEL_KEYS:
                items = self._list_pods(ns, f"list pods {ns} {key}={workload_name}", f"{key}={workload_name}")
                if items:
                    return sorted((self._facts(p) for p in items), key=lambda p: p.name)
        prefix = workload_name + "-"
        items = self._list_pods(ns, f"list pods {ns}", None, pages=MAX_LIST_PAGES)
        found = [p for p in items if str(_g(_g(p, "metadata"), "name", "")).startswith(prefix)]
        return sorted((self._facts(p) for p in found), key=lambda p: p.name)

    def previous_log(
        self,
        ns: str,
        pod: str,
        container: str,
        tail_lines: int | None = DEFAULT_TAIL_LINES,
        limit_bytes: int = DEFAULT_LIMIT_BYTES,
        previous: bool = True,
    ) -> LogExcerpt:
        """The (previous) log of one container: last ``tail_lines`` lines, at most ``limit_bytes`` bytes.

        The response is streamed and read in chunks of at most 64 KiB; reading stops after ``limit_bytes + 1``
        bytes even when the server ignores ``limitBytes``/``tailLines``, and the connection is then closed
        without draining the rest."""
        _check_name("namespace", ns)
        _check_name("pod", pod)
        _check_name("container", container)
        if not isinstance(limit_bytes, int) or limit_bytes <= 0:
            raise KubeError("error", f"limit_bytes must be a positive int, not {limit_bytes!r}")
        kw: dict[str, Any] = {
            "container": container,
            "previous": bool(previous),
            "limit_bytes": limit_bytes,
            "_preload_content": False,
        }
        if tail_lines is not None:
            kw["tail_lines"] = int(tail_lines)
        what = f"read log {ns}/{pod}/{container}" + (" (previous)" if previous else "")
        resp = self._call(what, self._core.read_namespaced_pod_log, pod, ns, **kw)
        buf = bytearray()
        try:
            while len(buf) <= limit_bytes:
                chunk = resp.read(min(LOG_CHUNK_BYTES, limit_bytes + 1 - len(buf)))
                if not chunk:
                    break
                buf += chunk
        except Exception as e:
            raise translate(e, what) from e
        finally:
            _close_quietly(resp)
        bytes_read = len(buf)
        truncated = bytes_read >= limit_bytes
        text = bytes(buf[:limit_bytes]).decode("utf-8", errors="replace")
        lines = text.splitlines()
        if tail_lines is not None and tail_lines >= 0 and len(lines) > tail_lines:
            lines = lines[len(lines) - tail_lines:] if tail_lines else []
            truncated = True
        lines = [ln if len(ln) <= MAX_LOG_LINE_CHARS else ln[:MAX_LOG_LINE_CHARS] + " …[line truncated]"
                 for ln in lines]
        source = logs_cmd(ns, pod, container, previous)
        clean = _Cleaner(source)
        cleaned = clean("\n".join(lines)) if lines else ""
        out_lines = cleaned.split("\n") if lines else []
        return LogExcerpt(
            pod=pod,
            namespace=ns,
            container=container,
            previous=bool(previous),
            lines=out_lines,
            bytes_read=bytes_read,
            truncated=truncated,
            source=source,
            injections=clean.injections,
        )

    def pod_events(self, ns: str, pod: str, limit: int = LIST_LIMIT) -> list[KubeEvent]:
        """Events whose involvedObject.name is ``pod`` (one page of at most ``limit``), sorted by
        (last_timestamp, reason, first_timestamp, message, name)."""
        _check_name("namespace", ns)
        _check_name("pod", pod)
        res = self._call(
            f"list events {ns} involvedObject.name={pod}",
            self._core.list_namespaced_event,
            ns,
            field_selector=f"involvedObject.name={pod}",
            limit=max(1, min(int(limit), 500)),
        )
        events = [_event_facts(ev, events_cmd(ns, pod)) for ev in (_g(res, "items") or [])]
        return sorted(events, key=_event_sort_key)

    def node_events(self, node: str, limit: int = LIST_LIMIT) -> list[KubeEvent]:
        """Events about one Node, in every namespace (where the kubelet, node-problem-detector and GPU health
        monitors write them; what ``kubectl describe node`` lists), one page of at most ``limit``, sorted like
        :meth:`pod_events`."""
        _check_name("node", node)
        res = self._call(
            f"list events involvedObject.kind=Node,involvedObject.name={node}",
            self._core.list_event_for_all_namespaces,
            field_selector=f"involvedObject.kind=Node,involvedObject.name={node}",
            limit=max(1, min(int(limit), 500)),
        )
        events = [_event_facts(ev, node_events_cmd(node)) for ev in (_g(res, "items") or [])]
        return sorted(events, key=_event_sort_key)

    def get_node(self, name: str) -> NodeFacts:
        _check_name("node", name)
        node = self._call(f"read node {name}", self._core.read_node, name)
        return _node_facts(node)


def _override_server(doc: dict, context: str | None, server: str) -> None:
    name = context or doc.get("current-context")
    ctx = next((c for c in doc.get("contexts") or [] if c.get("name") == name), None)
    if not ctx:
        raise KubeError("unavailable", f"unusable kubeconfig: no context {name!r}")
    cname = (ctx.get("context") or {}).get("cluster")
    cl = next((c for c in doc.get("clusters") or [] if c.get("name") == cname), None)
    if not cl:
        raise KubeError("unavailable", f"unusable kubeconfig: no cluster {cname!r}")
    cl.setdefault("cluster", {})["server"] = server


def _configure(cfg: Any) -> None:
    """Bounded retries: one reconnect attempt; reads, statuses and redirects are never retried (a hung server
    costs one read timeout, not several)."""
    cfg.retries = urllib3.util.Retry(total=1, connect=1, read=0, redirect=0, status=0, other=0, raise_on_status=False)
    if hasattr(cfg, "client_go_retries"):
        cfg.client_go_retries = False


def _close_quietly(resp: Any) -> None:
    for m in ("close", "release_conn"):
        try:
            getattr(resp, m)()
        except Exception:
            pass
