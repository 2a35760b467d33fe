"""The words clusters use for GPU hardware faults and for the kubelet's own resource decisions (admission rejections,
evictions): which NVIDIA Xid numbers are hardware faults, what each means, how monitors and device plugins write
them, and how to read the GPU, the Xid, the resource and its figures out of a message. Used by the node-failure
record (``categories/node_failure.py``); data, not decisions.

Sources: NVIDIA's Xid catalog as the device plugin, DCGM, EKS and GKE apply it, quoted in
``evals/corpora/README.md`` (the Xid table): application-class Xids (13, 31, 43, 45, 68, 109) are the NVIDIA device
plugin's default skip list (NVIDIA/k8s-device-plugin#1340); DCGM's "devastating" Xids are 48, 74, 79, 94, 95, 119,
120, 140 (NVIDIA/DCGM health module); EKS's fatal list adds 46, 54, 62, 63, 64, 136, 143, 154-158
(aws/eks-node-monitoring-agent monitors/nvidia/dcgm/dcgm_policies.go); NVLink Xids 74, 137, 144-150, 155 are
hardware only when the driver does not mark them ``Nonfatal`` (leptonai/gpud#1174, NVIDIA/NVSentinel#1357).
"""
from __future__ import annotations

import re

# Xid -> what it means (NVIDIA Xid catalog wording, shortened). Every number here is a hardware/firmware fault of
# the GPU or its links: the node's GPU needs a reset, a reboot or a replacement, not the workload's code.
XID_MEANING: dict[int, str] = {
    46: "GPU stopped processing", 48: "double-bit ECC error", 54: "auxiliary power not connected",
    62: "internal micro-controller halt", 63: "row remapping pending (GPU reset needed)",
    64: "row remapping / page retirement failure", 69: "graphics engine class error", 74: "NVLink error",
    79: "GPU has fallen off the bus", 92: "high single-bit ECC error rate", 94: "contained ECC error",
    95: "uncontained ECC error", 119: "GSP RPC timeout", 120: "GSP error", 136: "link training failed",
    137: "NVLink error", 140: "unrecovered ECC error", 143: "GPU initialization error", 144: "NVLink error",
    145: "NVLink error", 146: "NVLink error", 147: "NVLink error", 148: "NVLink error", 149: "NVLink error",
    150: "NVLink error", 154: "GPU recovery action changed (reset or reboot required)",
    155: "NVLink software-defined error", 156: "resource retirement event", 158: "GPU fatal timeout",
}
XID_HARDWARE: frozenset[int] = frozenset(XID_MEANING)
# NVLink Xids: the driver marks each Fatal or Nonfatal; a Nonfatal one alone is not a fault
XID_NVLINK: frozenset[int] = frozenset({74, 137, 144, 145, 146, 147, 148, 149, 150, 155})
# application-class Xids (the device plugin's skip list): the application's own fault, or a consequence line
XID_APPLICATION: frozenset[int] = frozenset({13, 31, 43, 45, 68, 109})

# one of the hardware Xid numbers, as a regular expression (longest first, whole number)
HW = r"(?:" + "|".join(sorted(map(str, XID_HARDWARE), key=lambda n: (-len(n), n))) + r")(?!\d)"
# where a message states an Xid number: the kernel's "Xid (PCI:0000:a1:00): 79", the device plugin's "Xid=94", EKS's
# "XID-79", DCGM/NVSentinel's "XID 95", a consequence line's "caused by previous Xid 149"
_XID_NUMBER = re.compile(r"\bXID\b(?:\s*\([^)]{0,40}\))?\s*[:=-]?\s*(\d{1,3})(?!\d)", re.IGNORECASE)
_DCGM_XID = re.compile(r"\bDCGM_FI_DEV_XID_ERRORS\b\D{0,40}?(\d{1,3})(?!\d)")  # our line of the exporter's gauge
_PCI = re.compile(r"\bPCI:\s*([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}(?:\.[0-7])?)|"
                  r"\bGPU\s*([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])", re.IGNORECASE)
_UUID = re.compile(r"\b(GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b", re.IGNORECASE)
_BARE_UUID = re.compile(r"\b([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b", re.IGNORECASE)
_INDEX = re.compile(r"\bGPU\s*[:#]?\s*(\d{1,2})\b(?![:.]\w)")
_MONITOR_MAP = re.compile(r"\{\s*(\d{1,3})\s*:\s*true")  # GKE's XidCriticalError reason {"79":true}, quotes scrubbed


def xids(message: str) -> list[int]:
    """Every Xid number the message states, in order (GKE's reason map included)."""
    found = [int(m.group(1)) for m in _XID_NUMBER.finditer(message)]
    return found + [int(n) for n in _MONITOR_MAP.findall(message)] + [int(n) for n in _DCGM_XID.findall(message)]


def gpu_of(message: str) -> str | None:
    """The GPU the message names: its PCI bus id, else its UUID, else its index, as the message writes it."""
    m = _PCI.search(message)
    if m:
        return f"PCI {m.group(1) or m.group(2)}"
    m = _UUID.search(message) or _BARE_UUID.search(message)
    if m:
        return f"UUID {m.group(1)}"
    m = _INDEX.search(message)
    return f"index {m.group(1)}" if m else None


def fields(detail: str | None) -> dict[str, str]:
    """A detail written by :func:`detail_of` back as its fields."""
    out: dict[str, str] = {}
    for part in (detail or "").split("; ")[1:]:
        k, _, v = part.partition("=")
        if v:
            out[k] = v
    return out


def detail_of(kind: str, **values: str | None) -> str:
    """``kind; key=value; ...`` (values that are missing are left out, never filled)."""
    return "; ".join([kind] + [f"{k}={v}" for k, v in values.items() if v])


def gpu_detail(message: str, code: int | None = None) -> str:
    """A GPU fault's detail: the first hardware-class Xid the message states (a consequence line's earlier Xid
    counts), what it means, and the GPU."""
    hw = [n for n in xids(message) if n in XID_HARDWARE]
    xid = hw[0] if hw else None
    return detail_of("gpu", xid=str(xid) if xid is not None else None,
                     what=XID_MEANING.get(xid) if xid is not None else _what(message), gpu=gpu_of(message))


_WHAT = (("fallen off the bus", "GPU has fallen off the bus"), ("gpu is lost", "GPU is lost"),
         ("gpu_is_lost", "GPU is lost"), ("gpuislost", "GPU is lost"),
         ("ecc_uncorrectable", "uncorrectable ECC error"), ("eccuncorrectable", "uncorrectable ECC error"),
         ("uncorrectable nvlink", "uncorrectable NVLink error"),
         ("device handle", "GPU is lost"), ("rminitadapter", "the driver failed to initialise the GPU"),
         ("reset_required", "GPU reset required"), ("uncorrectable ecc", "uncorrectable ECC error"),
         ("double bit", "double-bit ECC error"), ("nvlink", "NVLink error"), ("unhealthy", "GPU marked unhealthy"),
         ("row_remap", "row remapping failure"), ("uncontained", "uncontained ECC error"))


def _what(message: str) -> str | None:
    m = message.lower()
    return next((w for key, w in _WHAT if key in m), None)


# what a process's own output may say when the GPU under it failed (the CUDA runtime's and the driver's words): a
# log line with one of these reports a GPU fault but, being the workload's own text, never decides a verdict
_LOG_FAULT = ("fallen off the bus", "gpu is lost", "rminitadapter", "reset_required", "uncorrectable ecc",
              "double bit ecc", "uncontained ecc")


def gpu_fault_reported(line: str | None) -> str | None:
    """What GPU hardware fault a log line reports (a hardware-class Xid, or the runtime's words for a lost GPU or an
    uncorrectable ECC error), or None. Application-class Xids (13, 31, 43, 45, ...) and CUDA out-of-memory are not."""
    if not line:
        return None
    hw = [n for n in xids(line) if n in XID_HARDWARE and n not in XID_NVLINK]
    if hw:
        return f"Xid {hw[0]}: {XID_MEANING[hw[0]]}"
    low = line.lower()
    return next((w for key, w in _WHAT if key in low), None) if any(k in low for k in _LOG_FAULT) else None


# ------------------------------------------------------------------------------------ kubelet's resource words
_LOW_ON = re.compile(r"\blow on resource:\s*([\w./-]+?)\.?(?:\s|$)", re.IGNORECASE)
_THRESHOLD = re.compile(r"\bThreshold quantity:\s*([\w.]+?),\s*available:\s*(-?[\w.]+?)\.?(?:\s|$)", re.IGNORECASE)
_USING = re.compile(r"\bwas using\s+([\w.]+?),\s*(?:request is\s+([\w.]+?)[,.]|which exceeds its request of\s+"
                    r"([\w.]+?)\.?(?:\s|$))", re.IGNORECASE)
_POD_LIMIT = re.compile(r"\bephemeral local storage usage exceeds the total limit of containers\s+([\w.]+?)\.?(?:\s|$)",
                        re.IGNORECASE)
_CONTAINER_LIMIT = re.compile(r"\bexceeded its local ephemeral storage limit\b", re.IGNORECASE)
_EMPTYDIR = re.compile(r"\bUsage of EmptyDir volume\b.{0,120}\bexceeds the limit\b", re.IGNORECASE)
_CONDITION = re.compile(r"\bThe node had condition:\s*\[(\w+)\]", re.IGNORECASE)
_PRESSURE = {"memorypressure": "memory", "diskpressure": "disk", "pidpressure": "pids"}


def eviction_detail(message: str, code: int | None = None) -> str | None:
    """An eviction's resource and figures, as the kubelet wrote them (None when the message states none)."""
    if _POD_LIMIT.search(message):
        return detail_of("evicted", resource="ephemeral-storage", scope="pod limit",
                         limit=_POD_LIMIT.search(message).group(1))
    if _CONTAINER_LIMIT.search(message) or _EMPTYDIR.search(message):
        return detail_of("evicted", resource="ephemeral-storage",
                         scope="container limit" if _CONTAINER_LIMIT.search(message) else "emptyDir limit")
    low = _LOW_ON.search(message)
    cond = _CONDITION.search(message)
    if not low and not cond:
        return None
    resource = low.group(1).lower() if low else _PRESSURE.get(cond.group(1).lower(), cond.group(1))
    th, use = _THRESHOLD.search(message), _USING.search(message)
    return detail_of("evicted", resource=resource, scope="node", threshold=th.group(1) if th else None,
                     available=th.group(2) if th else None, usage=use.group(1) if use else None,
                     request=(use.group(2) or use.group(3)) if use else None,
                     condition=cond.group(1) if cond else None)


_ENOUGH = re.compile(r"\bdidn't have enough resource:\s*([\w./-]*\w)(?:,\s*requested:\s*(\d+),\s*used:\s*(\d+),\s*"
                     r"capacity:\s*(\d+))?(?:[,.]|\s|$)", re.IGNORECASE)


def rejection_detail(message: str, code: int | None = None) -> str:
    """An admission rejection's resource and the kubelet's figures (requested, used, capacity) when it states them."""
    m = _ENOUGH.search(message)
    if m:
        return detail_of("rejected", resource=m.group(1), requested=m.group(2), used=m.group(3),
                         capacity=m.group(4))
    if re.search(r"\bAllocate failed\b|\bdevices? unavailable\b|\bunhealthy devices\b", message, re.IGNORECASE):
        return detail_of("rejected", resource="device (device plugin allocation)")
    return detail_of("rejected")
