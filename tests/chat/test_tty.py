"""``workload-diagnose chat`` through a real pseudo-terminal (pexpect): a question without a cluster → a question
back → the answer → the rendered report; Ctrl-C exits with status 130 and Ctrl-D with 0, never a traceback."""
from __future__ import annotations

import pytest

from tests.chat.procs import EXE, env_for
from tests.chat.worlds import CL, NEW, NOW, chat_world

pexpect = pytest.importorskip("pexpect")


@pytest.fixture
def sim():
    from workload_diagnose.evals.simulator import running_simulator

    with running_simulator(chat_world()) as s:
        yield s


def _spawn(sim, tmp_path):
    env = env_for(sim, tmp_path, TERM="xterm", COLUMNS="120")
    env.pop("NO_COLOR")
    child = pexpect.spawn(EXE, ["chat", "--runai-url", sim.url, "--no-kube", "--now", NOW], env=env,
                          encoding="utf-8", timeout=60, dimensions=(40, 120))
    child.expect_exact("you> ")
    return child


def test_question_back_answer_report_then_ctrl_c(sim, tmp_path):
    child = _spawn(sim, tmp_path)
    child.sendline(f"why did my workload {NEW} fail?")
    child.expect_exact("Which cluster is it on?")
    child.expect_exact("you> ")
    child.sendline(CL)
    child.expect_exact("· get_workload_status")  # per-step progress while evidence is gathered
    child.expect_exact("Category: OOM_KILLED")
    child.expect_exact("Recommendation")
    child.expect_exact("you> ")
    child.sendline("is it recurring?")
    child.expect("within the lookback")
    child.expect_exact("you> ")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "Traceback" not in (child.before or "")
    assert (tmp_path / "workload-diagnose" / "chat.sqlite").exists()  # the XDG state directory


def test_ctrl_d_exits_cleanly(sim, tmp_path):
    child = _spawn(sim, tmp_path)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "Traceback" not in (child.before or "")


def test_ctrl_c_while_evidence_is_gathered(tmp_path):
    from workload_diagnose.evals.simulator import running_simulator

    with running_simulator(chat_world(), delay_ms=1500) as slow:
        child = _spawn(slow, tmp_path)
        child.sendline(f"why did workload {NEW} fail on cluster {CL}?")
        child.expect_exact("· get_workload_status")
        child.sendintr()
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 130 and "Traceback" not in (child.before or "")
