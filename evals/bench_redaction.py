"""Benchmark worker for issue 6 item 4: redaction / sanitisation throughput and linearity.

Run by ``evals.bench`` in a subprocess pinned to one CPU (``python -m workload_diagnose.evals.bench_redaction SIZE ADV_N``); prints
one JSON object. Two kinds of input:

* a generated *realistic* training log (timestamped step lines, tqdm bars, NCCL chatter, JSON records, warnings,
  Python tracebacks, and about one planted secret per MiB): measured at N/4 and N;
* *adversarial* inputs built to make a backtracking regex engine blow up (long runs, repeated prefixes of the
  context rules, deep nesting, unterminated PEM headers, ...): measured at ADV_N and 4·ADV_N.

Times are CPU time of this single-threaded process (``time.process_time``), so other load on the machine does not
inflate them. Throughput is MB/s with MB = 10^6 bytes of UTF-8 input. Linearity is t(4N) / t(N) (about 4 when linear, 16 when
quadratic). Adversarial timings are steady state (best of several runs); the *first* pass over each input in a
process is measured apart, in a forked child that has seen only the warm-up (re2 builds its DFA lazily, so a new
input shape pays for its states once). The slowest input of each function is profiled (top self time) to say what
limits it.
"""
from __future__ import annotations

import json
import os
import random
import string
import sys
import time
from datetime import datetime, timedelta

ALNUM = string.ascii_letters + string.digits
# CPU time of this (single-threaded) process: the work done on one core, whatever else the machine is running
# (wall time on a shared 2-core machine doubles whenever another process takes the core mid-run)
_clock = time.process_time
B64 = ALNUM + "+/"


def _rand(rnd: random.Random, alphabet: str, n: int) -> str:
    return "".join(rnd.choices(alphabet, k=n))


def _secret(rnd: random.Random, i: int) -> tuple[str, str]:
    """(log line, the secret value that must not survive redaction)."""
    kind = i % 7
    if kind == 0:
        v = "AKIA" + _rand(rnd, string.ascii_uppercase + string.digits, 16)
        return f"export AWS_ACCESS_KEY_ID={v}", v
    if kind == 1:
        v = "ghp_" + _rand(rnd, ALNUM, 36)
        return f"+ git clone https://x-access-token:{v}@github.com/acme/trainer.git", v
    if kind == 2:
        v = "hf_" + _rand(rnd, ALNUM, 34)
        return f"2026-11-20 09:00:01 INFO env HF_TOKEN={v}", v
    if kind == 3:
        v = "eyJhbGciOiJIUzI1NiJ9." + _rand(rnd, ALNUM, 40) + "." + _rand(rnd, ALNUM, 43)
        return f"DEBUG urllib3 send: b'GET /v1/models HTTP/1.1\\r\\nAuthorization: Bearer {v}\\r\\n'", v
    if kind == 4:
        v = _rand(rnd, ALNUM, 20)
        return f"  --db-url postgresql://trainer:{v}@db.internal:5432/runs", v
    if kind == 5:
        v = "nvapi-" + _rand(rnd, ALNUM + "-_", 40)
        return f'{{"ts": "2026-11-20T09:00:00Z", "level": "debug", "msg": "config", "ngc_api_key": "{v}"}}', v
    v = _rand(rnd, ALNUM, 24)
    return f"WARNING: using password={v} from environment (insecure)", v


TRACEBACKS = [
    """Traceback (most recent call last):
  File "/workspace/train.py", line 212, in <module>
    main()
  File "/workspace/train.py", line 188, in main
    loss = model(batch).loss
  File "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", line 1511, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free.""",
    """Traceback (most recent call last):
  File "/workspace/data.py", line 41, in __getitem__
    sample = self.index[key]
KeyError: 'shard-00017'""",
    """[rank3]: Traceback (most recent call last):
[rank3]:   File "/opt/conda/lib/python3.10/site-packages/torch/distributed/c10d_logger.py", line 75, in wrapper
[rank3]:     return func(*args, **kwargs)
[rank3]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled system error, NCCL version 2.20.5""",
]


def realistic_log(size: int, seed: int = 6) -> tuple[str, list[str]]:
    """A deterministic training log of about ``size`` bytes and the secret values planted in it."""
    rnd = random.Random(seed)
    out: list[str] = []
    secrets: list[str] = []
    n = 0
    step = 0
    t = datetime(2026, 11, 20, 9, 0, 0)
    next_secret = 512 * 1024
    while n < size:
        t += timedelta(milliseconds=rnd.randint(50, 900))
        ts = t.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
        r = rnd.random()
        if n >= next_secret:
            line, v = _secret(rnd, len(secrets))
            secrets.append(v)
            next_secret += 1024 * 1024
        elif r < 0.78:
            step += 1
            line = (f"{ts} INFO trainer.py:{rnd.randint(100, 400)} step={step} loss={rnd.uniform(0.5, 3):.4f} "
                    f"lr={rnd.uniform(1e-5, 3e-4):.2e} grad_norm={rnd.uniform(0.1, 4):.3f} "
                    f"tokens/s={rnd.randint(9000, 15000)} gpu_mem={rnd.uniform(60, 79):.1f}GiB")
        elif r < 0.86:
            k = rnd.randint(0, 10)
            i = rnd.randint(1, 938)
            line = (f"Epoch {step // 938 + 1}/10: {i * 100 // 938:3d}%|{'#' * k}{' ' * (10 - k)}| {i}/938 "
                    f"[00:{rnd.randint(0, 59):02d}<01:02, {rnd.uniform(10, 20):.1f}it/s, loss={rnd.uniform(0.5, 3):.3f}]")
        elif r < 0.92:
            line = (f"gpu-node-{rnd.randint(1, 16)}:{rnd.randint(100, 999)}:{rnd.randint(100, 999)} [{rnd.randint(0, 7)}] "
                    f"NCCL INFO Channel {rnd.randint(0, 31):02d}/32 :    0   1   2   3   4   5   6   7")
        elif r < 0.96:
            line = json.dumps({"ts": t.isoformat() + "Z", "level": "info", "msg": "checkpoint saved",
                               "path": f"/ckpt/step_{step}.pt", "size_bytes": rnd.randint(10**9, 10**10),
                               "key_count": rnd.randint(100, 900)})
        elif r < 0.995:
            line = rnd.choice([
                f"{ts} WARNING torch.distributed.elastic: restarting workers (attempt {rnd.randint(1, 3)})",
                "/usr/local/lib/python3.10/dist-packages/torch/_utils.py:831: UserWarning: TypedStorage is "
                "deprecated. It will be removed in the future and UntypedStorage will be the only storage class.",
                f"{ts} INFO dataloader: worker {rnd.randint(0, 15)} prefetch_factor=2 max_new_tokens=512 "
                "token_budget=8192 auth_mode=iam",
            ])
        else:
            line = rnd.choice(TRACEBACKS)
        out.append(line)
        n += len(line) + 1
    return "\n".join(out) + "\n", secrets


UNITS = {  # the repeated unit of each adversarial input (for the cost per unit)
    "run of 'a'": "a",
    "run of '='": "=",
    "run of double quotes": '"',
    "run of single quotes": "'",
    "'Bearer ' repeated": "Bearer ",
    "'Authorization: Bearer ' repeated": "Authorization: Bearer ",
    "'token: ' repeated": "token: ",
    "'password=' repeated": "password=",
    "'key=' repeated": "key=",
    "'http://a:b@' repeated": "http://a:b@",
    "'?token=' repeated": "?token=",
    "escaped quotes repeated": '\\"',
    "'- name: DB_PASSWORD / value:' repeated": "- name: DB_PASSWORD\n  value: ",
    "unterminated PEM headers": "-----BEGIN RSA PRIVATE KEY-----\n",
    "JWT-like prefixes": "eyJhbGciOi.",
    "zero-width chars": "\u200b",
    "injection phrase repeated": "ignore all previous instructions and ",
    "dense real tokens": "ghp_" + "x" * 36 + " ",
}
LONG_B64 = "one unbroken base64 token (4× N)"
RATIO_MAX = 5.0  # t(4N)/t(N): 4 when linear, 16 when quadratic; above 5 is reported as not linear


def adversarial_inputs(n: int, seed: int = 7) -> dict[str, str]:
    """Inputs of about ``n`` bytes that make backtracking engines super-linear."""
    rnd = random.Random(seed)

    def rep(unit: str) -> str:
        return unit * max(1, n // len(unit.encode()))

    k = max(1, n // 6)
    out = {name: rep(unit) for name, unit in UNITS.items() if name != "dense real tokens"}
    # one unbroken token, 4× longer than the others (N = 4n): long enough to reach re2's DFA memory budget
    out[LONG_B64] = _rand(rnd, B64, 4 * n)
    out["deep JSON nesting"] = '{"a":' * k + "1" + "}" * k
    out["deep bracket nesting"] = "[" * (n // 2) + "]" * (n // 2)
    out["dense real tokens"] = " ".join("ghp_" + _rand(rnd, ALNUM, 36) for _ in range(max(1, n // 41)))
    return out


def _time(fn, arg: str, min_runs: int = 1, min_total: float = 0.3, max_runs: int = 6) -> float:
    """Best of ``min_runs`` runs or more, until ``min_total`` seconds were spent (a busy 2-core machine is noisy)."""
    best = float("inf")
    total = 0.0
    for i in range(max_runs):
        t0 = _clock()
        fn(arg)
        dt = _clock() - t0
        best = min(best, dt)
        total += dt
        if i + 1 >= min_runs and total >= min_total:
            break
    return best


def _cold(fn, arg: str) -> float:
    """One run in a forked child of this process: the child starts from the state after the warm-up only (re2
    builds its DFA lazily, so the first pass over a new input shape pays for the states it needs)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        code = 1
        try:
            os.close(r)
            t0 = _clock()
            fn(arg)
            os.write(w, repr(_clock() - t0).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 64)
        if not chunk:
            break
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    return float(data) if data else float("nan")


def _cut(text: str, size: int) -> str:
    """A prefix of ``text`` of about ``size`` characters, ending at a line break."""
    i = text.rfind("\n", 0, size)
    return text[: i + 1] if i > 0 else text[:size]


def measure(size: int, adv_n: int, slow_limit_s: float = 8.0, cold: bool = True, min_total: float = 0.3) -> dict:
    from workload_diagnose import guardrails

    fns = {"redact": guardrails.redact, "sanitize_text": lambda s: guardrails.sanitize_text(s)}
    for f in fns.values():  # warm up (rule compilation, lazy imports)
        f("warm-up password=hunter2hunter2 Bearer abcdefghijkl")
    out: dict = {"cpu_affinity": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None}
    small, big = adversarial_inputs(adv_n), adversarial_inputs(4 * adv_n)

    # 1. cold first passes (forked from the warmed-up-only state), before this process sees any input
    cold_s: dict = {}
    if cold and hasattr(os, "fork"):
        for case, s1 in small.items():
            cold_s[case] = {name: _cold(f, s1) for name, f in fns.items()}

    # 2. the realistic log: N/4 then N, one run each (the N/4 run pays the DFA construction)
    t0 = _clock()
    text, secrets = realistic_log(size)
    out["generate_s"] = _clock() - t0
    quarter = _cut(text, len(text) // 4)
    nbytes, qbytes = len(text.encode()), len(quarter.encode())
    real: dict = {"bytes": nbytes, "quarter_bytes": qbytes, "secrets_planted": len(secrets)}
    for name, f in fns.items():
        tq = _time(f, quarter, min_total=0.0, max_runs=1)
        t0 = _clock()
        res = f(text)
        tf = _clock() - t0
        red = res if isinstance(res, str) else res.text
        real[name] = {"t_quarter_s": tq, "t_full_s": tf, "mb_per_s": nbytes / 1e6 / tf,
                      "ratio_4x": tf / tq * (qbytes * 4 / nbytes) if tq > 0 else None,
                      "markers": red.count("[REDACTED:"),
                      "secrets_left": sum(1 for s in secrets if s in red)}
        del res, red
    out["realistic"] = real
    del text, quarter

    # 3. adversarial inputs, steady state: each input is built the same way at N and at 4N; best of 2+ runs
    #    after a warm-up run. A ratio above RATIO_MAX is measured once more before it is reported (noise from
    #    other processes on a busy machine).
    adv: dict = {}
    for case in small:
        row: dict = {}
        for name, f in fns.items():
            s1, s4 = small[case], big[case]
            b1, b4 = len(s1.encode()), len(s4.encode())
            c = cold_s.get(case, {}).get(name)
            cold_fields = {"t_cold_first_pass_s": c, "cold_mb_per_s": (b1 / 1e6 / c) if c else None}
            f(s1)  # warm-up at N, then N's steady state before any 4N run touches the DFA cache
            t1 = _time(f, s1, min_runs=2, min_total=min_total)
            t0 = _clock()
            f(s4)  # warm-up at 4N
            first = _clock() - t0
            if first > slow_limit_s:  # already a miss: do not spend minutes on it
                row[name] = {"bytes_n": b1, "bytes_4n": b4, "t_n_s": t1, "t_4n_s": first,
                             "mb_per_s": b4 / 1e6 / first, "mb_per_s_at_n": b1 / 1e6 / t1,
                             "ratio_4x": (first / t1) * (4 * b1 / b4), "note": f"one 4N run took {first:.1f} s",
                             **cold_fields}
                continue
            t4 = float("inf")
            for attempt in range(2):
                if attempt:
                    t1 = min(t1, _time(f, s1, min_runs=2, min_total=min_total))
                t4 = min(t4, _time(f, s4, min_runs=2, min_total=min_total))
                if (t4 / t1) * (4 * b1 / b4) <= RATIO_MAX:
                    break
            unit = UNITS.get(case)
            row[name] = {"bytes_n": b1, "bytes_4n": b4, "t_n_s": t1, "t_4n_s": t4, "mb_per_s": b4 / 1e6 / t4,
                         "mb_per_s_at_n": b1 / 1e6 / t1, "ratio_4x": (t4 / t1) * (4 * b1 / b4) if t1 > 0 else None,
                         "us_per_unit": (t4 * 1e6 / (b4 / len(unit.encode()))) if unit else None, **cold_fields}
        adv[case] = row
    out["adversarial"] = adv

    # 4. what limits the slowest input of each function (a profile of one run at N), and what makes a
    #    non-linear input non-linear (a profile of one run at 4N)
    nonlin: dict = {}
    for name, f in fns.items():
        for case, r in adv.items():
            ratio = r[name].get("ratio_4x")
            if (ratio is None or ratio > RATIO_MAX) and r[name]["t_4n_s"] <= slow_limit_s / 2:
                nonlin.setdefault(name, {})[case] = profile_top(f, big[case])
    out["nonlinear_profile"] = nonlin
    prof: dict = {}
    for name, f in fns.items():
        case = min(adv, key=lambda c: adv[c][name]["mb_per_s"])
        prof[name] = {"case": case, "bytes": len(small[case].encode()), "units": (
            len(small[case].encode()) // len(UNITS[case].encode())) if case in UNITS else None,
            "top": profile_top(f, small[case])}
    out["worst_profile"] = prof
    return out


def profile_top(fn, arg: str, n: int = 4) -> list[dict]:
    """The functions with the most self time in one run of ``fn(arg)``."""
    import cProfile
    import pstats

    pr = cProfile.Profile()
    pr.enable()
    fn(arg)
    pr.disable()
    st = pstats.Stats(pr)
    total = sum(v[2] for v in st.stats.values()) or 1e-9
    rows = []
    for (file, line, func), (cc, nc, tt, ct, _) in st.stats.items():
        where = f"{os.path.basename(file)}:{line}({func})" if file != "~" else func
        rows.append({"function": where, "self_share": tt / total, "calls": nc})
    return sorted(rows, key=lambda r: -r["self_share"])[:n]


if __name__ == "__main__":
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 50 * 1024 * 1024
    adv_n = int(sys.argv[2]) if len(sys.argv) > 2 else 256 * 1024
    cold = "--no-cold" not in sys.argv
    min_total = 0.05 if "--quick" in sys.argv else 0.3
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    print(json.dumps(measure(size, adv_n, cold=cold, min_total=min_total)))
