"""A GPU hardware fault that only the workload's own log reports: the advice points at the GPU, the verdict does not
move (the log is the workload's text, never a signal)."""
from workload_diagnose.agent.model.signals import Kind, Signal
from workload_diagnose.agent.taxonomy import BY_NAME, classify
from workload_diagnose.agent.taxonomy.hardware import gpu_fault_reported
from workload_diagnose.agent.taxonomy.record import RecoContext

# the CUDA runtime's and the driver's words (public: pytorch/pytorch issues quoting "CUDA error: uncorrectable ECC
# error encountered"; NVIDIA forum threads quoting "GPU has fallen off the bus"; nvidia-smi's "GPU is lost")
REPORTED = [
    "RuntimeError: CUDA error: uncorrectable ECC error encountered",
    "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",
    "Unable to determine the device handle for GPU 0000:3B:00.0: GPU is lost.  Reboot the system to recover this GPU",
    "NVRM: Xid (PCI:0000:b1:00): 48, pid=881, An uncorrectable double bit error (DBE) has been detected",
]
NOT_REPORTED = [
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "NVRM: Xid (PCI:0000:3b:00): 13, pid=77, Graphics Exception: ESR 0x404600=0x80000002",
    "NVRM: Xid (PCI:0000:3b:00): 31, pid=77, Ch 00000008, intr 00000000. MMU Fault",
    "KeyError: 'CONFIG_PATH'",
    None,
]


def test_gpu_fault_words_in_a_log_line():
    for line in REPORTED:
        assert gpu_fault_reported(line), line
    for line in NOT_REPORTED:
        assert gpu_fault_reported(line) is None, line


def _ctx(log_line, nodes=("gpu-7",)):
    exit1 = Signal(kind=Kind.APP_EXIT, source="get_workload_status", text="terminated with exit code 1", exit_code=1)
    return [exit1], RecoContext(signals=[exit1], memory_limit=None, peak=None, restart_policy=None, namespace="ns",
                                log_line=log_line, nodes=nodes)


def test_the_advice_points_at_the_gpu_and_the_verdict_stays():
    sigs, ctx = _ctx(REPORTED[0])
    verdict = classify(sigs)
    assert verdict.category == "CRASH_APP_ERROR"  # the log never decides
    recos = BY_NAME[verdict.category].recommend(ctx)
    assert "GPU hardware fault (uncorrectable ECC error)" in recos[0] and "node gpu-7" in recos[0]
    assert recos[1].startswith("Only if the GPU is healthy")
    _, plain = _ctx("KeyError: 'CONFIG_PATH'")
    assert BY_NAME["CRASH_APP_ERROR"].recommend(plain)[0].startswith("Fix the code or configuration")
