"""The chat's understanding as data: every rule is a regular expression with its own true and false samples
(``tests/chat/test_rules.py`` checks each rule matches every true sample and none of the false ones).

Extraction rules carry a named group ``v`` (the value); word rules only say whether the words are there.
The message is redacted and bounded (``parse.MAX_CHARS``) before any rule runs.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from workload_diagnose.agent.taxonomy.registry import CHAT_WORDS

UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
NAME = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,251}[A-Za-z0-9])?(?![A-Za-z0-9])"
Q = r"[\"'`]?"  # an optional quote around a value
QO = r"(?:(?<![A-Za-z0-9])(?P<q>[\"'`]))?"  # an opening quote (never the apostrophe of "it's", "that's")
START = r"(?<![A-Za-z0-9._'-])"  # a value starts a word: never the "s" of "it's" or the middle of a name
# a sentence that says which cluster, not which workload: "wrong cluster: it's C2", "I meant cluster C2"
WRONG_CLUSTER = (r"\b(?:wrong|other|different)\s+cluster\b\W*(?:(?:it'?s|it\s+(?:is|was|ran)|should\s+be|use|try|"
                 r"i\s+meant|its)\s+)?(?:on\s+)?(?:(?:the\s+)?cluster\s+)?")


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: str
    true: tuple[str, ...]
    false: tuple[str, ...] = ()
    strict: bool = False  # a captured name must look like an identifier (digit, '-', '_' or '.') unless quoted
    # or introduced by "named"/"called"

    @property
    def rx(self) -> re.Pattern:
        return _compiled(self.pattern)

    def find(self, text: str) -> list[str]:
        """The accepted values (extraction rule) or the matched words (word rule) in ``text``, in order."""
        out: list[str] = []
        pos = 0
        while pos <= len(text):
            m = self.rx.search(text, pos)
            if m is None:
                break
            if "v" not in self.rx.groupindex:
                out.append(m.group(0))
            else:
                v = (m.group("v") or "").strip()
                if v and accepted(v, self, m):
                    out.append(v)
                    pos = max(m.end(), pos + 1)
                    continue
            pos = m.start() + 1  # a rejected value: look again from the next character (overlapping)
        return out


@functools.cache
def _compiled(p: str) -> re.Pattern:
    return re.compile(p, re.IGNORECASE)


# ----------------------------------------------------------------------------------------- identifiers
CLUSTER_ID = (
    Rule("cluster_id_kv", rf"\bcluster(?:[_-]?id)?\s*[=:]\s*{Q}(?P<v>{UUID})",
         ("cluster=3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11", "clusterId=3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11",
          "cluster_id: '3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11'"),
         ("workload=3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11", "cluster=prod-east")),
    Rule("cluster_id_link", rf"/clusters?/(?P<v>{UUID})",
         ("https://acme.run.ai/clusters/3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11/overview",),
         ("https://acme.run.ai/workloads/3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11",)),
    Rule("cluster_id_word", rf"\bcluster\s+(?:id\s+)?(?:is\s+)?\(?\s*(?P<v>{UUID})",
         ("on cluster 3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11", "cluster id is 3F2C7A1E-8D4B-4C1E-9A57-2B6E0D9C4F11",
          "(cluster 3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11)"),
         ("workload 3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11", "cluster prod-east")),
    Rule("cluster_id_paren", rf"\bcluster\b[^()\n]{{0,40}}\(\s*(?P<v>{UUID})\s*\)",
         ("on the prod-east cluster (3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11)",),
         ("train-42 (3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11)",)),
    Rule("cluster_id_suffix", rf"(?P<v>{UUID})\s+cluster\b",
         ("on the 3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11 cluster",),
         ("cluster 3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11",)),
    Rule("cluster_id_wrong", rf"{WRONG_CLUSTER}(?P<v>{UUID})",
         ("sorry, wrong cluster: it's 9c9c9c9c-0000-4000-8000-000000000001",
          "wrong cluster, use 9c9c9c9c-0000-4000-8000-000000000001"),
         ("wrong workload: it's 9c9c9c9c-0000-4000-8000-000000000001",)),
    # "running on <uuid>": where it ran (never a workload keyword before the UUID: that one is the workload's)
    Rule("cluster_id_on", rf"\b(?:runs|ran|running|is|was|it'?s|lives|deployed)\s+on\s+(?:the\s+)?(?P<v>{UUID})",
         ("it ran on 3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11", "it's on 3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11"),
         ("workload 3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11 failed",)),
)

WORKLOAD_ID = (
    Rule("workload_id_kv", rf"\b(?:workload[_-]?id|workload|job[_-]?id|job|id)\s*[=:]\s*{Q}(?P<v>{UUID})",
         ("workloadId=0b4e7c2a-1f3d-4e5a-8b6c-9d0e1f2a3b4c", "workload_id: 0b4e7c2a-1f3d-4e5a-8b6c-9d0e1f2a3b4c",
          "id=0b4e7c2a-1f3d-4e5a-8b6c-9d0e1f2a3b4c"),
         ("clusterId=0b4e7c2a-1f3d-4e5a-8b6c-9d0e1f2a3b4c",)),
    Rule("workload_id_link", rf"/workloads?/(?:[A-Za-z-]+/)?(?P<v>{UUID})",
         ("https://acme.run.ai/workloads/0b4e7c2a-1f3d-4e5a-8b6c-9d0e1f2a3b4c?clusterId=x",
          "https://acme.run.ai/workloads/trainings/0b4e7c2a-1f3d-4e5a-8b6c-9d0e1f2a3b4c"),
         ("https://acme.run.ai/clusters/0b4e7c2a-1f3d-4e5a-8b6c-9d0e1f2a3b4c",)),
    Rule("workload_id_word", rf"\b(?:workload|job|run|training|id)\s+(?:id\s+)?(?:is\s+)?(?P<v>{UUID})",
         ("workload 0b4e7c2a-1f3d-4e5a-8b6c-9d0e1f2a3b4c", "my training job id 0b4e7c2a-1f3d-4e5a-8b6c-9d0e1f2a3b4c"),
         ("cluster 0b4e7c2a-1f3d-4e5a-8b6c-9d0e1f2a3b4c",)),
)

CLUSTER_NAME = (
    Rule("cluster_name_kv", rf"\bcluster(?:[_-]?name)?\s*[=:]\s*{Q}(?P<v>{NAME})",
         ("cluster=prod-east", "cluster_name: 'dgx-a'"), ("project=prod-east",)),
    Rule("cluster_name_word", rf"\bcluster\s+(?:(?:is|was)\s+)?(?:named\s+|called\s+)?{Q}(?P<v>{NAME})",
         ("on cluster prod-east", "the cluster named dgx-a", "the cluster is gpu-east"), ("our prod cluster is down",)),
    Rule("cluster_name_suffix", rf"\b(?:on|in|from|at)\s+(?:the\s+)?{Q}(?P<v>{NAME}){Q}\s+cluster\b",
         ("on the prod-east cluster", "in the dgx-a cluster"), ("on our prod cluster",)),
    Rule("cluster_name_wrong", rf"{WRONG_CLUSTER}{Q}(?P<v>{NAME})",
         ("sorry, wrong cluster: it's gpu-west", "wrong cluster, I meant gpu-west", "other cluster: gpu-west"),
         ("wrong cluster, sorry", "wrong workload: it's train-43"), strict=True),
    # "... on gpu-3f2c7a1e": a name that looks like an identifier after "on" is where it ran (resolved by exact
    # name like any cluster name: none or several is a question back, never a guess); never a node, a project,
    # a step or a described cluster
    Rule("cluster_name_on",
         rf"\b(?:on|from)\s+(?!(?:the|a|an|my|our|your|their|this|that|cluster|node|nodes|project|namespace|pod|"
         rf"step|epoch|line|port|gpu|gpus|startup|start)(?![\w.-])){Q}(?P<v>{NAME}){Q}"
         rf"(?!\s*(?:cluster|node|project|namespace|pod|container|image|registry|volume)s?\b)(?![A-Za-z0-9._-])",
         ("it's in ml-team on gpu-3f2c7a1e", "workload train-42 on gpu-east keeps dying",
          "why did train-42 in ml-team fail on dgx-a100?"),
         ("on cluster prod-east", "it fails on startup", "it ran on node dgx-01", "on the nlp cluster",
          "it crashed on step 300", "on 3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11", "on gpu-node-7 node"),
         strict=True),
)
# "our prod cluster": a description, not a name; asked about, never guessed
VAGUE_CLUSTER = Rule(
    "vague_cluster", r"\b(?P<v>(?:our|my|your|their|the|a|that)\s+(?:[a-z]+\s+){1,2}cluster)\b",
    ("on our prod cluster", "it ran on the big gpu cluster", "my test cluster"), ("on cluster prod-east",))

WORKLOAD_NAME = (
    Rule("workload_name_kv", rf"\b(?:workload[_-]?name|workloadName|name|workload|job)\s*[=:]\s*{Q}(?P<v>{NAME})",
         ("name=train-42", "workload_name: 'bert-ft'", "job=train-42"), ("project=ml-team",)),
    Rule("workload_name_word",
         rf"\b(?:workload|job|training\s+job|training|run|experiment|pod)\s+(?:(?:is|was)\s+)?"
         rf"(?P<named>named\s+|called\s+)?"
         rf"{QO}(?P<v>{NAME})",
         ("why did workload train-42 fail", "my job named bert fails", "the run called 'llama-ft'",
          "the workload is train-42"),
         ("why did my project fail",), strict=True),
    Rule("workload_name_prefix",
         rf"\b(?:my|the|our)\s+{QO}(?P<v>{NAME}){Q}\s+(?:workloads?|jobs?|training\s+job|runs?|pods?|"
         r"experiments?)\b",
         ("my train-42 job crashed", "the bert-ft workload"), ("my workload",), strict=True),
    Rule("workload_name_verb",
         rf"\b(?:did|does|is|was|has|why)\s+{QO}(?P<v>{NAME}){Q}\s+(?:fail|crash|stop|die|get|keep|go|exit|end)",
         ("why did train-42 fail", "why is bert-ft keep crashing"), ("why did it fail",), strict=True),
    Rule("workload_name_in",
         rf"{QO}{START}(?P<v>{NAME}){Q}\s+(?:in|from|of|under)\s+(?:the\s+)?(?:project\s+)?{Q}{NAME}",
         ("why did train-42 in ml-team fail", "bert-ft from project nlp"),
         ("stuck in ImagePullBackOff", "it's in ml-team on gpu-3f2c7a1e", "that's in nlp", "he's in project nlp"),
         strict=True),
    Rule("workload_name_subject",
         rf"^\W*{QO}(?P<v>{NAME}){Q}\s+(?:failed|crashed|stopped|died|was|is|keeps|got|exited|has)\b",
         ("train-42 crashed.", "'bert-ft' keeps crashing"), ("it crashed",), strict=True),
    Rule("workload_name_object",
         rf"\b(?:killed|stopped|crashed|happened\s+to|wrong\s+with|diagnose|about)\s+{QO}(?P<v>{NAME})",
         ("what killed train-42?", "what happened to bert-ft", "diagnose train-42 please"),
         ("what killed my workload",), strict=True),
    Rule("workload_name_paren",
         rf"{QO}{START}(?P<v>{NAME}){Q}\s*\(\s*(?:project|cluster|in|on|namespace)\b",
         ("is train-42 (project ml-team, cluster gpu-east) still failing?", "bert-ft (in nlp) crashed"),
         ("is my workload (project ml-team) ok?",), strict=True),
    # a listed form names the workload by its noun and then gives the next field: the word is the name, whatever
    # it looks like ("workload nightly, project ml-team, ..."; "it's weekly in ml-team, cluster ...")
    Rule("workload_name_listed",
         rf"\b(?:workload|job)\s+{QO}(?P<v>{NAME}){Q}\s*[,;]\s*(?:project|cluster|in)\b",
         ("workload nightly, project ml-team, cluster 3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11: why was it terminated?",
          "job weekly; cluster gpu-east"),
         ("the workload, project ml-team", "my job, in short, failed")),
    Rule("workload_name_its_in_cluster",
         rf"\bit'?s\s+{QO}(?P<v>{NAME}){Q}\s+in\s+(?:project\s+)?{Q}{NAME}{Q}\s*,\s*cluster\b",
         ("It's weekly in ml-team, cluster 3f2c7a1e-8d4b-4c1e-9a57-2b6e0d9c4f11.",),
         ("it's stuck in ImagePullBackOff", "it's in ml-team on gpu-3f2c7a1e", "it's in ml-team, cluster c1")),
    Rule("workload_name_called", rf"\b(?:it'?s\s+|is\s+)?(?:called|named)\s+(?P<named>){Q}(?P<v>{NAME})",
         ("it's called train-42", "named bert"), ("it is called",)),
)

PROJECT = (
    Rule("project_kv", rf"\b(?:project[_-]?name|projectName|project)\s*[=:]\s*{Q}(?P<v>{NAME})",
         ("project=ml-team", "projectName: 'nlp'"), ("name=ml-team",)),
    Rule("project_word", rf"\bproject\s+(?:named\s+|called\s+|is\s+)?{Q}(?P<v>{NAME})",
         ("in project ml-team", "no, project nlp", "project is nlp"), ("the nlp project",)),
    Rule("project_suffix", rf"\b(?:in|from|of|under)\s+(?:the\s+)?{Q}(?P<v>{NAME}){Q}\s+project\b",
         ("in the nlp project", "from the ml-team project"), ("project nlp",)),
    Rule("project_in", rf"\bin\s+{Q}(?P<v>{NAME}){Q}(?!\s+(?:cluster|namespace)\b)",
         ("train-42 in ml-team failed", "bert in nlp"), ("in the nlp cluster",)),
)

LOOKBACK = (
    Rule("lookback_kv", r"\blookback\s*[=:]?\s*(?P<v>\d{1,4}\s*[mhdw])\b", ("lookback=3d", "lookback 36h"),
         ("look back later",)),
    Rule("lookback_words",
         r"\b(?:last|past)\s+(?P<n>\d{1,4})\s*(?P<u>m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?)\b",
         ("in the last 3 days", "over the past 2 weeks", "last 36h"), ("the last run",)),
)

INTENT_KV = Rule("intent_kv", r"\bintent\s*[=:]\s*(?P<v>terminal|active)\b", ("intent=active", "intent: terminal"),
                 ("intent is unclear",))

# ----------------------------------------------------------------------------------------- word rules
# The skill's Option B rules: an explicit CURRENT CrashLoopBackOff / repeated crash / startup / image-pull /
# init / mount / failed-pod symptom is an active request; a terminal failure, stopped workload or past run is not.
ACTIVE = Rule(
    "active_symptom",
    r"crash\s*-?loop|crashloop(?:backoff|ing)?|\bkeeps?\s+(?:on\s+)?(?:crash|restart|fail|dying|dy)|\brestarting\b|"
    r"\brepeated(?:ly)?\s+(?:container\s+)?crash|imagepullbackoff|errimagepull|\bimage\s*pull|"
    r"\b(?:can'?t|cannot|won'?t|doesn'?t|does\s+not|will\s+not)\s+start|\bnot\s+starting|"
    r"\bfail(?:s|ing)?\s+to\s+start|\bstart-?up\s+fail|\bstuck\b|\binit(?:-|\s)?containers?\b|failedmount|"
    r"\bmount(?:ing)?\s+(?:is\s+)?fail|\b(?:is|are)\s+(?:currently\s+)?(?:failing|crashing)|\bright\s+now\b|"
    r"\bstill\s+(?:failing|crashing|restarting|dying|down)\b",
    ("why is my pod CrashLoopBackOff?", "why is my Pending workload stuck in ImagePullBackOff?",
     "my job keeps crashing", "the init container fails", "it won't start",
     "is train-42 (project ml-team, cluster gpu-east) still failing?"),
    ("why did my workload fail?", "what killed my workload?", "my workload stopped — what happened?"))
PAST = Rule(
    "past_run",
    r"\b(?:did|was|were|had|failed|crashed|stopped|died|killed|exited|terminated|ended)\b|"
    r"\b(?:last|previous|past|earlier|old)\s+run\b|\byesterday\b|\bago\b|\blast\s+night\b",
    ("why did my workload fail?", "my workload stopped — what happened?", "what killed my workload?",
     "why did my training job crash?"),
    ("why is my pod CrashLoopBackOff?", "why is my Pending workload stuck in ImagePullBackOff?"))
# a failure word keeps a question in scope even when it mentions Pending, latency or the cluster
FAILURE = Rule(
    "failure_word",
    r"\bfail|\bcrash|\bkill|\bstopped\b|\bdied\b|\berror|\boom|imagepull|errimagepull|\binit\b|"
    r"init(?:-|\s)?container|\bmount|\bexit(?:ed)?\b|\bbroke|\bwhat\s+happened\b|\bevict",
    ("why did my workload fail?", "stuck in ImagePullBackOff", "OOM?", "what happened to it"),
    ("why is my workload pending?", "is the cluster healthy?"))

OUT_OF_SCOPE = (
    Rule("oos_cluster_health",
         r"\bcluster(?:'s)?\s+(?:is\s+|seems\s+|looks\s+)?(?:health|healthy|status|down|ok|okay|up)\b|\bhealth\s+of\s+(?:the\s+|our\s+)?cluster|"
         r"\b(?:is|are)\s+(?:the\s+|our\s+)?(?:cluster|nodes?)\s+(?:healthy|ok|okay|up|down)\b|"
         r"\bnodes?\s+(?:are\s+)?(?:down|healthy|health)\b",
         ("is the cluster healthy?", "how is cluster health today", "are our nodes down?",
          "can you check why the cluster is down?"),
         ("why did my workload fail on cluster prod-east?",)),
    Rule("oos_latency",
         r"\blatency\b|\bslow(?:er|ly)?\b|\bthroughput\b|\btokens?\s+per\s+second\b|\bresponse\s+times?\b",
         ("why is my inference latency so high?", "the endpoint is slow"), ("why did my inference crash?",)),
)

ACTION = Rule(
    "action_request",
    r"^\s*(?:please\s+)?(?:re-?start|delete|remove|re-?submit|re-?run|kill|stop|suspend|resume|scale|patch|cordon|"
    r"drain|evict|cancel|terminate|fix)\b|"
    r"\b(?:please|can\s+you|could\s+you|would\s+you|go\s+ahead\s+and|just|then|now)\s+(?:re-?start|delete|remove|"
    r"re-?submit|re-?run|kill|stop|suspend|resume|scale|patch|cordon|drain|evict|cancel|terminate|fix)\b|"
    r"\b(?:re-?start|delete|re-?submit|re-?run|kill|suspend|scale|patch|cordon|drain|evict|terminate)\s+"
    r"(?:it|them|the|my|this|that|workload|job|pod|node)\b",
    ("restart it", "can you delete the workload?", "please resubmit my job", "go ahead and scale it"),
    ("why did my workload stop?", "what killed my workload?", "my workload stopped — what happened?"))

FOLLOWUP = (
    Rule("followup_previous",
         r"\b(?:run|one|job|workload|attempt)\s+before\s+(?:that|this|it)\b|\bbefore\s+that\b|"
         r"\b(?:previous|prior|earlier|older)\s+(?:run|one|attempt|failure)\b",
         ("and the run before that?", "what about the previous run?", "the one before that"),
         ("why did it fail?",)),
    Rule("followup_why_not", r"\bwhy\s+(?:not|isn'?t\s+it|wasn'?t\s+it|no)\s+(?:an?\s+)?(?P<v>[A-Za-z_ -]{2,40})",
         ("why not OOM?", "why isn't it an image pull failure?"), ("why did it fail?",)),
    Rule("followup_evidence",
         r"\bevidence\b|\bsources?\b|\bcite\b|\bhow\s+do\s+you\s+know\b|\bshow\s+(?:me\s+)?(?:the\s+)?(?:details|proof)\b",
         ("show the evidence", "what are your sources?", "how do you know?"), ("is it recurring?",)),
    Rule("followup_recurrence",
         r"\brecurr|\bhappen(?:ed|s)?\s+before\b|\bhow\s+(?:often|many\s+times)\b|\bhappen(?:ed|s|ing)?\s+again\b|"
         r"\bfirst\s+time\b|\bone-?off\b",
         ("is it recurring?", "has this happened before?", "how often does this happen?"),
         ("show the evidence",)),
    Rule("followup_recommend",
         r"\bwhat\s+(?:should|can|do)\s+i\s+do\b|\bhow\s+(?:do|can|should)\s+i\s+fix\b|\brecommend|"
         r"\bnext\s+(?:steps?|actions?)\b|\bwhat\s+now\b|\bhow\s+to\s+fix\b",
         ("what should I do?", "how do I fix it?", "any recommendations?"), ("show the evidence",)),
    Rule("followup_report", r"\bwhy\b|\bwhat\s+happened\b|\bcategory\b|\bverdict\b|\breport\b|\bsummar",
         ("why did it fail?", "what happened?", "what's the verdict"), ("thanks",)),
)
GREETING = Rule("greeting", r"^\s*(?:hi|hello|hey|help|good\s+(?:morning|afternoon|evening))\b",
                ("hi", "help", "hello there"), ("why did my job fail",))

# a question about many workloads at once ("why are my jobs on cluster X failing today?"): triage answers it
FLEET = Rule(
    "fleet_question",
    r"\b(?:my|our|all|the|these|those|many|several|multiple|so\s+many)\s+(?:(?:of\s+)?(?:my|our|the)\s+)?"
    r"(?:[a-z-]+\s+)?(?:jobs|workloads|runs|trainings|pods|experiments)\b|"
    r"\b(?:which|what|how\s+many)\s+(?:[a-z-]+\s+)?(?:jobs|workloads|runs|trainings|experiments)\b|\beverything\b",
    ("why are my jobs on cluster gpu-east failing today?", "which workloads failed in project nlp?",
     "why did all our training jobs crash last night?", "how many jobs failed today?"),
    ("why did my job fail?", "my train-42 job crashed", "why did workload train-42 fail?"))

# a yes to the question the assistant asked (a confirmation)
YES = Rule("yes", r"^\W*(?:yes|yeah|yep|yup|correct|right|exactly|sure|indeed|confirm(?:ed)?|that'?s\s+right)\b",
           ("yes", "yes, that one", "correct", "that's right"), ("yesterday it failed", "no, project nlp"))

# a user correcting a value they gave ("no, project nlp", "actually it's train-43", "I meant cluster dgx-b")
CORRECTION = Rule("correction", r"^\s*(?:no\b|nope\b|actually\b|sorry\b|wrong\b|i\s+meant\b|not\s+that\b)",
                  ("no, project nlp", "actually it's in nlp", "I meant cluster dgx-b"), ("project nlp",))

# words that are never a value, whatever rule captured them
STOPWORDS = frozenset("""
a an the my our your their this that it its is was were be been are am has had have do does did not no yes
in on at of for from to by with and or but so if then than as about into onto over under after before
fail fails failed failing failure crash crashes crashed crashing crashloopbackoff crashloop stop stops stopped
stopping die died dies dying kill killed killing get got gets keep keeps kept go went exit exited end ended
imagepullbackoff errimagepull pending running completed succeeded suspended preempted oomkilled error errors
workload workloads job jobs run runs pod pods training project projects cluster clusters named called name id
why what how when where which who please just there here today yesterday now again
last past previous earlier one ones me i you we they he she them us
health healthy status latency slow queue quota down up ok okay fine broken busy full offline online
unavailable overloaded
""".split())

# the words for each category ("why not a memory problem?"): each category's record carries its own, with samples
CATEGORY_ALIASES: tuple[tuple[str, str], ...] = tuple((w.pattern, name) for w, name in CHAT_WORDS)


_UUID_RX = re.compile(rf"^{UUID}$")
_IDENTIFIERISH = re.compile(r"[0-9._-]")


def is_uuid(v: str) -> bool:
    return bool(_UUID_RX.match(v))


def accepted(v: str, rule: Rule, m: re.Match) -> bool:
    """Whether a captured value can be the value the rule names (a stopword, a bare number or, for a name rule,
    a UUID never is)."""
    if rule.name.startswith(("lookback", "intent", "followup")):
        return True
    wants_uuid = rule.name.startswith(("cluster_id", "workload_id"))
    if wants_uuid:
        return is_uuid(v)
    if is_uuid(v) or v.lower() in STOPWORDS or v.isdigit():
        return False
    if rule.strict:
        gd = m.groupdict()
        if not (gd.get("named") or gd.get("q")) and not _IDENTIFIERISH.search(v):
            return False
    return True


# a question a sibling procedure answers ("why was my job preempted?", "why is it still pending?"): each procedure
# declares its own as data with samples (``ProcedureSpec.chat.intents``); a failure word keeps a question with the
# failed-workload diagnosis, which hands a preempted or pending workload on through its route
INTENT_SLOTS = ("workload_name", "project")  # named groups of an intent's pattern that fill an identifier


@functools.cache
def procedure_intents() -> tuple[tuple[str, Rule], ...]:
    """(procedure, rule) for every intent a registered procedure declares, in registry order."""
    from workload_diagnose.agent.chat.handoff import chat_specs

    return tuple((s.name, Rule(f"asks_{s.name}_{i.name}", i.pattern, i.true, i.false))
                 for s in chat_specs() if s.chat is not None for i in s.chat.intents)


def all_rules() -> list[Rule]:
    return [*CLUSTER_ID, *WORKLOAD_ID, *CLUSTER_NAME, VAGUE_CLUSTER, *WORKLOAD_NAME, *PROJECT, *LOOKBACK,
            INTENT_KV, ACTIVE, PAST, FAILURE, *OUT_OF_SCOPE, ACTION, *FOLLOWUP, GREETING, CORRECTION, FLEET, YES,
            *(r for _, r in procedure_intents())]
