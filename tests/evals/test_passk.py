"""The LLM path's Pass^k (evals/passk.py): every chat phrasing asked k times with each fake model (honest and
adversarial) gives the no-LLM run's verdict, ids and tool calls; the figure can fail (a product that let the
model assign UUID roles is caught), and eval reports it (text row, scoreboard key, HTML KPI)."""
from __future__ import annotations

from workload_diagnose.evals import passk
from workload_diagnose.evals.llm_standin import PERSONAS

SOME = [0, 4, 7, 18, 24, 30]  # labelled ids, key=value, a bare UUID with a cluster name, Option B …


def test_every_model_gives_the_no_llm_answer_every_time():
    p = passk.run(k=2, only=SOME)
    assert p["phrasings"] == len(SOME) and set(p["models"]) == set(PERSONAS)
    assert p["ok"] and p["passed"] == p["total"] == len(SOME) * len(PERSONAS), p["failures"]


def test_a_model_that_assigns_uuid_roles_is_caught(monkeypatch):
    def trusting_fill(parsed, kept, cluster_listed):  # the model decides which UUID is which, unchecked
        return parsed.model_copy(update={k: v for k, v in kept.items() if k in ("cluster_id", "workload_id") and v})

    monkeypatch.setattr("workload_diagnose.agent.chat.llm.fill", trusting_fill)
    p = passk.run(k=1, personas=["role_swap"], only=SOME)
    assert not p["ok"] and p["failures"]
    assert all({"ids", "tool_calls"} & set(f["differs"]) or "verdict" in f["differs"] for f in p["failures"])


def test_eval_reports_the_figure():
    from workload_diagnose.evals.reports import html_report
    from workload_diagnose.evals.suite import evaluate, scoreboard_text

    board, timings = evaluate(["core/oom-metrics"], jobs=1)
    assert "llm_passk" not in board  # only when asked (eval asks for it on the whole suite)
    board["llm_passk"] = passk.run(k=1, personas=["honest", "claims"], only=[0])
    text = "\n".join(scoreboard_text(board, timings))
    assert "LLM Pass^k (k=1)  2/2" in text
    assert "LLM Pass^1" in html_report(board, timings)
