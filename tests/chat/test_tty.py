"""``workload-diagnose chat`` through a real pseudo-terminal (pexpect): a question without a cluster → a question
back → the answer → the rendered report; Ctrl-C at the prompt clears the line and the conversation goes on, Ctrl-C
while evidence is gathered exits 130, Ctrl-D leaves with 0 and says how to resume the thread; never a traceback."""
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


def _spawn(sim, tmp_path, *more: str):
    env = env_for(sim, tmp_path, TERM="xterm", COLUMNS="120")
    env.pop("NO_COLOR")
    child = pexpect.spawn(EXE, ["chat", "--runai-url", sim.url, "--no-kube", "--now", NOW, *more], env=env,
                          encoding="utf-8", timeout=60, dimensions=(40, 120))
    child.expect_exact("you> ")
    return child


def _interrupt_at_prompt(child) -> None:
    """Ctrl-C at the prompt, then the next prompt. CPython's readline looks at a pending signal only when its wait
    for a key is interrupted: a Ctrl-C that lands while readline is still echoing the last typed key waits for the
    next key or signal (a person presses Ctrl-C again; so does this test, once, after 5 s). A chat that does not
    go on after Ctrl-C still fails here: the second Ctrl-C is handled like the first."""
    child.sendintr()
    if child.expect_exact(["you> ", pexpect.TIMEOUT], timeout=5) == 1:
        child.sendintr()
        child.expect_exact("you> ")


def test_question_back_answer_report_then_ctrl_c(sim, tmp_path):
    import io

    child = _spawn(sim, tmp_path)
    seen = child.logfile_read = io.StringIO()
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
    child.send("restart everything pl")  # typed, then dropped with Ctrl-C: never sent, the chat goes on
    child.expect_exact("restart everything pl")  # echoed: readline holds the line and waits for more
    _interrupt_at_prompt(child)
    child.sendline("show the evidence")
    child.expect_exact("Evidence for")  # (the name is styled on a terminal)
    child.expect_exact("you> ")
    assert "I am read-only" not in seen.getvalue()  # the dropped line was never answered
    child.sendeof()
    child.expect_exact("continue this conversation with: workload-diagnose chat --thread ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in (child.before or "")
    assert (tmp_path / "workload-diagnose" / "chat.sqlite").exists()  # the XDG state directory


def test_ctrl_d_exits_cleanly_and_the_thread_resumes(sim, tmp_path):
    child = _spawn(sim, tmp_path)
    child.sendline(f"why did workload {NEW} fail on cluster {CL}?")
    child.expect_exact("Category: OOM_KILLED")
    child.expect_exact("you> ")
    child.sendeof()
    child.expect(r"continue this conversation with: workload-diagnose chat --thread (\S+)")
    thread = child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "Traceback" not in (child.before or "")
    resumed = _spawn(sim, tmp_path, "--thread", thread)  # the same conversation: a follow-up needs no ids
    resumed.sendline("is it recurring?")
    resumed.expect("within the lookback")
    resumed.expect_exact("you> ")
    resumed.sendline("exit")
    resumed.expect_exact(f"--thread {thread}")
    resumed.expect(pexpect.EOF)
    resumed.close()
    assert resumed.exitstatus == 0


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


def test_a_preempted_workload_is_answered_by_the_preemption_diagnosis(tmp_path):
    """'what killed it?' on a preempted workload: the failed diagnosis's route is handed to the preempted procedure
    (its reads are shown as progress too) and the answer reads as a chat answer; then a pending question the
    user asks directly is the pending procedure's."""
    import copy
    import io
    import json

    from workload_diagnose.evals.simulator import running_simulator
    from tests.chat.phrasing import ROOT

    sc = ROOT / "evals" / "scenarios" / "preempted" / "priority-preemption"
    world = json.loads((sc / "world.json").read_text())
    wid = json.loads((sc / "case.json").read_text())["args"]["workload_id"]
    with running_simulator(copy.deepcopy(world)) as s:
        child = _spawn(s, tmp_path)
        seen = child.logfile_read = io.StringIO()
        child.sendline(f"what killed workload {wid}?")
        child.expect_exact("Which cluster is it on?")
        child.expect_exact("you> ")
        child.sendline(CL)
        child.expect_exact("did not fail: it was preempted.")
        child.expect_exact("(PRIORITY_PREEMPTION)")
        child.expect_exact("finetune-urgent")
        child.expect_exact("Recommendation")
        child.expect_exact("you> ")
        child.sendline("why is it still pending?")  # the same workload, now the pending procedure's question
        child.expect_exact("is still Pending")
        child.expect_exact("you> ")
        child.sendeof()
        child.expect(pexpect.EOF)
        child.close()
    out = seen.getvalue()
    assert child.exitstatus == 0 and "Traceback" not in out
    assert "Category: none" not in out and "skill" not in out.lower() and "Option A" not in out
