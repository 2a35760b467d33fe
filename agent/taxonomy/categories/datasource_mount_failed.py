"""A volume / data source failed to mount (a claim, secret or config map it needs is missing or unattachable).

A CSI attach or mount call that ran out of time (gRPC ``code = DeadlineExceeded``, "attachment timeout for volume",
the kubelet's "timed out waiting for the condition" on unattached volumes) is a mount failure of the storage path,
not a duration policy: its recommendation points at the driver and the volume attachment, not at a missing claim.
"""
from __future__ import annotations

from workload_diagnose.agent.model.signals import Kind
from workload_diagnose.agent.taxonomy.record import Category, ChatWords, RecoContext, SignalRule, TriageGroup

RULES = (
    # first: the storage path ran out of time (the attach / mount RPC, or the attach itself)
    SignalRule("mount.attach_timeout", Kind.MOUNT_FAILED, on_reason_too=True, detail="attach_timeout",
               message=r"\b(?:AttachVolume\.Attach|MountVolume\.\w+) failed\b.*(?:\bcode ?= ?DeadlineExceeded\b|"
                       r"\bcontext deadline exceeded\b)|\battachment timeout for volume\b|"
                       r"\btimeout expired waiting for volumes to attach\b|"
                       r"\bunable to attach or mount volumes\b.*\btimed out waiting for the condition\b",
               true=(
                   # kubernetes-sigs/aws-ebs-csi-driver#1783 and #867 (attachdetach-controller, FailedAttachVolume)
                   ("FailedAttachVolume", 'AttachVolume.Attach failed for volume "pvc-95a5209c-797c-49de-ae30-'
                                          '9def18935393" : rpc error: code = DeadlineExceeded desc = context '
                                          'deadline exceeded'),
                   # the same text where a reason is not kept (a phase message, a condition)
                   'AttachVolume.Attach failed for volume "pvc-1" : rpc error: code = DeadlineExceeded desc = '
                   'context deadline exceeded',
                   # kubernetes-sigs/aws-ebs-csi-driver#292 (in-tree attacher, then the kubelet's mount wait)
                   ("FailedAttachVolume", 'AttachVolume.Attach failed for volume "pvc-5dea601a-f076-40d5-8d0a-'
                                          'fe1ea4e04e74" : attachment timeout for volume vol-0ddf92e13636fa667'),
                   ("FailedMount", 'Unable to mount volumes for pod "app_default(35032cc6)": timeout expired '
                                   'waiting for volumes to attach or mount for pod "default"/"app". list of '
                                   'unmounted volumes=[persistent-storage]'),
                   ("FailedMount", 'MountVolume.MountDevice failed for volume "pvc-7" : rpc error: code = '
                                   'DeadlineExceeded desc = context deadline exceeded'),
                   # the kubelet gives up waiting for the attach (kubernetes-sigs/aws-ebs-csi-driver#292, newer wording)
                   ("FailedMount", "Unable to attach or mount volumes: unmounted volumes=[datasets], unattached "
                                   "volumes=[datasets kube-api-access-9k2lm]: timed out waiting for the condition")),
               false=(
                   # kubernetes/kubernetes#77104: the attach succeeded in the end
                   ("SuccessfulAttachVolume", 'AttachVolume.Attach succeeded for volume "pvc-20480633-6661-11e9-'
                                              '8227-3a8d7c0bb20e"'),
                   # a registry timeout is an image pull, a Job deadline a policy
                   ("Failed", 'Failed to pull image "r.io/a:b": rpc error: code = DeadlineExceeded desc = context '
                              'deadline exceeded'),
                   ("DeadlineExceeded", "Job was active longer than specified deadline"))),
    SignalRule("mount.reason_or_message", Kind.MOUNT_FAILED, on_reason_too=True,
               reasons=frozenset({"failedmount", "failedattachvolume", "failedmapvolume", "volumemismatch"}),
               message=r"\bFailedMount\b|\bFailedAttachVolume\b|\bMountVolume\.\w+ failed\b|"
                       r"\bAttachVolume\.Attach failed\b|"
                       r"\bunable to attach or mount\b|persistentvolumeclaim \S* ?not found|"
                       r"\bpersistentvolumeclaim\b.*\bnot found\b|\bsecret\b.*\bnot found\b.*\bmount|"
                       r"\bcouldn't find key\b|\bfailed to mount\b",
               true=(("FailedMount", 'MountVolume.SetUp failed for volume "d" : secret "s3-creds" not found'),
                     ("FailedAttachVolume", ""),
                     ("FailedMount", "Unable to attach or mount volumes: unmounted volumes=[data]: error processing "
                                     "PVC ns/data"),
                     "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data]",
                     # kubernetes-sigs/aws-ebs-csi-driver#1801 (an attach that failed for another reason)
                     'AttachVolume.Attach failed for volume "pvc-XXX" : rpc error: code = Internal desc = Could not '
                     'attach volume "vol-XXX" to node "i-XXX": attachment of disk "vol-XX" failed, expected device '
                     'to be attached but was attaching',
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
    mounts = [s for s in c.signals if s.kind == Kind.MOUNT_FAILED]
    missing = any(s.detail == "config" or "not found" in s.text for s in mounts)
    out = []
    if any(s.detail == "attach_timeout" for s in mounts):
        out.append("The storage driver did not attach or mount the volume in time (the attach/mount call cited "
                   "above timed out): check the CSI driver's controller and node plugin (their attacher logs), the "
                   "claim's VolumeAttachment (it may still be attached to another node) and the node's volume "
                   "attach limit with the administrator; then resubmit.")
    if missing or not out:
        out.append(f"Verify that the referenced PVC / secret / data source exists{ns}, is bound and accessible, and "
                   "that the workload's data source definition names it correctly; then resubmit.")
    return out


CATEGORY = Category(
    "DATASOURCE_MOUNT_FAILED", 40, "a volume / data source failed to mount", recommend, pod_failure=True, rules=RULES,
    objects=frozenset({"PersistentVolumeClaim", "PersistentVolume"}), spec_lines=("Submitted mounts",),
    words=ChatWords(r"mount|volume|pvc|data\s*source|datasource", ("why not a mount error", "the pvc?",
                                                                   "not the data source"), ("why not oom",)),
    triage=(TriageGroup("datasource", "datasource",
                        lambda k, n: f"Make {k} exist, bound and readable for the {n} workloads that mount it, then "
                                     "resubmit."),))
