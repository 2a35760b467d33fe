"""The node failed the pod: it went NotReady / was lost / shut down, its GPU failed (an NVIDIA Xid hardware fault,
a GPU fallen off the bus, an uncorrectable ECC error, a device the device plugin or a health monitor marked
unhealthy), the kubelet evicted the pod (memory, disk or ephemeral-storage pressure, an ephemeral-storage limit) or
rejected it at admission (``OutOfmemory``, ``OutOfcpu``, ``UnexpectedAdmissionError``): the node's side, never
the container's own OOM kill and never, by itself, the application's code.

A GPU hardware fault explains the application's exit (``explains``): the CUDA error, out-of-memory or NCCL
watchdog line a rank printed when its GPU failed is the symptom, so the fault is the strongest direct signal. An
admission rejection overrides the OOM reading of its own line (``overrides_on_line``): the kubelet's reason
``OutOfmemory`` means no container ran, not that one was killed. Which Xids are hardware: ``agent.taxonomy.hardware``.
"""
from __future__ import annotations

from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy import hardware as hw
from workload_diagnose.agent.taxonomy.record import Category, ChatWords, RecoContext, SignalRule, TriageGroup

GPU_FAULT = Kind("gpu_fault")  # a GPU hardware fault of the node (Xid, fallen off the bus, ECC, unhealthy device)
REJECTED = Kind("node_rejected")  # the kubelet rejected the pod at admission (nothing ran)

_NODE = SignalRule(
    "node.reason_or_message", Kind.NODE_FAILURE, on_reason_too=True, detail=hw.eviction_detail,
    reasons=frozenset({"evicted", "taintmanagereviction", "nodenotready", "nodelost", "nodeshutdown",
                       "nodenotschedulable", "nodeunreachable", "deletingnode", "removingnode",
                       "terminatedbynodeshutdown"}),
    message=r"\bnode\b.{0,80}\b(?:not ?ready|notready|unreachable|lost|shut ?down|was terminated)\b|"
            r"\bNodeNotReady\b|\bTaintManagerEviction\b|\bevict(?:ed|ing)\b.{0,60}\bnode\b|"
            r"\bnode\b.{0,60}\bevict|\bwas low on resource\b|\bThe node had condition:\s*\[\w*Pressure\]|"
            r"\bephemeral local storage usage exceeds the total limit\b|"
            r"\bexceeded its local ephemeral storage limit\b|\bUsage of EmptyDir volume\b.{0,120}\bexceeds the limit\b|"
            # Ray's control plane: the raylet's node stopped heartbeating (NODE_DIED)
            r"\bthe node it was running on is dead or unavailable\b",
    # the scheduler listing the taints of OTHER nodes it could not use is a scheduling wait, not this pod's node
    unless=r"\bnodes are available\b|\bhad (?:untolerated )?taint\b",
    true=(("NodeNotReady", "Node gpu-1 status is now: NodeNotReady"),
          ("Evicted", "The node was low on resource: memory."), ("TaintManagerEviction", ""),
          "Pod was evicted because the node gpu-3 is unreachable", "node gpu-1 was shut down",
          # openshift/release#76967 (current kubelet wording: threshold, available, usage vs request)
          ("Evicted", "The node was low on resource: memory. Threshold quantity: 100Mi, available: 87608Ki. Container "
                      "dptp-controller-manager was using 48458972Ki, request is 15Gi, has larger consumption of "
                      "memory."),
          # kubernetes/kubernetes#91600 (node disk: ephemeral-storage, older wording)
          "The node was low on resource: ephemeral-storage. Container ebaogi-bff-app was using 34260Ki, which "
          "exceeds its request of 0.",
          # kubernetes/kubernetes#122160 (the pod's own ephemeral-storage limit)
          "Pod ephemeral local storage usage exceeds the total limit of containers 5Mi.",
          # cloud-ark/kubeplus#1389 (a container's ephemeral-storage limit)
          'Container consumerui exceeded its local ephemeral storage limit "20Mi".',
          # paritytech/Nomidot#306 (admission under node pressure)
          "Pod The node had condition: [MemoryPressure].",
          # ray-project/ray#58638 (NODE_DIED; "preempted" is listed only as a possibility, never this workload's)
          "Task failed because the node it was running on is dead or unavailable. Node IP: 127.0.0.1, node ID: "
          "e55b8ca03ebf3f7418f51533d8d55abeaab75fa9b29e2e6282b47646. This can happen if the node was preempted, had a "
          "hardware failure, or its raylet crashed unexpectedly."),
    false=(("Scheduled", "Successfully assigned ns/p to node-notready-pool-1"),
           "the trainer evaluated 3 checkpoints", ("Killing", "Stopping container trainer"),
           ("FailedScheduling", "0/4 nodes are available: 4 node(s) had untolerated taint {node.kubernetes.io/"
                                "disk-pressure: }."),
           ("FailedScheduling", "0/3 nodes are available: 3 node(s) had untolerated taint {node.kubernetes.io/"
                                "unreachable: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful."),
           "ephemeral-storage request 10Gi, limit 20Gi",
           # hkust-nlp/simpleRL-reason#98: Ray's worker process died (its node did not)
           "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: "
           "Worker unexpectedly exits with a connection error code 2. End of file."))

# kubelet admission: the node could not take the pod (a placement race or the device plugin's bookkeeping)
_REJECTED = SignalRule(
    "node.admission_rejected", REJECTED, on_reason_too=True, detail=hw.rejection_detail,
    overrides_on_line=frozenset({Kind.OOM}),
    reasons=frozenset({"outofmemory", "outofcpu", "outofpods", "outofephemeral-storage", "outofnvidia.com/gpu",
                       "unexpectedadmissionerror"}),
    message=r"^\s*OutOf[\w./-]+\s|\bPod was rejected\b|\bNode didn't have enough resource\b|"
            r"\bAllocate failed due to\b",
    true=(# gitpod-io/gitpod#8463 (older wording, no "was rejected")
          ("OutOfmemory", "Pod Node didn't have enough resource: memory, requested: 2097152000, used: 65865462583, "
                          "capacity: 66388008960"),
          # red-hat-storage/ocs-ci#12362
          ("OutOfcpu", "Pod was rejected: Node didn't have enough resource: cpu, requested: 150, used: 11388, "
                       "capacity: 11500"),
          # Project-HAMi/HAMi#596
          ("UnexpectedAdmissionError", "Allocate failed due to requested number of devices unavailable for "
                                       "nvidia.com/gpu. Requested: 1, Available: 0, which is unexpected"),
          ("OutOfnvidia.com/gpu", "Node didn't have enough resource: nvidia.com/gpu, requested: 1, used: 8, "
                                  "capacity: 8"),
          "Pod was rejected: Node didn't have enough resource: memory"),
    false=(("FailedScheduling", "0/8 nodes are available: 8 Insufficient memory."),
           ("OOMKilled", "Container trainer was OOM killed"), "Container trainer was OOM killed",
           ("Started", "Started container outofmemory-probe")))

# what a GPU fault of the node explains: the exit of a container that used the GPU, an init container's included
# (a GPU check that fails on a GPU the driver could not initialise, NVIDIA/gpu-operator#1146)
_GPU = dict(explains=frozenset({Kind.APP_EXIT, Kind.INIT_FAILED}), detail=hw.gpu_detail)

# a hardware-class Xid in the words of the kernel (NVRM), the device plugin, EKS, DCGM/NVSentinel and dcgm-exporter
_XID = SignalRule(
    "gpu.xid_hardware", GPU_FAULT, **_GPU, on_reason_too=True,
    reasons=frozenset(f"nvidiaxid{n}error" for n in hw.XID_HARDWARE),
    message=rf"\bXid\s*\([^)]{{0,40}}\)\s*:\s*{hw.HW}|\bXid\s*[=:-]?\s*{hw.HW}|\bcaused by previous Xid\s*{hw.HW}|"
            rf"\bDCGM_FI_DEV_XID_ERRORS\b\D{{0,40}}\b{hw.HW}",
    unless=r"\bNonfatal\b",  # a driver-marked Nonfatal NVLink Xid alone is not a fault (leptonai/gpud#1174)
    true=(# akash-network/support#209
          "NVRM: Xid (PCI:0000:a1:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
          # NVIDIA/gpu-operator#1146
          "NVRM: Xid (PCI:0000:07:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) "
          "has been detected on GPU in the framebuffer at physAddr 0x7fffa8860 partition 7, subpartition 1.",
          "NVRM: Xid (PCI:0000:07:00): 64, pid='<unknown>', name=<unknown>, Dynamic Page Retirement: Blacklisting "
          "failed.  Page should have been blacklisted on boot(0x00000000007fffa8).",
          # akash-network/support#244
          "NVRM: Xid (PCI:0000:00:08): 94, pid='<unknown>', name=<unknown>, Contained: SM (0x1). RST: No, D-RST: No",
          "I0809 13:32:51.873541       1 health.go:185] XidCriticalError: Xid=94 on Device=GPU-3b6ec030-5adc-1847-"
          "e155-79f635584b4e; marking device as unhealthy.",
          # NVIDIA/open-gpu-kernel-modules#446 and vllm-project/vllm#40652 (GSP)
          "NVRM: Xid (PCI:0000:61:00): 119, pid=1346198, name=nvidia-smi, Timeout waiting for RPC from GSP! "
          "Expected function 103 (GSP_RM_ALLOC) (0x80 0x38).",
          # NVIDIA/open-gpu-kernel-modules#1150: the consequence line names the real Xid
          "kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149",
          # leptonai/gpud#1174 (Fatal NETIR)
          "NVRM: Xid (PCI:0019:01:00): 149, NETIR Fatal XC0 i0 Link -1 (0x000fe406 0x00000000 0x00000000 0x00000000 "
          "0x00000000 0x00000000)",
          # stas00/ml-engineering compute/accelerator/nvidia/debug.md
          "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.",
          # NVIDIA/nccl#2241 (PCI redacted by the reporter)
          "kernel: NVRM: Xid (PCI:...): 137, RLW_RXPIPE interrupt hit on link 11 on GPU0: PRIV Error",
          # aws/eks-node-monitoring-agent pkg/reasons (NvidiaXID%dError) and dcgm_policies.go message
          ("NvidiaXID79Error", "detected XID-79 on the instance, review kernel logs for additional information."),
          # NVIDIA/NVSentinel#714
          "GPU had an uncontained error (XID 95) Drain the GPU and reset it or reboot the node.",
          "dcgm-exporter on node gpu-7: GPU 3 DCGM_FI_DEV_XID_ERRORS (last Xid) = 79"),
    false=(# leptonai/gpud#46, akash-network/support#244, kubernetes-sigs/dra-driver-nvidia-gpu#904: app-class Xids
           "NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC "
           "7, SM 0): Illegal Instruction Parameter",
           "NVRM: Xid (PCI:0000:00:07): 31, pid=2512125, name=python3.10, Ch 00000008, intr 00000000. MMU Fault: "
           "ENGINE GRAPHICS GPCCLIENT_T1_8 faulted @ 0x73ac_1c000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE",
           "NVRM: Xid (PCI:0000:00:05): 43, pid=1045242, name=pt_main_thread, Ch 00000008",
           "[1231741.378609] NVRM: Xid (PCI:0009:01:00): 43, pid=3188489, name=trigger_xid, channel 0x0b00000a",
           # pytorch/pytorch#74235 (109 is on the device plugin's skip list)
           "NVRM: Xid (PCI:0000:01:00): 109, pid=4124, name=python, Ch 00000028, errorString CTX SWITCH TIMEOUT, "
           "Info 0x2c014",
           # NVIDIA/nccl#2241, leptonai/gpud#1174: a Nonfatal NVLink Xid alone
           "kernel: NVRM: Xid (PCI:...): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 11 (...)",
           ("NvidiaXID13Warning", "detected unknown XID-13 on the instance, review kernel logs for additional "
                                  "information."),
           "dcgm-exporter on node gpu-7: GPU 3 DCGM_FI_DEV_XID_ERRORS (last Xid) = 31",
           "NVRM: Xid (PCI:0000:3b:00): 131, pid=1, name=x", "worker 79 finished; Xid counters reset"))

# the GPU lost or broken without an Xid number: the kernel, nvidia-smi, NVML and the CUDA runtime's words
_LOST = SignalRule(
    "gpu.lost_or_uncorrectable", GPU_FAULT, **_GPU,
    message=r"\bfallen off the bus\b|\bGPU is lost\b|(?:\b|_)GPU_IS_LOST\b|"
            r"\bUnable to determine the device handle for GPU|\bRmInitAdapter failed\b|\brm_init_adapter failed\b|"
            r"\bNV_ERR_RESET_REQUIRED\b|\buncorrectable ECC error\b|\buncorrectable NVLink error\b|"
            r"\bDouble Bit (?:ECC )?error|\bcudaErrorECCUncorrectable\b|\bCUDA_ERROR_ECC_UNCORRECTABLE\b",
    true=(# akash-network/support#209
          "NVRM: GPU 0000:a1:00.0: GPU has fallen off the bus.",
          "Unable to determine the device handle for GPU0000:A1:00.0: Unknown Error",
          # NVIDIA/NVSentinel#155 (multi-line, no Xid)
          "NVRM: The NVIDIA GPU 0000:b3:00.0\n NVRM: (PCI ID: 10de:26b5) installed in this system has\n NVRM: fallen "
          "off the bus and is not responding to commands.",
          # NVIDIA/k8s-device-plugin#231
          "Unable to determine the device handle for GPU 0000:C1:00.0: GPU is lost.  Reboot the system to recover "
          "this GPU",
          # NVIDIA/gpu-operator#1146 and #649
          "NVRM: GPU 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)",
          # vllm-project/vllm#5222, jade-hpc-gpu#194
          "RuntimeError: CUDA error: uncorrectable ECC error encountered",
          # pytorch/pytorch#58155
          "terminate called after throwing an instance of 'c10::Error'\n  what():  CUDA error: uncorrectable NVLink "
          "error detected during the execution",
          # scitix/sichek#51
          "NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) "
          "returned from status @ kernel_channel.c:2874",
          # kubernetes/kubernetes#97131 (kubelet admission through the device plugin)
          ("UnexpectedAdmissionError", "Pod Allocate failed due to device plugin GetPreferredAllocation rpc failed "
                                       "with err: rpc error: code = Unknown desc = Unable to retrieve list of "
                                       "available devices: error creating nvml.Device 5: nvml: GPU is lost, which "
                                       "is unexpected"),
          # aws/eks-node-monitoring-agent dcgm_policies.go (NvidiaDoubleBitError)
          "detected 2 Nvidia Double Bit error(s) on location 1"),
    false=(# pytorch/pytorch#16417, #74235: application errors without a hardware signal
           "RuntimeError: CUDA out of memory. Tried to allocate 12.50 MiB (GPU 0; 10.92 GiB total capacity; 8.57 MiB "
           "already allocated; 9.28 GiB free; 4.68 MiB cached)",
           "RuntimeError: CUDA error: unspecified launch failure",
           "RuntimeError: CUDA error: an illegal memory access was encountered",
           "Volatile Uncorr. ECC errors: 0", "the bus is full; lost 2 packets"))

# a device the device plugin took out of service, and node conditions GPU health monitors set
_UNHEALTHY = SignalRule(
    "gpu.unhealthy_or_monitor", GPU_FAULT, **_GPU,
    message=r"\bXidCriticalError\b(?!\s*=\s*False)|\bdevice marked unhealthy\b|\bmarking device\b.{0,80}\bunhealthy\b|"
            r"\bthe device will go unhealthy\b|\bcannot allocate unhealthy devices\b|\bno healthy devices present\b|"
            r"\bAcceleratedHardwareReady\s*=\s*False\b|"
            r"\bNode condition (?:XIDErrors?|GPUMissing|NVLinkStatusInactive|NebiusGPUError)=True\b|"
            r"\bErrorCode:\s*DCGM_FR_(?:XID_ERROR|UNCONTAINED_ERROR|CONTAINED_ERROR|FALLEN_OFF_BUS|ROW_REMAP_FAILURE|"
            r"UNCORRECTABLE_ROW_REMAP|PENDING_ROW_REMAP|DBE_PENDING_PAGE_RETIREMENTS|RETIRED_PAGES_LIMIT|"
            r"RETIRED_PAGES_DBE_LIMIT|VOLATILE_DBE_DETECTED|NVLINK_DOWN|NVLINK_ERROR_CRITICAL|SXID_ERROR)\b|"
            r"\bDCGM_FI_DEV_ROW_REMAP_FAILURE\b\D{0,40}\b[1-9]|\bDCGM_FI_DEV_ECC_DBE_(?:VOL|AGG)_TOTAL\b\D{0,40}\b[1-9]",
    # a monitor that failed itself (aws/eks-node-monitoring-agent#266) or an IMEX daemon that was never started
    # (NVIDIA/aicr#2641) is not a GPU fault
    unless=r"\bDCGMError\b|\bfailed to initialize DCGM\b|\bnv-hostengine\b|\bDCGM_FR_IMEX",
    true=(# NVIDIA/k8s-device-plugin#189
          "XidCriticalError: Xid=69 on Device=GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8, the device will go unhealthy.",
          "'nvidia.com/gpu' device marked unhealthy: GPU-7540a9b3-eeb9-1214-1526-f93c9ea826a8",
          # GoogleCloudPlatform/container-engine-accelerators#497 (a node condition: reason a map of Xids, the message
          # the GPU UUID)
          "Node condition XidCriticalError=True; reason: {31:true}; message: 6e43a052-e544-467b-a972-63d7cd2ce80a",
          # NVIDIA/NVSentinel#911
          "Node condition GpuMemWatch=True; reason: GpuMemWatchIsNotHealthy; message: ErrorCode:DCGM_FR_XID_ERROR "
          "GPU:4 PCI:0000:c4:00.0 GPU_UUID:GPU-d1816eb1-2926-4fbc-13f6-1cf1ba1b921b Detected XID 31 for GPU 4 Please "
          "consult the documentation for details of this XID. Recommended Action=NONE;",
          # openshift/instaslice-operator#140
          ("UnexpectedAdmissionError", "Pod was rejected: Allocate failed due to no healthy devices present; cannot "
                                       "allocate unhealthy devices nvidia.com/mig-1g.5gb, which is unexpected"),
          "Node condition AcceleratedHardwareReady=False; reason: NvidiaDeviceCountMismatch; message: detected 7 GPUs, "
          "expected 8",
          "dcgm-exporter on node gpu-7: GPU 3 DCGM_FI_DEV_ROW_REMAP_FAILURE = 1",
          # learn.microsoft.com/azure/aks/gpu-health-monitoring (AKS node-problem-detector GPU conditions)
          "Node condition GPUMissing=True; reason: GPUMissing; message: Observed GPU count does not match expected GPU "
          "count",
          "Node condition XIDErrors=True; reason: XIDErrors; message: XID errors present in kernel log",
          # docs.nebius.com/kubernetes/maintenance/health-checks
          "Node condition NebiusGPUError=True; reason: none; message: GPU health check failed"),
    false=(# Azure/AgentBaker#8797: AKS's healthy XIDError condition
           "Node condition XIDError=False; reason: XIDErrorIsNotPresent; message: XID error status is good",
           "Node condition UnhealthyNvidiaDevicePlugin=Unknown; reason: none; message: ",
           # aws/eks-node-monitoring-agent#266, NVIDIA/aicr#2641
           "Node condition AcceleratedHardwareReady=False; reason: DCGMError; message: failed to initialize DCGM: Error "
           "connecting to nv-hostengine: Host engine connection invalid/disconnected",
           "Node condition GpuNvlinkWatch=True; reason: GpuNvlinkWatchIsNotHealthy; message: ErrorCode:"
           "DCGM_FR_IMEX_UNHEALTHY GPU:0 PCI:0000:9d:00.0 GPU_UUID:GPU-bb3e1419-... IMEX daemon status is -3 (not "
           "READY)",
           "Node condition XidCriticalError=False; reason: {}; message: healthy",
           "dcgm-exporter on node gpu-7: GPU 3 DCGM_FI_DEV_ROW_REMAP_FAILURE = 0",
           "all devices healthy"))

# the same faults as the workload's own output prints them (its previous log's tail, its termination message): read
# line by line (``reads_log``), in the strict words of the kernel driver, the CUDA runtime, NVML and NCCL only; the
# application-class Xids, CUDA out-of-memory, an illegal memory access, "unknown error" and nvidia-smi's zero
# counters are the application's (or nothing), never the node's
_LOG = SignalRule(
    "gpu.in_container_log", GPU_FAULT, **_GPU, reads_log=True,
    message=rf"\bXid\s*\([^)]{{0,40}}\)\s*:\s*{hw.HW}|\bXid\s*[=:-]?\s*{hw.HW}|\bcaused by previous Xid\s*{hw.HW}|"
            r"\bfallen off the bus\b|\bGPU is lost\b|(?:\b|_)GPU_IS_LOST\b|\bGpuIsLost\b|\bRmInitAdapter failed\b|"
            r"\buncorrectable ECC error encountered\b|\bcudaErrorECCUncorrectable\b|\bCUDA_ERROR_ECC_UNCORRECTABLE\b|"
            r"\buncorrectable NVLink error detected\b|\bdouble[- ]bit ECC error\b",
    # a driver-marked Nonfatal NVLink Xid is no fault (leptonai/gpud#1174); a count of zero is no error
    unless=r"\bNonfatal\b|\bdouble[- ]bit ECC errors?\s*[:=]?\s*0\b",
    true=(# NVIDIA/semantic-segmentation#33
          "RuntimeError: cuda runtime error (39) : uncorrectable ECC error encountered at "
          "/pytorch/aten/src/THC/THCCachingHostAllocator.cpp:265",
          # jade-hpc-gpu/jade-hpc-gpu.github.io#194, vllm-project/vllm#5222
          "RuntimeError: CUDA error: uncorrectable ECC error encountered",
          # kohya-ss/sd-scripts#1434: the NCCL watchdog dies on the same CUDA error
          "[E ProcessGroupNCCL.cpp:916] [Rank 1] NCCL watchdog thread terminated with exception: CUDA error: "
          "uncorrectable ECC error encountered",
          # NCCL's last CUDA error, as PyTorch prints it (ncclUnhandledCudaError; NVIDIA/nccl#1410 shows the form)
          "Cuda failure 'uncorrectable ECC error encountered'",
          # ostris/ai-toolkit#470 (the PyTorch 2.x wording names the CUDA error code)
          "CUDA error: uncorrectable ECC error encountered Search for `cudaErrorECCUncorrectable' in "
          "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.",
          # nagadit/DeepFaceLab_Linux#89 (TensorFlow, the driver API's name)
          "failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered",
          # PaddlePaddle/Paddle#10239
          "F0426 17:52:54.043815 30811 hl_cuda_device.cc:565] Check failed: cudaSuccess == cudaStat (0 vs. 39) Cuda "
          "Error: uncorrectable ECC error encountered",
          # marian-nmt/marian#251, NVIDIA/k8s-device-plugin#231 (nvidia-smi in the container)
          "Unable to determine the device handle for GPU 0000:03:00.0: GPU is lost.  Reboot the system to recover "
          "this GPU",
          # rossumai/nvgpu#6 (pynvml), LSSI-ETH/plmfit#40 (slurmstepd's NVML read)
          "NVMLError_GpuIsLost: GPU is lost", "slurmstepd: error: NVML: Failed to get usage(15): GPU is lost",
          # NVIDIA/open-gpu-kernel-modules#688 (the driver's status name, as a dmesg copy carries it)
          "NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) "
          "returned from rmStatus @ kernel_ce_gv100.c:106",
          # akash-network/support#209 (dmesg lines a GPU check prints)
          "NVRM: Xid (PCI:0000:a1:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
          "NVRM: GPU 0000:a1:00.0: GPU has fallen off the bus.",
          # NVIDIA/gpu-operator#1146
          "NVRM: GPU 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)",
          "NVRM: Xid (PCI:0000:07:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) "
          "has been detected on GPU in the framebuffer at physAddr 0x7fffa8860 partition 7, subpartition 1.",
          # pytorch/pytorch#58155
          "  what():  CUDA error: uncorrectable NVLink error detected during the execution",
          # aws/eks-node-monitoring-agent dcgm_policies.go (NvidiaDoubleBitError), as a health check prints it
          "detected 2 Nvidia Double Bit ECC error(s) on location 1"),
    false=(# pytorch/pytorch#16417, concept-graphs/concept-graphs#5: GPU memory, the application's
           "RuntimeError: CUDA out of memory. Tried to allocate 12.50 MiB (GPU 0; 10.92 GiB total capacity; 8.57 MiB "
           "already allocated; 9.28 GiB free; 4.68 MiB cached)",
           "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacty of "
           "5.80 GiB of which 15.44 MiB is free.",
           # vllm-project/vllm#19890 (Xid 13/31 class: the application's memory access)
           "RuntimeError: CUDA error: an illegal memory access was encountered",
           "enqueue.cc:1556 NCCL WARN Cuda failure 700 'an illegal memory access was encountered'",
           # pytorch/pytorch#170045, NVIDIA/nccl#1410: no hardware word
           "Cuda failure 999 'unknown error'", "RuntimeError: CUDA error: unknown error",
           "Cuda failure 1 'invalid argument'", "RuntimeError: CUDA error: unspecified launch failure",
           # rwth-i6/returnn#1486: "Unknown Error" is also NVML after a cgroup/driver mismatch, not only a lost GPU
           "Unable to determine the device handle for GPU0000:03:00.0: Unknown Error",
           # application-class Xids in a dmesg copy (akash-network/support#244, leptonai/gpud#46)
           "NVRM: Xid (PCI:0000:00:07): 31, pid=2512125, name=python3.10, Ch 00000008, intr 00000000. MMU Fault: "
           "ENGINE GRAPHICS GPCCLIENT_T1_8 faulted @ 0x73ac_1c000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE",
           "NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC "
           "7, SM 0): Illegal Instruction Parameter",
           # NVIDIA/nccl#2241: a driver-marked Nonfatal NVLink Xid
           "kernel: NVRM: Xid (PCI:...): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 11 (...)",
           # nvidia-smi's table and -q output in a healthy container: zero counts
           "| N/A   34C    P0    42W / 300W |      0MiB / 81920MiB |      0%      Default |   Volatile Uncorr. ECC |  0",
           "uncorrectable ECC errors: 0", "Double Bit ECC Errors: 0", "checking for ECC errors",
           # the word Xid without a hardware number
           "see the Xid table in the NVIDIA docs", "XID errors present: none", "worker 79 finished; Xid counters reset"))

RULES = (_NODE, _REJECTED, _XID, _LOST, _UNHEALTHY, _LOG)
KINDS = frozenset(r.kind for r in RULES)


# ------------------------------------------------------------------------------------------ recommendation
def recommend(c: RecoContext) -> list[str]:
    sigs = [s for s in c.signals if s.kind in KINDS]
    out = ["Restart policy is OnFailure: retry on a healthy node." if (c.restart_policy or "").lower() == "onfailure"
           else "Resubmit the workload so it is placed on a healthy node."]
    gpu = [s for s in sigs if s.kind == GPU_FAULT]
    if gpu:
        return out + _gpu_lines(c, gpu)
    details = [hw.fields(s.detail) | {"_kind": (s.detail or "").split(";")[0]} for s in sigs if s.detail]
    lines = [line for d in details for line in _resource_lines(d, _where(c, sigs))]
    nodes = sorted({s.obj for s in sigs if s.obj and s.source.startswith("kubectl describe node")})
    out += list(dict.fromkeys(lines))
    if not details or any(d.get("scope") in (None, "node") for d in details):  # not only the pod's own limit
        out.append("Report the node failure" + (f" on {', '.join(nodes)}" if nodes else "")
                   + " to the cluster administrator.")
    return out


def _where(c: RecoContext, sigs) -> str:
    named = sorted({s.obj for s in sigs if s.obj and (s.obj in c.nodes or s.source.startswith("kubectl describe node")
                                                      or "involvedObject.kind=Node" in s.source)})
    nodes = named or sorted(set(c.nodes))
    return f"node {', '.join(nodes)}" if nodes else "the node (its name was not reported)"


def _gpu_lines(c: RecoContext, gpu) -> list[str]:
    where = _where(c, gpu)
    faults = []
    for s in gpu:
        f = hw.fields(s.detail)
        what = (f"Xid {f['xid']} ({f.get('what', 'hardware fault')})" if f.get("xid")
                else f.get("what", "a GPU hardware fault"))
        own = ("the container's termination message (its log's tail)" if "termination message" in s.text
               else "the container's log" if s.source.startswith("kubectl logs") else None)
        faults.append(what + (f" on GPU {f['gpu']}" if f.get("gpu") else "")
                      + (f" (read in {own}: {s.source})" if own else ""))
    faults = list(dict.fromkeys(faults))
    out = [f"GPU hardware fault on {where}: {'; '.join(faults[:3])}"
           + (f" (and {len(faults) - 3} more)" if len(faults) > 3 else "")
           + ". This is the node's hardware, not the workload's code: do not rerun it on that node."]
    named = any(hw.fields(s.detail).get("gpu") for s in gpu)
    out.append(f"Platform: cordon and drain {where} and open a hardware ticket for "
               + ("the GPU named above" if named else "its failed GPU (the evidence does not say which one)")
               + " (reset or reboot it, and replace it if the fault recurs).")
    if any(s.kind in (Kind.APP_EXIT, Kind.INIT_FAILED) for s in c.signals):
        out.append("The container's non-zero exit (with any CUDA error, CUDA out-of-memory or NCCL timeout it "
                   "printed) is the symptom of this GPU fault, not a bug to fix in the code.")
    return out


def _resource_lines(d: dict[str, str], where: str) -> list[str]:
    kind, res = d["_kind"], d.get("resource")
    if kind == "rejected":
        figures = ", ".join(f"{k} {d[k]}" for k in ("requested", "used", "capacity") if d.get(k))
        return [f"The kubelet on {where} rejected the pod at admission: it did not have enough "
                f"{res or 'of a resource'}{f' ({figures})' if figures else ''}. Nothing ran and nothing was "
                "OOM-killed: this is a node-side placement failure (a scheduler/kubelet accounting race or the device "
                "plugin's bookkeeping), not the workload's own use of it."]
    if kind != "evicted" or not res:
        return []
    usage = (f"; the container was using {d['usage']} against a request of {d.get('request', 'not stated')}"
             if d.get("usage") else "")
    figures = f"threshold {d['threshold']}, available {d['available']}" if d.get("threshold") else ""
    low = f" ({figures})" if figures else ""
    if res == "memory":
        return [f"The kubelet evicted the pod because {where} was low on memory{low}{usage}. Set the memory request "
                "equal to the limit, at or above what the container uses (Guaranteed QoS), so the kubelet does not "
                "evict it first under node memory pressure."]
    if res == "ephemeral-storage" and d.get("scope") != "node":
        limit = f" of {d['limit']}" if d.get("limit") else ""
        return [f"The pod exceeded its own ephemeral-storage limit{limit} ({d.get('scope')}): raise the "
                "ephemeral-storage request/limit to what it writes, or write checkpoints and data to a volume (a PVC "
                "or data source) instead of the container filesystem."]
    if res in ("ephemeral-storage", "nodefs", "imagefs", "disk", "inodes"):
        label = "; ".join(x for x in (d.get("condition") or res, figures) if x)
        return [f"The kubelet evicted the pod because {where} was low on disk ({label}){usage}. Set an "
                "ephemeral-storage request and limit, or write large files to a volume instead of the container "
                "filesystem; the platform should clean the node's disk (unused images, logs)."]
    return [f"The kubelet evicted the pod because {where} was low on {res}{low}{usage}."]


CATEGORY = Category(
    "NODE_FAILURE", 60, "the node failed or evicted the pod", recommend, rules=RULES, objects=frozenset({"Node"}),
    tier2_reason=lambda v: "kubectl describe node for the NODE_FAILURE evidence", reads_node=True,
    spec_lines=("Restart policy",), excluded_by_preemption=True,
    words=ChatWords(r"node|evict|hardware|\bgpu\b|\bxid\b|\becc\b",
                    ("why not the node", "was it evicted", "a hardware fault?", "was it the GPU?", "an Xid?"),
                    ("why not oom",)),
    triage=(TriageGroup("node", "node",
                        lambda k, n: f"Inspect node {k} (kubectl describe node {k}) and have the administrator repair "
                                     f"or drain it; then resubmit the {n} workloads that failed on it."),))
