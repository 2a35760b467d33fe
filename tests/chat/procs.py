"""Running the installed ``workload-diagnose`` command against a simulator, in a clean environment."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

EXE = str(Path(sys.executable).parent / "workload-diagnose")


def env_for(sim, state_home: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RUNAI_", "WD_CHAT_", "WD_LLM_", "KUBECONFIG"))}
    env.update(RUNAI_CLIENT_ID=sim.client_id, RUNAI_CLIENT_SECRET=sim.client_secret, XDG_STATE_HOME=str(state_home),
               NO_COLOR="1", **extra)
    return env


def run(args: list[str], env: dict, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, *args], env=env, capture_output=True, text=True, timeout=timeout)


def ask_json(question: str, sim, env: dict, *more: str) -> dict:
    p = run(["ask", question, "--runai-url", sim.url, "--no-kube", "--json", *more], env)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    return json.loads(p.stdout)
