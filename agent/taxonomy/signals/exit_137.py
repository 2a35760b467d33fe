"""Exit 137 (SIGKILL) without OOMKilled: unresolved until node or policy evidence explains it; never OOM."""
from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.vocabulary import SIGKILL
from workload_diagnose.agent.taxonomy.record import SignalRule, SignalSet

SIGNAL = SignalSet(Kind.EXIT_137, pod_failure=True, confirms_crash=True, unexplained=True, rules=(
    SignalRule("exit_137.exit_code", Kind.EXIT_137, exit_codes=frozenset({SIGKILL}), exit_code=SIGKILL,
               unless_kinds=frozenset({Kind.OOM, Kind.INIT_FAILED}),
               true=("terminated with exit code 137", ("Error", "exitCode: 137")),
               false=("terminated with exit code 137 (OOMKilled)", "terminated with exit code 1",
                      "init container setup exited with code 137")),
))
