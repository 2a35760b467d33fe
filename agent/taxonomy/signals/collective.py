"""A distributed collective or rendezvous failed: an NCCL/Gloo watchdog timeout, an NCCL remote/system error, a
TCPStore or elastic-rendezvous error, a peer that closed the connection. A rank that fails this way usually fails
because of a PEER (a rank that died or hung, its node lost or evicted) or the network between them, not because of
its own code.

Never a category by itself: the rank's non-zero exit stays the application's exit (CRASH_APP_ERROR), whose
recommendation then points at the collective (peers, network, timeouts) and quotes the line; a node failure of the
workload that came before that exit explains it (``crash_app_error``'s rule yields to it). The same pattern picks
the line to quote from a rank's previous log (``agent.evidence.kube.last_error_line``): a collective line in a log is
quoted, never matched into a signal (only a GPU hardware fault's strict words are, ``node_failure``'s log rule).
Only distributed-runtime words count: a bare "Connection reset by peer" (a dataset download)
or torchrun's generic ``ChildFailedError`` wrapper is not a collective failure.
"""
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.record import SignalRule, SignalSet

COLLECTIVE = Kind("collective")

PATTERN = (
    # the ProcessGroupNCCL watchdog: the timeout, its blocking-wait twin, the abort that follows
    r"\bWatchdog caught collective operation timeout\b|"
    r"\bWorkNCCL\(SeqNum=\d+.{0,300}?\)\s+(?:ran for \d+ milliseconds before timing out|timed out in blocking wait)|"
    r"\b(?:NCCL|Process group) watchdog thread terminated with exception\b|"
    r"\bException \(either an error or timeout\) detected by watchdog\b|"
    r"\bSome NCCL operations have failed or timed out\b|\bNCCL communicator was aborted\b|"
    # NCCL's own errors when a peer or the network goes away
    r"\bNCCL error\b.{0,300}?\b(?:unhandled system error|remote process exited or there was a network error)\b|"
    r"\bncclRemoteError\b|\bncclSystemError\b|\bNCCL WARN\b.{0,200}?\bConnection closed by remote peer\b|"
    # c10d / TCPStore / elastic rendezvous / Gloo
    r"\bDist(?:Backend|Network|Store)Error\b|\bRendezvous(?:Connection|Timeout|Closed)Error\b|"
    r"\b(?:TCPStore|c10d)\b.{0,300}?\bConnection reset by peer\b|"
    r"\bgloo/transport/\S+\]\s*Connection closed by peer\b|"
    r"\bmonitoredBarrier\b.{0,300}?\bfaulty rank\b|"
    r"\bTimed out initializing process group in store based barrier\b")

RULE = SignalRule(
    "collective.message", COLLECTIVE, message=PATTERN,
    true=(  # hiyouga/LlamaFactory#7396
          "[rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation "
          "timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168, "
          "Timeout(ms)=600000) ran for 600060 milliseconds before timing out.",
          "[rank0]:[E321 02:07:08.465150152 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 0] Exception (either an error or "
          "timeout) detected by watchdog at work: 1580, last enqueued NCCL work: 1582, last completed NCCL work: 1579.",
          # OFA-Sys/OFA#271 (PyTorch 1.x format)
          "[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation timeout: "
          "WorkNCCL(SeqNum=469508, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802212 milliseconds before timing "
          "out.",
          # huggingface/diffusers#12422 (TORCH_NCCL_BLOCKING_WAIT)
          "[Rank 1] Work WorkNCCL(SeqNum=2521, OpType=ALLREDUCE, NumelIn=160672064, NumelOut=160672064, "
          "Timeout(ms)=600000) timed out in blocking wait.",
          # pytorch/pytorch#118369
          "NCCL watchdog thread terminated with exception: [Rank 7] Watchdog caught collective operation timeout",
          # NVIDIA/nccl#1504
          "[rank1]:[E1103 07:34:57.460843251 ProcessGroupNCCL.cpp:630] [Rank 1] Some NCCL operations have failed or "
          "timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
          "corrupted/incomplete data.",
          # NVIDIA/nccl#2076 (a node's InfiniBand fault; the peers saw a remote error)
          "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, "
          "remote process exited or there was a network error, NCCL version 2.21.5",
          "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
          # NVIDIA/nccl#207 (issue title)
          "NCCL error in: /torch/lib/c10d/ProcessGroupNCCL.cpp:260, unhandled system error",
          # NVIDIA/nccl#795
          "a100-st-p4d24xlarge-22:183006:183181 [1] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote "
          "peer a100-st-p4d24xlarge-22.luciodelelis-92732890-0458-4f76-8369-c4fee80b23e7.pcluster<47861>",
          # pytorch/pytorch#129985 (TCPStore)
          "[trainer85612|12]:W0701 13:41:43.421574  4776 TCPStore.cpp:182] [c10d] recvValue failed on "
          "SocketImpl(fd=24, ...): Connection reset by peer",
          # pytorch/pytorch#118666
          "torch.distributed.DistNetworkError: Connection reset by peer",
          # pytorch/pytorch#64926, kubeflow/trainer#1638 (elastic rendezvous)
          "RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.",
          "RendezvousClosedError: ",
          # kubeflow/trainer#1638 (Gloo: a peer pod deleted)
          "RuntimeError: [/opt/conda/conda-bld/pytorch_1634272168290/work/third_party/gloo/gloo/transport/tcp/"
          "pair.cc:598] Connection closed by peer [10.244.48.107]:12717",
          # pytorch/pytorch#76198
          "RuntimeError: Rank 1 successfully reached monitoredBarrier, but received errors while waiting for "
          "send/recv from rank 0. Please check rank 0 logs for faulty rank.",
          # huggingface/accelerate#157
          "RuntimeError: Timed out initializing process group in store based barrier on rank: 6, for key: "
          "store_based_barrier_key:1 (world_size=8, worker_count=16, timeout=0:30:00)"),
    false=(  # a dataset download, not a peer rank (ondyari/FaceForensics#79)
           "ConnectionResetError: [Errno 104] Connection reset by peer",
           # torchrun's wrapper and summary say a child failed, not why (NVIDIA/nccl#1657)
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
           "E0323 21:57:08.583000 23 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
           "local_rank: 0 (pid: 88) of binary: /opt/venv/bin/python3",
           # NCCL's informational chatter (NVIDIA/nccl#1232)
           "[1] node2:22555:22555 [0] NCCL INFO Connected all rings",
           # GPU memory (concept-graphs/concept-graphs#5)
           "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacty of "
           "5.80 GiB of which 15.44 MiB is free.",
           ("PodFailed", "Container pytorch in pod ddp-worker-2 terminated with exit code 1")))

SIGNAL = SignalSet(COLLECTIVE, rules=(RULE,))
