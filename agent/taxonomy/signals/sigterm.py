"""Exit 143 (SIGTERM): the system asked the container to stop; which system and why needs other evidence."""
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.vocabulary import SIGTERM
from workload_diagnose.agent.taxonomy.record import SignalRule, SignalSet

SIGNAL = SignalSet(Kind.SIGTERM, unexplained=True, rules=(
    SignalRule("sigterm.exit_code", Kind.SIGTERM, exit_codes=frozenset({SIGTERM}), exit_code=SIGTERM,
               unless_kinds=frozenset({Kind.INIT_FAILED}),
               true=("terminated with exit code 143", ("Error", "exitCode: 143")),
               false=("terminated with exit code 1", "init container setup exited with code 143")),
))
