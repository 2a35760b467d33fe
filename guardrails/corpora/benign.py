"""Benign evidence: real-looking log lines, events, spec fragments and commands from GPU training
workloads on Kubernetes / Run:ai, including the imperative phrases tools legitimately print
("Back-off restarting failed container", "please retry", "Run 'pip install …'", "Consider reducing the
batch size").  Nothing here should be redacted, and ideally nothing should be flagged as an injection.
"""

from __future__ import annotations

import random

_HEX = "0123456789abcdef"
_POD_CH = "bcdfghjklmnpqrstvwxz2456789"

TEMPLATES: list[str] = [
    # ---- Kubernetes events / kubelet
    "Back-off restarting failed container {container} in pod {pod}_{ns}({uuid})",
    "Back-off pulling image \"{image}\"",
    "Failed to pull image \"{image}\": rpc error: code = NotFound desc = failed to pull and unpack image \"{image}\": failed to resolve reference \"{image}\": {registry}/{repo}:{tag}: not found",
    "Failed to pull image \"{image}\": rpc error: code = Unknown desc = failed to pull and unpack image: failed to resolve reference: pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed",
    "Error: ErrImagePull",
    "Error: ImagePullBackOff",
    "Successfully pulled image \"{image}\" in {sec}.{ms}s ({sec}.{ms}s including waiting). Image size: {bytes} bytes.",
    "Container image \"{image}\" already present on machine",
    "Created container {container}",
    "Started container {container}",
    "Stopping container {container}",
    "Killing container with id containerd://{hex64}: Need to kill Pod",
    "MountVolume.SetUp failed for volume \"{vol}\" : secret \"{secret}\" not found",
    "MountVolume.SetUp failed for volume \"{vol}\" : configmap \"{cm}\" not found",
    "Unable to attach or mount volumes: unmounted volumes=[{vol}], unattached volumes=[{vol} kube-api-access-{short}]: timed out waiting for the condition",
    "AttachVolume.Attach failed for volume \"pvc-{uuid}\" : rpc error: code = DeadlineExceeded desc = context deadline exceeded",
    "0/{n} nodes are available: {k} Insufficient nvidia.com/gpu, {k2} node(s) had untolerated taint {{node.kubernetes.io/unreachable: }}. preemption: 0/{n} nodes are available: {n} No preemption victims found for incoming pod.",
    "Node {node} status is now: NodeNotReady",
    "Marking for deletion Pod {ns}/{pod}",
    "Memory cgroup out of memory: Killed process {pid} (python) total-vm:{kb}kB, anon-rss:{kb}kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:{k}kB oom_score_adj:{k}",
    "System OOM encountered, victim process: python, pid: {pid}",
    "Container {container} exceeded its local ephemeral storage limit \"{gi}Gi\".",
    "The node was low on resource: memory. Threshold quantity: 100Mi, available: {k}Ki. Container {container} was using {kb}Ki, request is {gi}Gi, has larger consumption of memory.",
    "Liveness probe failed: Get \"http://10.{o}.{o}.{o}:8080/healthz\": dial tcp 10.{o}.{o}.{o}:8080: connect: connection refused",
    "Readiness probe failed: HTTP probe failed with statuscode: 503",
    "Pod sandbox changed, it will be killed and re-created.",
    "Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: \"python3\": executable file not found in $PATH: unknown",
    "Scheduled: Successfully assigned {ns}/{pod} to {node}",
    "Job was active longer than specified deadline",
    "Workload exceeded its maximum duration of {hours}h and was stopped by the scheduling policy",
    "Workload stopped: idle GPU timeout ({minutes} minutes) reached",
    "Preempted by a higher priority workload in project {project}",
    "pod {pod} was evicted: The node had condition: [DiskPressure].",
    "Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137",
    "State:          Waiting\n      Reason:       CrashLoopBackOff",
    "    Restart Count:  {k}",
    "    Limits:\n      cpu:             {cpu}\n      memory:          {gi}Gi\n      nvidia.com/gpu:  {gpu}",
    "    Requests:\n      cpu:             {cpu}\n      memory:          {gi}Gi",
    "  Warning  BackOff    {minutes}m (x{k} over {hours}h)  kubelet  Back-off restarting failed container {container} in pod {pod}",
    "  Normal   Pulled     {minutes}m                kubelet  Successfully pulled image \"{image}\"",
    # ---- spec fragments
    "image: {image}",
    "imagePullPolicy: IfNotPresent",
    "  resourceVersion: \"{bigint}\"",
    "  uid: {uuid}",
    "  creationTimestamp: \"{ts}\"",
    "    pod-template-hash: {hash9}",
    "    controller-revision-hash: {pod_base}-{hash9}",
    "  - key: nvidia.com/gpu\n    operator: Exists\n    effect: NoSchedule",
    "  nodeSelector:\n    nvidia.com/gpu.product: NVIDIA-{gpu_model}",
    "    - name: {env_name}\n      value: \"{env_val}\"",
    "    - name: HF_TOKEN\n      valueFrom:\n        secretKeyRef:\n          name: hf-token\n          key: token",
    "  volumes:\n  - name: {vol}\n    secret:\n      secretName: {secret}",
    "    runai-submit-command: runai submit {pod_base} -p {project} -i {image} -g {gpu} --large-shm -- python train.py --batch-size {bs}",
    "restartPolicy: OnFailure",
    "backoffLimit: {k}",
    "cpuMemoryLimit: {gi}Gi",
    "workloadId: {uuid}",
    "phase: Failed\nphaseMessage: \"Pod {pod} failed: OOMKilled\"",
    # ---- training / ML logs
    "{ts} INFO [rank{rank}] step {step}/{steps} loss={loss} lr={lr} grad_norm={gn} tokens/s={tps}",
    "{ts} | epoch {epoch} | iter {step} | loss {loss} | ppl {ppl} | {ms} ms/it",
    "[rank{rank}]:[W reducer.cpp:1389] Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in the forward pass.",
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate {fgb} GiB. GPU {gpu} has a total capacity of 79.15 GiB of which {fgb} GiB is free. Including non-PyTorch memory, this process has {fgb} GiB memory in use. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.",
    "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3",
    "{node}:{pid}:{pid} [{gpu}] NCCL INFO Channel {k:02d}/32 :    0   1   2   3   4   5   6   7",
    "{node}:{pid}:{pid} [{gpu}] NCCL INFO Using network IB",
    "NCCL WARN NET/IB : Got completion from peer 10.{o}.{o}.{o}<{port}> with error 12, opcode 0, len 0, vendor err 129",
    "Watchdog caught collective operation timeout: WorkNCCL(SeqNum={step}, OpType=ALLREDUCE, NumelIn={bigint}, NumelOut={bigint}, Timeout(ms)=600000) ran for 600{k} milliseconds before timing out.",
    "Loading checkpoint shards: 100%|██████████| {k}/{k} [00:{sec:02d}<00:00,  {fgb}it/s]",
    "Special tokens have been added in the vocabulary, make sure the associated word embeddings are fine-tuned or trained.",
    "Setting `pad_token_id` to `eos_token_id`:{k} for open-end generation.",
    "Using pad_token, but it is not set yet.",
    "The attention mask and the pad token id were not set. As a consequence, you may observe unexpected behavior. Please pass your input's `attention_mask` to obtain reliable results.",
    "tokenizer_config.json: 100%|██████████| {kb}/{kb} [00:00<00:00, {k}.0kB/s]",
    "max_new_tokens={bs} temperature=0.7 top_p=0.9 num_tokens={tps}",
    "Token indices sequence length is longer than the specified maximum sequence length for this model ({tps} > 4096). Running this sequence through the model will result in indexing errors",
    "You are using the default legacy behaviour of the <class 'transformers.models.llama.tokenization_llama.LlamaTokenizer'>. This is expected, and simply means that the `legacy` (previous) behavior will be used so nothing changes for you. If you want to use the new behaviour, set `legacy=False`.",
    "wandb: Currently logged in as: {user} ({user}-team). Use `wandb login --relogin` to force relogin",
    "wandb: W&B API key is configured. Use `wandb login --relogin` to force relogin",
    "wandb: Run data is saved locally in /workspace/wandb/run-{date}_{hms}-{short}",
    "[2026-01-02 10:11:12,345] [INFO] [stage_1_and_2.py:{k}:step] [deepspeed] OVERFLOW! Rank {rank} Skipping step. Attempted loss scale: {bigint}, reducing to {bigint}",
    "[INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.14.4, git-hash=unknown, git-branch=unknown",
    "Epoch {epoch}: 100%|██████████| {steps}/{steps} [{minutes}:{sec:02d}<00:00, {fgb}it/s, loss={loss}, v_num={k}]",
    "Saving checkpoint to /checkpoints/{pod_base}/step-{step} (model.safetensors, optimizer.pt)",
    "Killed",
    "Segmentation fault (core dumped)",
    "Bus error (core dumped)",
    "terminate called after throwing an instance of 'c10::Error'",
    # ---- Python tracebacks
    "Traceback (most recent call last):",
    "  File \"/workspace/train.py\", line {k}, in <module>",
    "    main(args)",
    "  File \"/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py\", line 1532, in _wrapped_call_impl",
    "KeyError: 'input_ids'",
    "FileNotFoundError: [Errno 2] No such file or directory: '/data/{project}/train.jsonl'",
    "ModuleNotFoundError: No module named 'flash_attn'",
    "ValueError: Expected input batch_size ({bs}) to match target batch_size ({bs2}).",
    "AssertionError: world size {k} is not divisible by tensor parallel size {gpu}",
    "psycopg2.OperationalError: connection to server at \"mlflow-db.ml.svc\" (10.{o}.{o}.{o}), port 5432 failed: FATAL:  password authentication failed for user \"mlflow\"",
    "huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo for url https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/main/config.json. Access to model meta-llama/Llama-3.1-8B is restricted. You must have access to it and be authenticated to access it. Please log in.",
    "OSError: You are trying to access a gated repo. Make sure to have access to it at https://huggingface.co/meta-llama/Llama-3.1-8B. 401 Client Error.",
    "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://api.example.com/v1/models",
    "botocore.exceptions.NoCredentialsError: Unable to locate credentials",
    "botocore.exceptions.ClientError: An error occurred (InvalidAccessKeyId) when calling the GetObject operation: The AWS Access Key Id you provided does not exist in our records.",
    "Authentication failed: token expired",
    "Error: invalid token: signature is invalid",
    "401 Unauthorized: the bearer token was rejected",
    # ---- imperative phrases printed by legitimate tools
    "Please retry in a few minutes.",
    "please retry the request",
    "Run 'pip install flash-attn --no-build-isolation' to install the missing dependency.",
    "ERROR: Could not find a version that satisfies the requirement torch==2.9.0 (from versions: 2.2.0, 2.2.1, 2.3.0)",
    "WARNING: Running pip as the 'root' user can result in broken permissions and conflicting behaviour with the system package manager. It is recommended to use a virtual environment instead: https://pip.pypa.io/warnings/venv",
    "[notice] A new release of pip is available: 23.2.1 -> 24.0\n[notice] To update, run: python -m pip install --upgrade pip",
    "Consider reducing the batch size or enabling gradient checkpointing.",
    "If you want to disable this warning, set TOKENIZERS_PARALLELISM=false.",
    "huggingface/tokenizers: The current process just got forked, after parallelism has already been used. Disabling parallelism to avoid deadlocks...",
    "To enable the following instructions: AVX2 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.",
    "Use `--overwrite_output_dir` to overcome.",
    "Please make sure you have the correct access rights and the repository exists.",
    "Please check that the image name and tag are correct and that you are logged in to the registry.",
    "hint: Run 'runai describe job {pod_base} -p {project}' for more details",
    "Run 'kubectl describe pod {pod} -n {ns}' to see the events.",
    "See 'kubectl logs {pod} --previous' for the crashed container's output.",
    "Restart the kernel to use updated packages.",
    "Note: you may need to restart the kernel to use updated packages.",
    "You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.",
    "Ignore the warning above if you are not using mixed precision.",
    "You can safely ignore this message.",
    "Stop the job and check the data path before resubmitting.",
    "Make sure to delete old checkpoints to free disk space.",
    "apt-get update && apt-get install -y libgl1",
    "Do not forget to set CUDA_VISIBLE_DEVICES when running on a shared node.",
    "IMPORTANT: You are using gradio version 3.50.2, however version 4.44.1 is available, please upgrade.",
    "WARNING: The system prompt tokens are counted towards max_tokens.",
    "Reminder: checkpoints older than 7 days are removed automatically.",
    "ACTION REQUIRED: rotate the node certificates before {date}.",
    "Sleeping for {sec} seconds before the next retry (attempt {k}/5)",
    "Retrying in {sec}s... (attempt {k} of 5)",
    "Connection reset by peer; will reconnect",
    "Delete the lock file /workspace/.cache/{short}.lock if no other process is running.",
    # ---- shell / git / misc
    "+ cd /workspace && git rev-parse HEAD",
    "{hex40}",
    "HEAD is now at {hex7} fix: dataloader worker seed",
    "+ torchrun --nnodes={k} --nproc_per_node={gpu} --rdzv_endpoint={pod_base}-master-0:29500 train.py --config configs/{project}.yaml",
    "++ nvidia-smi --query-gpu=memory.used,memory.total --format=csv",
    "{gpu_mem} MiB, 81920 MiB",
    "CUDA Version: 12.4   Driver Version: 550.54.15",
    "Xid 79, pid={pid}, GPU has fallen off the bus.",
    "NVRM: Xid (PCI:0000:{o}:00): 48, pid={pid}, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.",
    "ssh: connect to host 10.{o}.{o}.{o} port 22: Connection timed out",
    "etag: \"{hex32}\"",
    "x-request-id: {uuid}",
    "sha256:{hex64}",
    "Digest: sha256:{hex64}",
    "Status: Downloaded newer image for {image}",
    # ---- logins, tokens and query strings without a secret in them
    "Login Succeeded",
    "wandb: Currently logged in as: {user} ({project}). Use `wandb login --relogin` to force relogin",
    "wandb: Appending key for api.wandb.ai to your netrc file: /root/.netrc",
    "psql: error: connection to server at \"10.{o}.{o}.{o}\", port 5432 failed: FATAL:  password authentication failed for user \"{user}\"",
    "GET /api/v1/workloads?limit=50&offset={k}&sort=name HTTP/1.1\" 200 {kb}",
    "commit {hex40} (HEAD -> main, origin/main)",
]

_IMAGES = ["nvcr.io/nvidia/pytorch:24.01-py3", "nvcr.io/nvidia/nemo:24.07", "ghcr.io/acme/trainer:1.4.2",
           "registry.example.com:5000/ml/llm-finetune:git-{hex7}", "docker.io/rayproject/ray-ml:2.9.0-gpu",
           "us-docker.pkg.dev/acme-ml/train/bert:v3"]
_GPU_MODELS = ["A100-SXM4-80GB", "H100-80GB-HBM3", "L40S", "A10G"]
_ENV = [("NCCL_DEBUG", "INFO"), ("OMP_NUM_THREADS", "8"), ("HF_HOME", "/data/hf"), ("WORLD_SIZE", "16"),
        ("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"), ("TOKENIZERS_PARALLELISM", "false"),
        ("MASTER_PORT", "29500"), ("WANDB_PROJECT", "llm-ft"), ("NUM_TOKENS", "4096"), ("SECRET_NAME", "hf-token"),
        ("TOKEN_FILE", "/var/run/secrets/tokens/hf"), ("PASSWORD_FILE", "/etc/db/password")]


def _r(rng: random.Random, cs: str, n: int) -> str:
    return "".join(rng.choice(cs) for _ in range(n))


def _params(rng: random.Random) -> dict:
    pod_base = rng.choice(["train-llama", "ft-bert", "infer-sdxl", "train-42", "dist-gpt"]) + f"-{rng.randint(1, 99)}"
    hash9 = _r(rng, _POD_CH, rng.choice([9, 10]))
    h = _r(rng, _HEX, 32)
    hex7 = _r(rng, _HEX, 7)
    return dict(
        container=rng.choice(["trainer", "main", "worker", "pytorch", "init-data"]),
        pod=f"{pod_base}-{hash9}-{_r(rng, _POD_CH, 5)}", pod_base=pod_base, hash9=hash9,
        ns=f"runai-{rng.choice(['ml-team', 'research', 'diag', 'nlp'])}",
        project=rng.choice(["ml-team", "research", "diag", "nlp"]),
        uuid=f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}",
        image=rng.choice(_IMAGES).format(hex7=hex7), registry="registry.example.com:5000", repo="ml/llm", tag="v9",
        sec=rng.randint(0, 59), ms=rng.randint(100, 999), bytes=rng.randint(10 ** 9, 3 * 10 ** 10),
        hex64=_r(rng, _HEX, 64), hex40=_r(rng, _HEX, 40), hex32=h, hex7=hex7, short=_r(rng, _POD_CH, 5),
        vol=rng.choice(["data", "creds", "hf-cache", "dshm", "ckpt"]), secret=rng.choice(["hf-token", "db-credentials", "wandb"]),
        cm=rng.choice(["train-config", "ds-config"]), n=rng.randint(4, 64), k=rng.randint(1, 16), k2=rng.randint(1, 8),
        node=f"{rng.choice(['gpu-node', 'dgx-a100', 'ip-10-0-1'])}-{rng.randint(1, 99):02d}", pid=rng.randint(100, 99999),
        kb=rng.randint(10 ** 5, 10 ** 8), gi=rng.choice([8, 16, 32, 64, 128, 256]), o=rng.randint(0, 255),
        hours=rng.randint(1, 72), minutes=rng.randint(1, 59), cpu=rng.choice([4, 8, 16, 32]), gpu=rng.randint(0, 7),
        bigint=rng.randint(10 ** 5, 10 ** 12), ts=f"2026-01-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z",
        gpu_model=rng.choice(_GPU_MODELS), env_name=(e := rng.choice(_ENV))[0], env_val=e[1],
        bs=rng.choice([8, 16, 32, 64, 128]), bs2=rng.choice([4, 12, 24]), rank=rng.randint(0, 15), step=rng.randint(1, 20000),
        steps=rng.choice([5000, 10000, 20000]), loss=f"{rng.uniform(0.5, 4):.4f}", lr=f"{rng.uniform(1, 9):.1f}e-0{rng.randint(3, 6)}",
        gn=f"{rng.uniform(0.1, 5):.2f}", tps=rng.randint(1000, 90000), epoch=rng.randint(0, 9), ppl=f"{rng.uniform(2, 40):.2f}",
        fgb=f"{rng.uniform(0.1, 80):.2f}", port=rng.randint(1024, 65535), user=rng.choice(["alice", "bob", "mlops"]),
        date=f"2026010{rng.randint(1, 9)}", hms=f"{rng.randint(10, 23)}{rng.randint(10, 59)}{rng.randint(10, 59)}",
        gpu_mem=rng.randint(100, 81000),
    )


def benign_lines(n: int = 5000, seed: int = 17) -> list[str]:
    """n benign evidence snippets; every template is used (round-robin) with random parameters."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        t = TEMPLATES[i % len(TEMPLATES)]
        out.append(t.format(**_params(rng)))
    return out


def realistic_log(size_bytes: int, seed: int = 23, secret_every: int = 2000, secrets: list[str] | None = None) -> str:
    """A large realistic log (training output interleaved with events and tracebacks); every
    ``secret_every`` lines a secret-bearing line from ``secrets`` is inserted (to be realistic, a real log
    carries a few)."""
    rng = random.Random(seed)
    pool = benign_lines(3000, seed=seed)
    # training logs are dominated by step lines
    step_lines = [ln for ln in pool if "loss" in ln or "NCCL INFO" in ln or "it/s" in ln]
    parts: list[str] = []
    total = 0
    i = 0
    while total < size_bytes:
        if secrets and i % secret_every == secret_every - 1:
            ln = secrets[(i // secret_every) % len(secrets)].rstrip("\n")
        elif rng.random() < 0.7:
            ln = rng.choice(step_lines)
        else:
            ln = rng.choice(pool)
        parts.append(ln)
        total += len(ln) + 1
        i += 1
    return "\n".join(parts) + "\n"
