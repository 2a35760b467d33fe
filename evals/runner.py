"""Run one scenario: record it from the simulator, replay it from its cassette, or run it live."""
from __future__ import annotations

from pathlib import Path

from workload_diagnose.agent.model.result import DiagnosisResult
from workload_diagnose.evals.scenarios import REPLAY_URL, Scenario


def _kwargs(sc: Scenario) -> dict:
    a = sc.args
    kw = dict(cluster_id=a.cluster_id, workload_id=a.workload_id, workload_name=a.workload_name,
              project=a.project, intent=a.intent, lookback=a.lookback, now=a.now)
    if a.department is not None or a.max_diagnoses is not None:  # the health scope (its request's own fields)
        kw["extra"] = {"department": a.department,
                       **({"max_diagnoses": a.max_diagnoses} if a.max_diagnoses is not None else {})}
    return kw


def replay(sc: Scenario, *, cassette: Path | None = None, kube_reader=None) -> DiagnosisResult:
    from workload_diagnose.agent.api import run_procedure
    from workload_diagnose.evals.cassettes import player

    if kube_reader is None and sc.tier2:
        from workload_diagnose.evals.kubeworld import replay_reader

        kube_reader = replay_reader()
    with player().use_cassette(str(cassette or sc.cassette)):
        return run_procedure(sc.procedure, **_kwargs(sc), runai_url=REPLAY_URL, client_id="replay",
                             client_secret="replay", use_kube=kube_reader is not None, kube_reader=kube_reader,
                             retry_sleep=lambda s: None)


def live(sc: Scenario, *, delay_ms: int = 0, world: dict | None = None, kube_reader=None,
         retry_sleep=None) -> tuple[DiagnosisResult, list[tuple[str, str]]]:
    """Run against a fresh simulator serving the scenario's world; returns the result and the requests served."""
    from workload_diagnose.agent.api import run_procedure
    from workload_diagnose.evals.simulator import running_simulator

    with running_simulator(world if world is not None else sc.world, delay_ms=delay_ms) as sim:
        res = run_procedure(sc.procedure, **_kwargs(sc), runai_url=sim.url, client_id=sim.client_id,
                            client_secret=sim.client_secret, use_kube=kube_reader is not None,
                            kube_reader=kube_reader, retry_sleep=retry_sleep or (lambda s: None))
        return res, list(sim.requests)


def record(sc: Scenario, *, cassette: Path | None = None, kube_reader=None,
           kube_server: str | None = None, world: dict | None = None) -> DiagnosisResult:
    """Record from the simulator (and, for Tier 2, from the live kube-apiserver ``kube_reader`` talks to);
    ``world`` replaces the scenario's world (Tier 2: with the pod UIDs that apiserver assigned)."""
    from workload_diagnose.agent.api import run_procedure
    from workload_diagnose.evals.cassettes import recorder
    from workload_diagnose.evals.simulator import running_simulator

    path = Path(cassette or sc.cassette)
    if path.exists():
        path.unlink()
    with running_simulator(world if world is not None else sc.world) as sim:
        with recorder(path, sim.url, kube_server).use_cassette(str(path)):
            res = run_procedure(sc.procedure, **_kwargs(sc), runai_url=sim.url, client_id=sim.client_id,
                                client_secret=sim.client_secret, use_kube=kube_reader is not None,
                                kube_reader=kube_reader, retry_sleep=lambda s: None)
    if not path.exists():  # no request at all (e.g. missing parameters): an empty cassette replays that
        path.write_text("interactions: []\nversion: 1\n")
    else:
        from workload_diagnose.evals.cassettes import normalise_order

        normalise_order(path)
    return res


# ------------------------------------------------------------------------------------------ rich live runs
class _ShortReadTimeout:
    """An httpx transport that gives a short read timeout to the requests a timeout fault targets (method + path
    regex; every request when no target is given), so the client really times out on them, and only on them."""

    def __init__(self, read: float, target: tuple[str, str] | None = None):
        import re

        import httpx

        self._inner = httpx.HTTPTransport(verify=False, retries=0)
        self._read = read
        self._target = (target[0].upper(), re.compile(target[1])) if target else None

    def handle_request(self, request):
        t = self._target
        if t is None or (request.method.upper() == t[0] and t[1].search(request.url.path)):
            request.extensions["timeout"] = {"connect": 2.0, "read": self._read, "write": 2.0, "pool": 2.0}
        return self._inner.handle_request(request)

    def close(self) -> None:
        self._inner.close()


class LiveRun:
    """One diagnosis against a fresh simulator, with everything the scoreboard checks afterwards."""

    def __init__(self):
        self.result: DiagnosisResult | None = None
        self.error_kind: str | None = None  # unavailable | auth | invalid | crash
        self.error: str | None = None
        self.requests: list[tuple[str, str]] = []
        self.exchanges: list[tuple[str, str, int, bytes]] = []
        self.fired = 0
        self.secrets: list[str] = []  # the simulator's client secret and every token it issued
        self.sleeps: list[float] = []  # retry delays the client asked for (Retry-After honoured?)
        self.seconds = 0.0

    def attempt(self, diagnosis) -> None:
        """Run ``diagnosis()`` into ``result``; a fatal error or a crash is recorded instead, never raised."""
        from workload_diagnose.agent.api import ApiAuthError, ApiUnavailable, InvalidInput

        try:
            self.result = diagnosis()
        except ApiUnavailable as e:
            self.error_kind, self.error = "unavailable", str(e)
        except ApiAuthError as e:
            self.error_kind, self.error = "auth", str(e)
        except InvalidInput as e:
            self.error_kind, self.error = "invalid", str(e)
        except Exception as e:  # noqa: BLE001 - a crash is exactly what the fault matrix looks for
            self.error_kind, self.error = "crash", f"{type(e).__name__}: {e}"


def faulted_world(sc: Scenario, world: dict | None, faults: list[dict] | None,
                  read_timeout: float | None) -> tuple[dict, tuple[str, str] | None]:
    """The world to serve (``faults`` added) and the (method, path) a short read timeout targets, if any."""
    import copy
    import json

    wd = copy.deepcopy(world) if world is not None else json.loads(sc.world.read_text())
    if faults:  # on top of the world's own (a world may hold a persistent failure of its own)
        wd["faults"] = list(faults) + list(wd.get("faults") or [])
    target = None
    if read_timeout and faults:
        f = next((x for x in faults if x.get("kind") == "timeout"), None)
        target = (f.get("method", "GET"), f["path"]) if f else None
    return wd, target


def live_run(sc: Scenario, *, world: dict | None = None, faults: list[dict] | None = None,
             read_timeout: float | None = None) -> LiveRun:
    """Run ``sc`` live; ``faults`` are added to the world. Never raises: errors are recorded on the LiveRun."""
    import time

    import httpx

    from workload_diagnose.agent.api import run_procedure
    from workload_diagnose.evals.simulator import running_simulator

    wd, target = faulted_world(sc, world, faults, read_timeout)
    run = LiveRun()
    transport = (_ShortReadTimeout(read_timeout, target) if read_timeout
                 else httpx.HTTPTransport(verify=False, retries=0))
    t0 = time.perf_counter()
    with running_simulator(wd) as sim:
        run.attempt(lambda: run_procedure(sc.procedure, **_kwargs(sc), runai_url=sim.url, client_id=sim.client_id,
                                          client_secret=sim.client_secret, use_kube=False, transport=transport,
                                          retry_sleep=run.sleeps.append))
        run.seconds = time.perf_counter() - t0
        with sim.lock:
            run.requests = list(sim.requests)
            run.exchanges = list(sim.exchanges)
            run.secrets = [sim.client_secret, *sorted(sim.tokens)]
        run.fired = sim.faults.fired
    return run
