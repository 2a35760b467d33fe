"""What the lifecycle view must say for each scenario: written by hand from the seed and issue 11, shared by the
live test (real kube-apiserver) and the replay test (recorded cassettes). Nothing here is computed by the code
under test."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Expect:
    first: str | None  # first_incomplete
    status: str | None  # that phase's status
    owner: str | None
    detail_has: tuple[str, ...] = ()  # substrings of that phase's detail
    statuses: dict = field(default_factory=dict)  # other phases' required statuses
    kind: str | None = "Job"
    notes_have: tuple[str, ...] = ()
    calls_have: tuple[str, ...] = ()  # substrings of some tool call's request
    calls_lack: tuple[str, ...] = ()  # substrings no tool call's request has
    phase_has: dict = field(default_factory=dict)  # phase -> substrings of its detail or evidence texts


CASES: dict[str, Expect] = {
    "kueue-quota": Expect("Kueue admission", "active", "queue-owner",
                          ("0/1 admitted", "queue=team-a", "reason=Pending", "insufficient quota"),
                          {"Submitted": "done", "Pod scheduling": "pending"}),
    "kueue-evicted": Expect("Kueue admission", "warning", "queue-owner", ("0/1 admitted", "reason=Preempted"),
                            {"Submitted": "done"}, notes_have=("Do not retry",)),
    "pods-unscheduled": Expect("Pod scheduling", "warning", "node-pool-owner",
                               ("0/1 assigned to nodes", "Unschedulable", "Insufficient nvidia.com/gpu"),
                               {"Kueue admission": "done"}, notes_have=("quota was reserved",)),
    "dra-unallocated": Expect("DRA allocation", "warning", "node-pool-owner", ("0/1 allocated", "=allocating"),
                              {"Pod scheduling": "done"}),
    "device-plugin-pulling": Expect("Image pull", "active", "researcher", ("Pulling image",),
                                    {"Pod scheduling": "done", "DRA allocation": "skipped",
                                     "Init containers": "skipped"}),
    "image-pull-backoff": Expect("Image pull", "warning", "researcher", ("main=ImagePullBackOff",),
                                 {"DRA allocation": "skipped"}),
    "init-exit-1": Expect("Init containers", "warning", "researcher", ("0/1 complete", "exit 1"),
                          {"Image pull": "done", "Container start": "active"}),
    "crashloop": Expect("Container start", "warning", "researcher", ("0/1 started", "CrashLoopBackOff", "exit 1"),
                        {"Image pull": "done"}),
    "running-not-ready": Expect("Ready", "active", "researcher", ("0/1 pods ready",),
                                {"Container start": "done"}, notes_have=("not that training is making progress",)),
    "healthy-running": Expect(None, None, None, (),
                              {"Submitted": "done", "Kueue admission": "done", "Pod scheduling": "done",
                               "DRA allocation": "skipped", "Image pull": "done", "Init containers": "skipped",
                               "Container start": "done", "Ready": "done"},
                              calls_have=("/apis/kueue.x-k8s.io/v1beta2/",),
                              phase_has={"Kueue admission": ("ClusterQueue gpu-cq", "topology=1 domain(s)")},
                              notes_have=("not that training is making progress", "quota was reserved")),
    "rayjob-waiting-cluster": Expect("RayCluster", "active", "platform", ("waiting for KubeRay",),
                                     {"Kueue admission": "done", "RayJob status": "active"}, kind="RayJob"),
    "rayjob-failed": Expect("RayJob status", "warning", "researcher", ("Failed", "AppFailed"),
                            {"RayCluster": "done", "Pod scheduling": "done", "Ready": "done",
                             "Compute release": "active"}, kind="RayJob"),
    # KubeRay's submitter (a batch Job named after the RayJob, owned by it, running `ray job submit`): its failure
    # is the RayJob's own layer; the RayCluster's pod layers stay done
    "rayjob-submitter-image-pull": Expect("RayJob status", "warning", "researcher",
                                          ("submitter Job", "ImagePullBackOff", "deployment=Running"),
                                          {"RayCluster": "done", "Image pull": "done", "Container start": "done",
                                           "Ready": "done"}, kind="RayJob"),
    "rayjob-submitter-exit-1": Expect("RayJob status", "warning", "researcher",
                                      ("SubmissionFailed", "submitter Job", "exit 1"),
                                      {"RayCluster": "done", "Container start": "done", "Ready": "done"},
                                      kind="RayJob"),
    "rayjob-running": Expect(None, None, None, (),
                             {"RayCluster": "done", "Ready": "done", "RayJob status": "done",
                              "Compute release": "pending"}, kind="RayJob",
                             notes_have=("not that training is making progress",)),
    "rayjob-succeeded-torn-down": Expect(None, None, None, (),
                                         {"Kueue admission": "done", "RayCluster": "done", "RayJob status": "done",
                                          "Compute release": "done", "DRA allocation": "skipped"}, kind="RayJob"),
    # Kueue version discovery: the test apiserver serves both (v1beta2 preferred and storage); a Kueue ≤0.13
    # cluster serves v1beta1 only; a cluster without Kueue answers discovery with 404
    "kueue-v1beta1-cluster": Expect(None, None, None, (), {"Kueue admission": "done", "Ready": "done"},
                                    calls_have=("/apis/kueue.x-k8s.io/v1beta1/",),
                                    calls_lack=("/v1beta2/",),
                                    # v1beta1-only fields (topology domains, priorityClassName) do not survive
                                    # on this server (storage v1beta2, no conversion webhook): see
                                    # test_phase_rules for both shapes
                                    phase_has={"Kueue admission": ("ClusterQueue gpu-cq",
                                                                   "flavors=nvidia.com/gpu=h100")}),
    "kueue-not-installed": Expect(None, None, None, (), {"Kueue admission": "skipped", "Ready": "done"},
                                  calls_lack=("/workloads",),
                                  phase_has={"Kueue admission": ("Kueue is not installed",
                                                                 "queue-name=team-a label has no effect")}, notes_have=("not that training is making progress",)),
    "not-found": Expect("Submitted", "pending", "researcher", ("no batch/v1 Job or RayJob",), {}, kind=None),
}


def check(name: str, data: dict) -> None:
    """Assert a ``--json`` object against the scenario's expectation (raises AssertionError naming what differs)."""
    exp = CASES[name]
    assert data["run"]["kind"] == exp.kind, (name, data["run"])
    by = {p["name"]: p for p in data["phases"]}
    listed = ["Submitted", "Kueue admission", "RayCluster", "Pod scheduling", "DRA allocation", "Image pull",
              "Init containers", "Container start", "Ready", "RayJob status"]
    if exp.kind != "RayJob":
        listed = [n for n in listed if n not in ("RayCluster", "RayJob status")]
    assert [p["name"] for p in data["phases"] if p["name"] in listed] == listed, (name, list(by))
    assert data["first_incomplete"] == exp.first, (name, data["first_incomplete"], data["report"])
    if exp.first is None:
        assert data["layer"] is None
    else:
        p = by[exp.first]
        assert p["status"] == exp.status, (name, p)
        assert p["owner"] == exp.owner, (name, p)
        assert data["layer"] == {"name": exp.first, "owner": exp.owner, "next_action": p["next_action"]}
        assert p["next_action"], (name, p)
        for s in exp.detail_has:
            assert s in p["detail"], (name, s, p["detail"])
        assert data["report"].splitlines()[0].startswith(f"First incomplete layer: {exp.first}"), data["report"]
        # never blame a later layer: every listed phase before the first incomplete one is done or skipped
        for q in data["phases"]:
            if q["name"] == exp.first:
                break
            assert q["status"] in ("done", "skipped"), (name, q)
    for ph, st in exp.statuses.items():
        assert by[ph]["status"] == st, (name, ph, by[ph])
    for n in exp.notes_have:
        assert any(n in x for x in data["notes"]), (name, n, data["notes"])
    for p in data["phases"]:
        assert p["status"] in ("pending", "active", "done", "warning", "skipped")
        assert p["owner"] in ("researcher", "platform", "queue-owner", "node-pool-owner")
        if p["status"] in ("done", "skipped"):
            assert p["next_action"] is None
    assert data["tool_calls"] and all(c["request"].startswith("GET ") for c in data["tool_calls"])
    reqs = [c["request"] for c in data["tool_calls"]]
    for sub in exp.calls_have:
        assert any(sub in r for r in reqs), (name, sub, reqs)
    for sub in exp.calls_lack:
        assert not any(sub in r for r in reqs), (name, sub, reqs)
    if data["run"]["kind"] is not None:  # one discovery of kueue.x-k8s.io per refresh of a fresh reader
        assert sum(r == "GET /apis/kueue.x-k8s.io" for r in reqs) == 1, (name, reqs)
    for ph, subs in exp.phase_has.items():
        texts = " | ".join([by[ph]["detail"]] + [e["text"] for e in by[ph]["evidence"]])
        for sub in subs:
            assert sub in texts, (name, ph, sub, texts)
