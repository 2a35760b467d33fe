"""Terminated by a scheduling, idle, duration or manual-stop policy; the detail names which."""
from __future__ import annotations

from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.record import Category, ChatWords, RecoContext, SignalRule, TriageGroup

# a scheduling wait in the same message ("exceeds the project's quota policy") is a wait, not a stop
_WAIT = frozenset({Kind.SCHEDULING_WAIT})
RULES = (
    SignalRule("policy.idle", Kind.POLICY_STOP, on_reason_too=True, detail="idle timeout", unless_kinds=_WAIT,
               message=r"\bidle\b",
               true=("Workload was stopped after being idle for 2h", ("IdleTimeout", "GPU idle for 60m")),
               false=("the trainer is running", ("FailedScheduling", "0/3 nodes are available; idle quota"))),
    SignalRule("policy.max_duration", Kind.POLICY_STOP, on_reason_too=True, detail="maximum duration",
               unless_kinds=_WAIT,
               message=r"\bmax(?:imum)?[ _-]?(?:duration|runtime)\b|\bMaxDuration|\bruntime limit\b|"
                       r"\bactiveDeadlineSeconds\b|\bDeadlineExceeded\b|\bwas active longer than\b|\btime ?limit\b",
               # a gRPC status (a CSI attach, a registry call) that ran out of time is not a Job's deadline
               unless=r"\bcode ?= ?DeadlineExceeded\b|\bcontext deadline exceeded\b",
               true=(("Stopped", "Workload stopped: exceeded maximum duration of 24h"),
                     ("DeadlineExceeded", "Job was active longer than specified deadline")),
               false=("checkpoint saved after 24h", "duration of the epoch: 3h",
                      # kubernetes-sigs/aws-ebs-csi-driver#867 (a CSI attach call, not a duration policy)
                      'AttachVolume.Attach failed for volume "pvc-xxxxxx-xxxx-xxxx" : rpc error: code = '
                      'DeadlineExceeded desc = context deadline exceeded',
                      ("Failed", 'Failed to pull image "r.io/a:b": rpc error: code = DeadlineExceeded desc = '
                                 'context deadline exceeded'))),
    SignalRule("policy.manual_stop", Kind.POLICY_STOP, on_reason_too=True, detail="manual stop", unless_kinds=_WAIT,
               message=r"\bstopped by\b|\bmanual(?:ly)? stop|\bstop(?:ped)? (?:was )?requested\b|"
                       r"\bStopRequested\b|\bUserStop|\buser[- ](?:initiated|requested) stop\b|\bstop command\b",
               true=("Workload stopped by user alice", ("StopRequested", "")),
               false=("Stopping container trainer", "the run stopped improving")),
    SignalRule("policy.scheduling_policy", Kind.POLICY_STOP, on_reason_too=True, detail="scheduling policy",
               unless_kinds=_WAIT, message=r"\bpolicy\b|\bPolicyViolation\b|\bWorkloadPolicy\b",
               true=("Terminated by the project's workload policy", ("PolicyViolation", "")),
               false=("restartPolicy: OnFailure", ("Unschedulable", "quota policy of project ml is exceeded"))),
)


def recommend(c: RecoContext) -> list[str]:
    kinds = sorted({s.detail for s in c.signals if s.kind == Kind.POLICY_STOP and s.detail})
    pol = ", ".join(kinds) if kinds else "a scheduling policy"
    return [f"The workload was terminated by {pol}. If that was unintended, ask the administrator to review the "
            "policy; otherwise adjust the workload to fit it."]


CATEGORY = Category(
    "SCHEDULING_POLICY_TERMINATED", 70, "terminated by a scheduling, idle, duration or manual-stop policy",
    recommend, rules=RULES,
    words=ChatWords(r"polic|idle|timeout|max(?:imum)?\s+duration|scheduling",
                    ("why not a policy", "the idle timeout?", "maximum duration"), ("why not oom",)),
    triage=(TriageGroup("project_policy", "project",
                        lambda k, n: f"Review project {k}'s quota and policies (idle, duration, deadline) with the "
                                     f"administrator: they stopped {n} of its workloads."),))
