"""Measurements of the guardrails, with the targets they must meet.

    from workload_diagnose.guardrails.report import run_report, main
    run_report(size_mb=50) -> dict          # numbers
    main()                                  # prints a table and writes guardrails_report.json

Measured:
* recall of known-format secrets (secret gone) and full-span recall (no 8-character window of it left),
  per vendor format, on the generated corpus (``guardrails.corpora.secrets``);
* recall of key-labelled generic secrets (full span);
* fraction of benign evidence lines and hard negatives altered by redaction;
* idempotence violations (``redact(redact(x)) != redact(x)``) over all corpora;
* throughput of ``redact`` on a ~``size_mb`` MB realistic log on one core (single thread; MB per second of
  this thread's CPU time, with the wall-clock figure alongside), plus ``sanitize_text`` and per-line
  redaction;
* adversarial timing: inputs built to make backtracking regexes explode, at N and 4N characters; the
  ratio t(4N)/t(N) stays ≈ 4 when the work is linear (super-linear would be ≥ 16 for quadratic);
* prompt-injection detection over the injection corpus (per family / location) and false positives on the
  benign corpus.  (How often an injection changes the verdict is measured by the evals, not here.)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from . import detect_injection, normalise, redact, sanitize_text
from .corpora.benign import benign_lines, realistic_log
from .corpora.injection import heldout_injection_cases, injection_cases, injection_corpus  # noqa: F401 (re-export)
from .corpora.secrets import generic_samples, hard_negatives, known_format_samples

TARGETS = {
    "known_format_full_span_recall": (">=", 1.0),
    "generic_key_labelled_recall": (">=", 0.98),
    "benign_lines_altered": ("<=", 0.005),
    "throughput_mb_s": (">=", 20.0),
    "adversarial_max_ratio_4x": ("<=", 8.0),
    "idempotence_violations": ("<=", 0),
}


def _windows(s: str, w: int = 8) -> list[str]:
    w = min(w, len(s))
    return [x for x in (s[i:i + w] for i in range(len(s) - w + 1)) if not any(c.isspace() for c in x)]


def _leaks(secret: str, out: str) -> tuple[bool, bool]:
    """(secret still present, some 8-char window of it still present)."""
    present = secret in out
    return present, present or any(x in out for x in _windows(secret))


# ------------------------------------------------------------------------------------------ secrets
def measure_secrets() -> dict[str, Any]:
    known = known_format_samples()
    per_fmt: dict[str, dict[str, int]] = defaultdict(lambda: {"n": 0, "removed": 0, "full_span": 0})
    failures = []
    idem = 0
    for s in known:
        out = redact(s.text)
        present, partial = _leaks(s.secret, out)
        d = per_fmt[s.kind]
        d["n"] += 1
        d["removed"] += not present
        d["full_span"] += not partial
        if partial and len(failures) < 20:
            failures.append({"format": s.kind, "context": s.context, "output": out[:300]})
        if redact(out) != out:
            idem += 1
    n = len(known)
    removed = sum(d["removed"] for d in per_fmt.values())
    full = sum(d["full_span"] for d in per_fmt.values())

    gen = generic_samples()
    g_ok = 0
    g_fail: dict[str, int] = defaultdict(int)
    g_examples = []
    for s in gen:
        out = redact(s.text)
        _present, partial = _leaks(s.secret, out)
        if partial:
            g_fail[s.context] += 1
            if len(g_examples) < 10:
                g_examples.append({"context": s.context, "text": s.text[:200], "output": out[:200]})
        else:
            g_ok += 1
        if redact(out) != out:
            idem += 1

    hard = hard_negatives()
    hard_altered = [h for h in hard if redact(h) != h]
    benign = benign_lines(5000)
    benign_altered = [b for b in benign if redact(b) != b]
    for t in hard + benign:
        r = redact(t)
        if redact(r) != r:
            idem += 1
    return {
        "known_formats": {
            "formats": len(per_fmt), "samples": n,
            "recall": removed / n, "full_span_recall": full / n,
            "per_format": {k: {"n": v["n"], "full_span_recall": v["full_span"] / v["n"]} for k, v in sorted(per_fmt.items())},
            "failures": failures,
        },
        "generic_key_labelled": {
            "samples": len(gen), "recall": g_ok / len(gen), "failures_by_context": dict(g_fail),
            "failure_examples": g_examples,
        },
        "benign": {
            "benign_lines": len(benign), "benign_altered": len(benign_altered),
            "hard_negatives": len(hard), "hard_negatives_altered": len(hard_altered),
            "altered_fraction": (len(benign_altered) + len(hard_altered)) / (len(benign) + len(hard)),
            "altered_examples": [x[:200] for x in (benign_altered + hard_altered)[:10]],
        },
        "idempotence_violations": idem,
    }


# ------------------------------------------------------------------------------------------ throughput
def _pin_one_core() -> Any:
    """No-op kept for clarity: the measured work is single-threaded (re2 does not spawn threads), and the
    figures use this thread's CPU time, i.e. time on one core.  Pinning to a fixed CPU only made the
    wall-clock figure worse when another process was busy on that CPU."""
    return None


def _unpin(old: Any) -> None:
    if old is not None:
        try:
            os.sched_setaffinity(0, old)
        except OSError:
            pass


def measure_throughput(size_mb: int = 50) -> dict[str, Any]:
    secrets = [s.text for s in known_format_samples(per_format=2, seed=99)]
    planted = [s for s in known_format_samples(per_format=2, seed=99)]
    text = realistic_log(size_mb * 1_000_000, secrets=secrets, secret_every=2000)
    mb = len(text.encode("utf-8")) / 1e6
    old = _pin_one_core()
    try:
        # single-threaded work; CPU time of this thread = time on one core, undistorted by other load
        # on the machine; the wall-clock figure is reported next to it.  Best of two runs.
        walls, cpus = [], []
        for _ in range(2):
            c0, t0 = time.thread_time(), time.perf_counter()
            out = redact(text)
            walls.append(time.perf_counter() - t0)
            cpus.append(time.thread_time() - c0)
        t_redact, c_redact = min(walls), min(cpus)
        c0, t0 = time.thread_time(), time.perf_counter()
        st = sanitize_text(text)
        t_sanitize, c_sanitize = time.perf_counter() - t0, time.thread_time() - c0
        lines = text[: 5_000_000].splitlines()
        c0 = time.thread_time()
        for ln in lines:
            redact(ln)
        c_lines = time.thread_time() - c0
        small = [ln[:60] for ln in lines[:50_000]]
        c0 = time.thread_time()
        for ln in small:
            redact(ln)
        c_small = time.thread_time() - c0
    finally:
        _unpin(old)
    # the planted secrets must be gone from the big log too (exact-secret check over the whole output;
    # the 8-character-window check is done on the corpus itself, where it is affordable)
    leaked = sum(1 for s in planted if s.secret in text and s.secret in out)
    changed_lines = sum(1 for a, b in zip(text.splitlines(), out.splitlines()) if a != b)
    return {
        "log_mb": round(mb, 1),
        "redact_mb_s": round(mb / c_redact, 1),
        "redact_mb_s_wall": round(mb / t_redact, 1),
        "sanitize_text_mb_s": round(mb / c_sanitize, 1),
        "sanitize_text_mb_s_wall": round(mb / t_sanitize, 1),
        "sanitize_injection_findings": len(st.injections),
        "per_line_redact_mb_s": round(sum(len(x) + 1 for x in lines) / 1e6 / c_lines, 1),
        "small_string_us": round(c_small / max(1, len(small)) * 1e6, 2),
        "planted_secrets_leaked": leaked,
        "lines_changed": changed_lines,
        "single_thread_cpu_time": True,
    }


# ------------------------------------------------------------------------------------------ adversarial
def _adversarial_inputs() -> dict[str, Callable[[int], str]]:
    b64 = "aZ3+/kQ9Lm0x"
    return {
        "a*N+!": lambda n: "a" * n + "!",
        "A*N (AKIA-like)": lambda n: "AKIA" + "A" * n,
        "base64 run": lambda n: (b64 * (n // len(b64) + 1))[:n],
        "quotes \"*N": lambda n: '"' * n,
        "escaped quotes": lambda n: '\\"' * (n // 2),
        "nested quotes": lambda n: ('password="' + "'\\\"") * (n // 14),
        "password=*N": lambda n: "password=" * (n // 9),
        "--password *N": lambda n: "--password " * (n // 11),
        "token: *N": lambda n: "token: " * (n // 7),
        "key=a*N": lambda n: "key=" + "a1" * (n // 2),
        "PEM BEGIN *N": lambda n: "-----BEGIN RSA PRIVATE KEY-----" * (n // 31),
        "PEM BEGIN + base64 no END": lambda n: "-----BEGIN PRIVATE KEY-----\n" + ("QUJD" * 16 + "\n") * (n // 65),
        "eyJ. *N (JWT-like)": lambda n: "eyJhbGciOi." * (n // 11),
        "Bearer *N": lambda n: "Bearer " * (n // 7),
        "url x:*N no @": lambda n: "https://" + "u:" * (n // 2),
        "url user:pass@ *N": lambda n: "http://u:p@h " * (n // 13),
        "- name: / value: *N": lambda n: "- name: DB_PASSWORD\n  value: " * (n // 29),
        "json env *N": lambda n: '{"name": "PASSWORD", "value": ' * (n // 30),
        "$(token= *N": lambda n: "$(token=" * (n // 8),
        "sk-a- *N": lambda n: "sk-" + "a-" * (n // 2),
        "glpat-a. *N": lambda n: "glpat-" + "a." * (n // 2),
        "docker login no -p": lambda n: "docker login " + "x " * (n // 2),
        "zero-width *N": lambda n: "\u200b" * n,
        "tag chars *N": lambda n: "\U000E0041" * (n // 2),
        "ignore previous *N": lambda n: "ignore previous " * (n // 16),
        "ignore all all all ... ": lambda n: "ignore " + "all " * (n // 4),
        "<<EVIDENCE *N": lambda n: "<<EVIDENCE " * (n // 11),
        "yaml block scalar *N": lambda n: "password: |\n" * (n // 12),
        # dense candidates that all differ (defeats the per-call memo): the slowest linear case
        "varied: x{i}_token: expired": lambda n: _varied("x{i}_token: expired ", n),
        "varied: --x{i}-password --v": lambda n: _varied("--x{i}-password --v{i} ", n),
        "varied: x{i}_password: |": lambda n: _varied("x{i}_password: |\n", n),
        "varied: Bearer tok{i}x": lambda n: _varied("Bearer tok{i}x ", n),
        "varied: json env": lambda n: _varied('{{"name": "X{i}", "value": "v{i}"}} ', n),
    }


def _varied(fmt: str, n: int) -> str:
    out = []
    total = 0
    i = 0
    while total < n:
        s = fmt.format(i=i)
        out.append(s)
        total += len(s)
        i += 1
    return "".join(out)[:n]


def _best_time(fn: Callable[[str], Any], s: str, reps: int = 3) -> float:
    """Best-of CPU time of this thread (robust to other load on the machine)."""
    best = float("inf")
    for _ in range(reps):
        t0 = time.thread_time()
        fn(s)
        best = min(best, time.thread_time() - t0)
    return best


def measure_adversarial(n: int = 250_000) -> dict[str, Any]:
    fns: dict[str, Callable[[str], Any]] = {"redact": redact, "normalise": normalise,
                                             "detect_injection": detect_injection}
    rows = []
    worst = 0.0
    old = _pin_one_core()
    try:
        for name, gen in _adversarial_inputs().items():
            s1, s4 = gen(n), gen(4 * n)
            for fname, fn in fns.items():
                t1 = _best_time(fn, s1)
                t4 = _best_time(fn, s4)
                # tiny timings are noise: only ratios of measurable work count towards "worst"
                ratio = t4 / t1 if t1 > 0 else 0.0
                if t4 > 0.02:
                    worst = max(worst, ratio)
                rows.append({"input": name, "fn": fname, "n": len(s1), "t_n_ms": round(t1 * 1e3, 2),
                             "t_4n_ms": round(t4 * 1e3, 2), "ratio": round(ratio, 2),
                             "mb_s_4n": round(len(s4.encode()) / 1e6 / t4, 1) if t4 > 0 else None})
    finally:
        _unpin(old)
    slowest = max(rows, key=lambda r: r["t_4n_ms"])
    return {"n": n, "max_ratio_4x": round(worst, 2), "slowest": slowest,
            "slowest_mb_s": slowest["mb_s_4n"], "rows": rows}


# ------------------------------------------------------------------------------------------ injection
def measure_injection() -> dict[str, Any]:
    cases = injection_cases()
    by_family: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_loc: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missed = []
    for c in cases:
        hit = bool(detect_injection(c.payload))
        for d, k in ((by_family, c.family), (by_loc, c.location)):
            d[k][0] += hit
            d[k][1] += 1
        if not hit and len(missed) < 20:
            missed.append({"family": c.family, "location": c.location, "payload": c.payload[:160]})
    benign = benign_lines(5000)
    flagged = [b for b in benign if detect_injection(b)]
    detected = sum(v[0] for v in by_family.values())
    held = heldout_injection_cases()
    held_hits = [bool(detect_injection(c.payload)) for c in held]
    return {
        "cases": len(cases), "detected": detected, "detection_rate": detected / len(cases),
        "by_family": {k: round(v[0] / v[1], 3) for k, v in sorted(by_family.items())},
        "by_location": {k: round(v[0] / v[1], 3) for k, v in sorted(by_loc.items())},
        "missed": missed,
        "benign_lines": len(benign), "benign_flagged": len(flagged),
        "benign_false_positive_rate": len(flagged) / len(benign),
        "benign_flagged_examples": [f[:160] for f in flagged[:10]],
        "heldout_cases": len(held), "heldout_detected": sum(held_hits),
        "heldout_detection_rate": sum(held_hits) / len(held),
        "heldout_missed": [c.payload[:120] for c, h in zip(held, held_hits) if not h],
        "note": ("the main corpus was written together with the rules (an upper bound); the held-out "
                 "paraphrases were written after the rules were frozen and not tuned against"),
    }



# ------------------------------------------------------------------------------------------ report
def run_report(size_mb: int = 50, adversarial_n: int = 250_000) -> dict:
    t0 = time.perf_counter()
    sec = measure_secrets()
    thr = measure_throughput(size_mb)
    adv = measure_adversarial(adversarial_n)
    inj = measure_injection()
    values = {
        "known_format_full_span_recall": sec["known_formats"]["full_span_recall"],
        "generic_key_labelled_recall": sec["generic_key_labelled"]["recall"],
        "benign_lines_altered": sec["benign"]["altered_fraction"],
        "throughput_mb_s": thr["redact_mb_s"],
        "adversarial_max_ratio_4x": adv["max_ratio_4x"],
        "idempotence_violations": sec["idempotence_violations"],
    }
    targets = {}
    for k, (op, tgt) in TARGETS.items():
        v = values[k]
        met = v >= tgt if op == ">=" else v <= tgt
        targets[k] = {"value": v, "target": f"{op} {tgt}", "met": bool(met)}
    return {
        "targets": targets,
        "all_targets_met": all(t["met"] for t in targets.values()),
        "secrets": sec,
        "throughput": thr,
        "adversarial": adv,
        "injection": inj,
        "environment": {"python": sys.version.split()[0], "platform": platform.platform(),
                        "cpu_count": os.cpu_count()},
        "elapsed_s": round(time.perf_counter() - t0, 1),
    }


def format_table(rep: dict) -> str:
    lines = ["Guardrails report", "=" * 78,
             f"{'metric':40} {'value':>14} {'target':>12} {'met':>6}", "-" * 78]
    for k, t in rep["targets"].items():
        v = t["value"]
        vs = f"{v:.4f}" if isinstance(v, float) and v <= 1.0 and "ratio" not in k else f"{v}"
        lines.append(f"{k:40} {vs:>14} {t['target']:>12} {('yes' if t['met'] else 'NO'):>6}")
    s = rep["secrets"]
    thr = rep["throughput"]
    inj = rep["injection"]
    adv = rep["adversarial"]
    lines += [
        "-" * 78,
        f"known formats: {s['known_formats']['formats']} vendor formats, {s['known_formats']['samples']} samples, "
        f"recall {s['known_formats']['recall']:.4f}, full-span {s['known_formats']['full_span_recall']:.4f}",
        f"generic key-labelled: {s['generic_key_labelled']['samples']} samples, recall {s['generic_key_labelled']['recall']:.4f}",
        f"benign: {s['benign']['benign_altered']}/{s['benign']['benign_lines']} benign lines and "
        f"{s['benign']['hard_negatives_altered']}/{s['benign']['hard_negatives']} hard negatives altered",
        f"throughput (CPU time, one thread): redact {thr['redact_mb_s']} MB/s (wall {thr['redact_mb_s_wall']}) on a "
        f"{thr['log_mb']} MB log, sanitize_text {thr['sanitize_text_mb_s']} MB/s (wall {thr['sanitize_text_mb_s_wall']}), "
        f"per-line {thr['per_line_redact_mb_s']} MB/s, "
        f"small string {thr['small_string_us']} us; planted secrets leaked: {thr['planted_secrets_leaked']}",
        f"adversarial: {len(adv['rows'])} (input, fn) pairs at N={adv['n']} and 4N, worst t(4N)/t(N) = {adv['max_ratio_4x']}; "
        f"slowest: {adv['slowest']['input']} / {adv['slowest']['fn']} {adv['slowest']['t_4n_ms']} ms for 4N "
        f"({adv['slowest_mb_s']} MB/s)",
        f"injection: detected {inj['detected']}/{inj['cases']} ({inj['detection_rate']:.3f}); benign flagged "
        f"{inj['benign_flagged']}/{inj['benign_lines']} ({inj['benign_false_positive_rate']:.4f}); held-out paraphrases "
        f"{inj['heldout_detected']}/{inj['heldout_cases']} ({inj['heldout_detection_rate']:.3f})",
        f"all targets met: {rep['all_targets_met']}   (elapsed {rep['elapsed_s']} s)",
    ]
    return "\n".join(lines)


def main(size_mb: int = 50, out: str | None = "guardrails_report.json", argv: list[str] | None = None,
         adversarial_n: int = 250_000) -> dict:
    """Print the table and write the JSON report (CLI: ``workload-diagnose guardrails-report``).

    ``argv`` is parsed only when given (``--size-mb``, ``--adversarial-n``, ``--out``), so a CLI framework
    may call ``main(size_mb=…, out=…)`` directly."""
    if argv is not None:
        ap = argparse.ArgumentParser(prog="guardrails-report")
        ap.add_argument("--size-mb", type=int, default=size_mb)
        ap.add_argument("--adversarial-n", type=int, default=adversarial_n)
        ap.add_argument("--out", default=out)
        ns = ap.parse_args(argv)
        size_mb, out, adversarial_n = ns.size_mb, ns.out, ns.adversarial_n
    rep = run_report(size_mb=size_mb, adversarial_n=adversarial_n)
    print(format_table(rep))
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            json.dump(rep, fh, indent=2, ensure_ascii=False)
        print(f"JSON written to {out}")
    return rep


if __name__ == "__main__":  # pragma: no cover
    main(argv=sys.argv[1:])
