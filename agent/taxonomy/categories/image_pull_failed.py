"""The container image could not be pulled; the registry's error text says which fix it needs."""
from __future__ import annotations

import re

from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.record import Category, ChatWords, RecoContext, SignalRule, TriageGroup, VerdictLike

# the registry error classes, first match wins, each with the recommendation it needs
_CLASSES: tuple[tuple[str, str], ...] = (
    ("rate_limit", r"toomanyrequests|too many requests|rate limit|\b429\b"),
    ("missing_or_unauthorized", r"repository does not exist or may require"),
    ("authorization", r"unauthorized|authentication required|\bdenied\b|forbidden|\b401\b|\b403\b|"
                      r"no basic auth credentials|invalid username/password"),
    ("network", r"no such host|i/o timeout|connection refused|dial tcp|network is unreachable|tls handshake|"
                r"connection reset|server misbehaving|context deadline exceeded|temporary failure in name"),
    ("missing_manifest", r"manifest unknown|manifest for \S* ?not found|not found|name unknown|does not exist"),
    ("invalid_name", r"invalidimagename|invalid reference format"),
)
_CLASS_RX = [(name, re.compile(p)) for name, p in _CLASSES]

# Registry errors as kubelet/containerd write them, with the class (and so the recommendation) each must get
CLASS_SAMPLES: tuple[tuple[str, str], ...] = (
    # NVIDIA/nvcf#40 (NGC, containerd): an explicit authorization refusal
    ('Failed to pull image "nvcr.io/nvidia/nvcf/nvcf-openbao:2.5.4-nv-1.3.0": failed to pull and unpack image '
     '"nvcr.io/nvidia/nvcf/nvcf-openbao:2.5.4-nv-1.3.0": failed to resolve reference "nvcr.io/nvidia/nvcf/nvcf-'
     'openbao:2.5.4-nv-1.3.0": failed to authorize: failed to fetch anonymous token: unexpected status from GET '
     'request to https://nvcr.io/proxy_auth?scope=repository%3Anvidia%2Fnvcf%2Fnvcf-openbao%3Apull: 403 Forbidden',
     "authorization"),
    # NGC without an API key (containerd's oauth token exchange answered 401)
    ('Failed to pull image "nvcr.io/nvidia/pytorch:24.01-py3": rpc error: code = Unknown desc = failed to pull and '
     'unpack image "nvcr.io/nvidia/pytorch:24.01-py3": failed to resolve reference "nvcr.io/nvidia/pytorch:24.01-'
     'py3": failed to authorize: failed to fetch oauth token: unexpected status from GET request to https://nvcr.io/'
     'proxy_auth?scope=repository%3Anvidia%2Fpytorch%3Apull: 401 Unauthorized', "authorization"),
    # octarinesec/octarine-operator#15 (dockerd)
    ('Failed to pull image "octarinesec/guardrails-enforcer:20.7": rpc error: code = Unknown desc = Error response '
     'from daemon: unauthorized: authentication required', "authorization"),
    # helm/helm#12189 (ACR)
    ('Failed to pull image "smartsitealfaacr.azurecr.io/aem6.5-authbaseimage:v2": rpc error: code = Unknown desc = '
     'Error response from daemon: Head "https://smartsitealfaacr.azurecr.io/v2/aem6.5-authbaseimage/manifests/v2": '
     'unauthorized: authentication required, visit https://aka.ms/acr/authorization for more information.',
     "authorization"),
    # octarinesec/octarine-operator#15: Docker Hub cannot tell a missing repository from a private one
    ('Failed to pull image "octarinesec/guardrails-enforcer:20.7": rpc error: code = Unknown desc = Error response '
     "from daemon: pull access denied for octarinesec/guardrails-enforcer, repository does not exist or may require "
     "'docker login': denied: requested access to the resource is denied", "missing_or_unauthorized"),
    # a tag typo on NGC (containerd): the reference does not resolve; never a credential problem
    ('Failed to pull image "nvcr.io/nvidia/pytorch:24.13-py3": rpc error: code = NotFound desc = failed to pull and '
     'unpack image "nvcr.io/nvidia/pytorch:24.13-py3": failed to resolve reference "nvcr.io/nvidia/pytorch:24.13-py3":'
     ' nvcr.io/nvidia/pytorch:24.13-py3: not found', "missing_manifest"),
    ('Failed to pull image "nginx:1.25.99": rpc error: code = Unknown desc = Error response from daemon: manifest for '
     'nginx:1.25.99 not found: manifest unknown: manifest unknown', "missing_manifest"),
    # kata-containers/kata-containers#10109 and dell/csi-baremetal#391 (Docker Hub, containerd): the limit text
    # mentions authenticating, which is advice, not an authorization error
    ('Failed to pull image "busybox": rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/'
     'library/busybox:latest": failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1'
     '.docker.io/v2/library/busybox/manifests/sha256:50aa4698fa6262977cff89181b2664b99d8a56dbca847bf62f2ef04854597cf8'
     ': 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit. You may '
     'increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit', "rate_limit"),
    # red-hat-storage/ocs-ci#4494 (CRI-O)
    ('Failed to pull image "obsidiandynamics/kafdrop:latest": rpc error: code = Unknown desc = Error reading manifest '
     'latest in docker.io/obsidiandynamics/kafdrop: toomanyrequests: You have reached your pull rate limit. You may '
     'increase the limit by authenticating and upgrading: https://www.docker.com/increase-rate-limit', "rate_limit"),
    # the registry's name does not resolve from the node (cluster DNS at 10.96.0.10)
    ('Failed to pull image "registry.example/team/trainer:v1": rpc error: code = Unknown desc = failed to pull and '
     'unpack image "registry.example/team/trainer:v1": failed to resolve reference "registry.example/team/trainer:v1"'
     ': failed to do request: Head "https://registry.example/v2/team/trainer/manifests/v1": dial tcp: lookup '
     'registry.example on 10.96.0.10:53: no such host', "network"),
    # hjacobs/kube-ops-view#176 (the node's resolver)
    ('Failed to pull image "hjacobs/kube-ops-view:0.8.1": rpc error: code = Unknown desc = Error response from daemon: '
     'Get https://registry-1.docker.io/v2/: dial tcp: lookup registry-1.docker.io on 127.0.0.53:53: server '
     'misbehaving', "network"),
    # openshift/cluster-dns-operator#330 (the lookup itself timed out)
    ('Failed to pull image "image-registry.openshift-image-registry.svc:5000/openshift/tools:latest": rpc error: code '
     '= Unknown desc = pinging container registry image-registry.openshift-image-registry.svc:5000: Get "https://'
     'image-registry.openshift-image-registry.svc:5000/v2/": dial tcp: lookup image-registry.openshift-image-registry'
     '.svc on 223.5.5.5:53: read udp 10.253.25.6:33734->223.5.5.5:53: i/o timeout', "network"),
    # a pull that ran out of time is the network, not a deadline policy
    ('Failed to pull image "r.io/a:b": rpc error: code = DeadlineExceeded desc = context deadline exceeded', "network"),
)


def image_pull_class(message: str, code: int | None = None) -> str:
    """Classify a registry error message (already scrubbed) into the recommendation it needs."""
    m = message.lower()
    return next((name for name, rx in _CLASS_RX if rx.search(m)), "unspecified")


_REASONS = frozenset({"errimagepull", "imagepullbackoff", "invalidimagename", "errimageneverpull",
                      "imageinspecterror", "registryunavailable"})
RULES = (
    SignalRule("image_pull.reason_or_message", Kind.IMAGE_PULL, reasons=_REASONS, on_reason_too=True,
               message=r"\bErrImagePull\b|\bImagePullBackOff\b|\bfailed to pull (?:and unpack )?image\b|"
                       r"\bback-off pulling image\b|\bInvalidImageName\b",
               detail=image_pull_class,
               true=(("Failed", 'Failed to pull image "r.io/a:b": manifest unknown'),
                     ("ErrImagePull", "rpc error"), ("ImagePullBackOff", ""),
                     'Back-off pulling image "nvcr.io/nvidia/pytorch:24.01-py3"',
                     ("Failed", 'Failed to pull image "r.io/a:b": dial tcp: lookup r.io: no such host')),
               false=(("Pulling", 'Pulling image "r.io/errimagepull:failed-to-pull-image"'),
                      ("Scheduled", "Successfully assigned ns/pull-test to node-1"),
                      "image r.io/a:b pulled in 3s")),
    SignalRule("image_pull.failed_pull", Kind.IMAGE_PULL, reason_with=(frozenset({"failed", "backoff"}), r"pull"),
               detail=image_pull_class,
               true=(("BackOff", "Back-off while pulling the layers of r.io/a:b"),
                     ("Failed", "Error: pull access denied for r.io/a")),
               false=(("Failed", "Error: container create failed"), ("Killing", "pull completed; stopping"))),
)
_DETAILS = ("missing_manifest", "network", "authorization", "rate_limit", "missing_or_unauthorized", "invalid_name",
            "unspecified")


_PULL = {
    "missing_manifest": "The registry reports the image or tag does not exist: fix the image name/tag (check it "
                        "was pushed) and resubmit.",
    "network": "The registry could not be reached (DNS/network): check registry DNS resolution, connectivity and "
               "proxy settings from the cluster nodes.",
    "authorization": "The registry refused access: correct the registry authentication (image pull secret or "
                     "credentials attached to the project) for this image.",
    "rate_limit": "The registry is rate limiting pulls (toomanyrequests): use an authenticated pull, a mirror or a "
                  "pull-through cache, or retry after the limit resets.",
    "missing_or_unauthorized": "The registry says the repository does not exist or needs authorization: first "
                               "verify the image name, then the registry credentials.",
    "invalid_name": "The image reference is not valid: fix the image name format.",
    "unspecified": "The registry error text was not available: read the pull error (kubectl describe pod) before "
                   "changing anything; do not assume a credential problem from ImagePullBackOff alone.",
}


def recommend(c: RecoContext) -> list[str]:
    found = {s.detail for s in c.signals if s.kind == Kind.IMAGE_PULL and s.detail}
    specific = [k for k in _DETAILS if k in found and k != "unspecified"]
    return [_PULL[k] for k in (specific or ["unspecified"])]


def _tier2(v: VerdictLike) -> str | None:
    if all(s.detail in (None, "unspecified") for s in v.supporting):
        return "the registry error text"
    return None


CATEGORY = Category(
    "IMAGE_PULL_FAILED", 20, "the container image could not be pulled", recommend, pod_failure=True, rules=RULES,
    tier2_reason=_tier2, spec_lines=("Submitted image",),
    words=ChatWords(r"image|pull|registry", ("why not an image problem", "not a pull error", "the registry?"),
                    ("why not oom",)),
    triage=(
        TriageGroup("image", "image", lambda k, n: f"Fix or publish image {k} (name, tag, access) and resubmit the {n} "
                                                   "workloads that use it."),
        TriageGroup("registry_error", "registry_error",
                    lambda k, n: f"Resolve the registry error {k} (see the cited pull error) for the {n} workloads it "
                                 "stops.", line_class=image_pull_class),
    ))
