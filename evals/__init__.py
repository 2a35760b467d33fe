"""Evaluation: the Run:ai simulator, scenario worlds, recorded cassettes and the replay runner."""
