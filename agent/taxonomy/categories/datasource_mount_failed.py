"""A volume / data source failed to mount (a claim, secret or config map it needs is missing or unattachable)."""
from __future__ import annotations

from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.record import Category, ChatWords, RecoContext, SignalRule, TriageGroup

RULES = (
    SignalRule("mount.reason_or_message", Kind.MOUNT_FAILED, on_reason_too=True,
               reasons=frozenset({"failedmount", "failedattachvolume", "failedmapvolume", "volumemismatch"}),
               message=r"\bFailedMount\b|\bFailedAttachVolume\b|\bMountVolume\.\w+ failed\b|"
                       r"\bunable to attach or mount\b|persistentvolumeclaim \S* ?not found|"
                       r"\bpersistentvolumeclaim\b.*\bnot found\b|\bsecret\b.*\bnot found\b.*\bmount|"
                       r"\bcouldn't find key\b|\bfailed to mount\b",
               true=(("FailedMount", 'MountVolume.SetUp failed for volume "d" : secret "s3-creds" not found'),
                     ("FailedAttachVolume", ""),
                     "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data]",
                     'persistentvolumeclaim "train-data" not found'),
               false=(("Pulling", 'Pulling image "r.io/failedmount:latest"'),
                      ("SuccessfulAttachVolume", "AttachVolume.Attach succeeded for volume pvc-1"),
                      "volume data mounted")),
    SignalRule("mount.config_error", Kind.MOUNT_FAILED, detail="config",
               reason_with=(frozenset({"createcontainerconfigerror"}),
                            r"(?s)(?=.*(?:\b(?:secret|configmap|persistentvolumeclaim)s? \S* ?not found\b|\bnot found\b))"
                            r".*(?:secret|persistentvolumeclaim|configmap)"),
               true=(("CreateContainerConfigError", 'configmap "train-cfg" not found'),),
               false=(("CreateContainerConfigError", "container has runAsNonRoot and image will run as root"),
                      ("CreateContainerConfigError", "user not found in image"))),
)


def recommend(c: RecoContext) -> list[str]:
    ns = f" in namespace {c.namespace}" if c.namespace else ""
    return [f"Verify that the referenced PVC / secret / data source exists{ns}, is bound and accessible, and that "
            "the workload's data source definition names it correctly; then resubmit."]


CATEGORY = Category(
    "DATASOURCE_MOUNT_FAILED", 40, "a volume / data source failed to mount", recommend, pod_failure=True, rules=RULES,
    objects=frozenset({"PersistentVolumeClaim", "PersistentVolume"}), spec_lines=("Submitted mounts",),
    words=ChatWords(r"mount|volume|pvc|data\s*source|datasource", ("why not a mount error", "the pvc?",
                                                                   "not the data source"), ("why not oom",)),
    triage=(TriageGroup("datasource", "datasource",
                        lambda k, n: f"Make {k} exist, bound and readable for the {n} workloads that mount it, then "
                                     "resubmit."),))
