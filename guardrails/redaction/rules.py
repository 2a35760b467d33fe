"""The rule table, as data.  Every rule carries its id, the literals it needs (``keywords``), its re2
pattern, and its own proof: true-positive samples (``tp``: text, and the secret span that must vanish
from it entirely) and false-positive samples (``fp``: text that must come out unchanged).
``tests/guardrails/test_rules.py`` checks every sample of every rule (the gitleaks style).

Three families:

* ``FORMATS``  – known token formats (AWS, GitHub, GitLab, Slack, OpenAI, …): a match is a secret
  (a few kinds get a look at the whole token, see heuristics.CHECKED_KINDS);
* ``CONTEXT``  – a secret recognised by its label (``key=value``, flags, env entries, headers, URLs, …):
  a handler decides whether the value is a credential (handlers.py);
* ``COMMANDS`` – command lines with a password argument, each scanned on its own (see engine.py);

plus the ``PEM`` private-key block (pem.py).  Written from the vendors' documented formats and the public
gitleaks rule set as a reference; character classes are kept as wide as the vendor documents so the
WHOLE token is replaced (full-span), never only its prefix.  No pattern may use a construct re2 lacks
(look-around, back-references): matching stays linear in the input.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

from ..names import KEY_STRONG_PREV

# a true-positive sample: the text, and the secret inside it (a bare string is a text that is all secret)
Sample = "tuple[str, str] | str"


@dataclass(frozen=True)
class Rule:
    id: str                      # unique, stable
    kind: str                    # marker kind (formats), handler name (context / command rules)
    pattern: str                 # re2 syntax
    keywords: tuple[str, ...]    # literals (case-insensitive) one of which every match contains
    tp: tuple = ()               # samples that must be redacted (whole secret span)
    fp: tuple[str, ...] = ()     # samples that must come out unchanged
    gated: bool = False          # the scan only includes the rule when a keyword occurs (engine.py)
    starts: str = ""             # command rules: the part of the pattern a match starts with

    def true_samples(self) -> list[tuple[str, str]]:
        return [(s, s) if isinstance(s, str) else s for s in self.tp]


def _known(id_: str, kind: str, pattern: str, keywords: tuple[str, ...], tp: tuple, fp: tuple,
           gated: bool = False) -> Rule:
    return Rule(id_, kind, pattern, keywords, tp, fp, gated)


# ================================================================================= known token formats
FORMATS: list[Rule] = [
    # AWS access key ids (AKIA long-term, ASIA temporary, …) – 20 chars total
    _known("aws-access-key-id", "aws_access_key",
           r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b",
           ("A3T", "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"),
           ("AKIAJPJOMKEFOIUC3LGT", ("aws_access_key_id=ASIAK89V9QZ3G6X92BRT", "ASIAK89V9QZ3G6X92BRT")),
           ("see the AKIA-prefixed ids in the IAM console", "AKIAJPJOMKEFOIUC3LGTX2 is 22 characters")),
    # GitHub classic (ghp_/gho_/ghu_/ghs_/ghr_ + 36..251) and fine-grained PATs
    _known("github-classic-token", "github_token", r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,251}\b",
           ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
           ("ghp_93L4bCZnVLTfHJg9Yo7UrqZ3LNgL4qRpZ3a2",
            ("remote: https://x:ghs_93L4bCZnVLTfHJg9Yo7UrqZ3LNgL4qRpZ3a2@github.com",
             "ghs_93L4bCZnVLTfHJg9Yo7UrqZ3LNgL4qRpZ3a2")),
           ("branch ghp_fix_typo merged",)),
    _known("github-fine-grained-pat", "github_token", r"\bgithub_pat_[A-Za-z0-9_]{22,255}", ("github_pat_",),
           ("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",),
           ("github_pat_ rotation is due on Monday",)),
    # GitLab: PAT, OAuth app secret, deploy, runner, CI build, trigger, feed, incoming mail, agent,
    # SCIM/OAuth, feature-flag client, workspace tokens; new-style tokens carry ".01.<base36>" suffixes
    _known("gitlab-token", "gitlab_token",
           r"\b(?:glpat|gloas|gldt|glrt|glrtr|glcbt|glptt|glft|glimt|glagent|glsoat|glffct|glwt|gltst)-[A-Za-z0-9_\-]{20,}(?:\.[A-Za-z0-9_\-]{2,}){0,3}",
           ("glpat-", "gloas-", "gldt-", "glrt-", "glrtr-", "glcbt-", "glptt-", "glft-", "glimt-", "glagent-",
            "glsoat-", "glffct-", "glwt-", "gltst-"),
           ("glpat-Im5LPzGFSEifTCcxs8i7", "glpat-Im5LPzGFSEifTCcxs8i7abcdefg.01.k3j4h5g6f"),
           ("glpat-short expired", "see glrt-docs for runner tokens")),
    _known("gitlab-runner-registration", "gitlab_token", r"\bGR1348941[A-Za-z0-9_\-]{20,}", ("GR1348941",),
           ("GR1348941iciheCbMbPPxZrX1P5gz",), ("GR1348941 registration tokens are deprecated",)),
    # Slack bot/user/app/config tokens and incoming webhooks
    _known("slack-token", "slack_token", r"\bxox[abposre]-[A-Za-z0-9\-]{10,}",
           ("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-"),
           ("xoxb-525413504084-4562447013615-i5V8QyehYk8Rac0mikYdzbtn",), ("tokens start with xoxb- for bots",)),
    _known("slack-config-token", "slack_token", r"\bxoxe\.xox[bp]-[A-Za-z0-9\-]{10,}", ("xoxe.xox",),
           ("xoxe.xoxp-1-IEA6HgAWfqrRiHhL50i4ad5VlzuYP1",), ("xoxe.xoxp-1 refresh failed",)),
    _known("slack-app-token", "slack_token", r"\bxapp-[0-9]-[A-Za-z0-9\-]{10,}", ("xapp-",),
           ("xapp-1-AXLIHHG8U3Y-7788384258555-01b5635d426997c2595e9122116a44b78c08854a846842674c980fca8dee1dcc",),
           ("xapp-1-short",)),
    _known("slack-webhook", "slack_webhook",
           r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{20,}",
           ("hooks.slack.com",),
           (("posting to https://hooks.slack.com/services/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 failed",
             "T3RJD5IUL/BXL966V1HZ4/LHMvB8XVs6yT4F0ibzmccgN4"),),
           ("see https://hooks.slack.com/services/ for the docs",)),
    # Anthropic before OpenAI (both start with sk-)
    _known("anthropic-key", "anthropic_key", r"\bsk-ant-(?:api|admin|sid|oat)[0-9]{2}-[A-Za-z0-9_\-]{20,}",
           ("sk-ant-",),
           ("sk-ant-api03-RXQQ-kYZSoNfG4XARi6f3h_R-UP8CuB1eRthezNvWx5LFIa5NyqNlQfwFdnjgHJAifW40yuCyQVC4EdQfJ1zkNB8exw_-AA",),
           ("sk-ant-api03-short",)),
    # OpenAI: legacy (contains T3BlbkFJ = base64 "OpenAI"), project / service-account / admin keys.
    _known("openai-project-key", "openai_key", r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}",
           ("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-"),
           ("sk-proj-SRxPbkg7M85vkQf6B9rW9nsP6LPboPNBXr5kVw3-_Q-uxx84",), ("sk-proj-abc is too short",)),
    # validated: must look random (see heuristics.check_known)
    _known("openai-key", "openai_key", r"\bsk-[A-Za-z0-9_\-]{20,}", ("sk-",),
           ("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",),
           ("sk-learn-pipeline-step-finished-now", "sk-learn pipeline step finished")),
    # Stripe secret / restricted / publishable keys and webhook secrets
    _known("stripe-key", "stripe_key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}",
           ("sk_live_", "sk_test_", "rk_live_", "rk_test_", "pk_live_", "pk_test_"),
           ("sk_live_5eZZjN9qZcumoggPkopeX9t6",), ("running with sk_test_mode on",)),
    _known("stripe-webhook-secret", "stripe_key", r"\bwhsec_[A-Za-z0-9+/=]{24,}", ("whsec_",),
           ("whsec_X9ybLEOtrGMtKxMlfB4em0DUibl1lGzK",), ("whsec_abc",)),
    # Hugging Face user / org tokens
    _known("huggingface-token", "huggingface_token", r"\bhf_[A-Za-z0-9]{30,}", ("hf_",),
           ("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",), ("HF_HUB_ENABLE_HF_TRANSFER=1 hf_transfer enabled",)),
    _known("huggingface-org-token", "huggingface_token", r"\bapi_org_[A-Za-z0-9]{30,}", ("api_org_",),
           ("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",), ("api_org_id 42 not found",)),
    # NVIDIA NGC / build.nvidia.com API keys
    _known("ngc-key", "ngc_key", r"\bnvapi-[A-Za-z0-9_\-]{30,}", ("nvapi-",),
           ("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",), ("nvapi-key missing",)),
    # Google API key, OAuth client secret, OAuth access / refresh token
    _known("google-api-key", "google_api_key", r"\bAIza[0-9A-Za-z_\-]{35}", ("AIza",),
           ("AIzaG_wqRSavzseZIA18zdllTXZvmOIe7cFPZnn",), ("AIzaShort key rejected",)),
    _known("google-oauth-client-secret", "google_oauth", r"\bGOCSPX-[A-Za-z0-9_\-]{20,}", ("GOCSPX-",),
           ("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",), ("GOCSPX-abc",)),
    _known("google-oauth-access-token", "google_oauth", r"\bya29\.[0-9A-Za-z_\-]{20,}", ("ya29.",),
           ("ya29.beO8iJF-l_lpsx6IF6eLaCPKgxV-xJcNgVPyTA8jNTzFWXUSeFlXna4GChW52ecumEeydjJgHOHbPWyeUF1bwkwIo_R8fG9z",),
           ("ya29.short",)),
    _known("google-oauth-refresh-token", "google_oauth", r"\b1//0[0-9A-Za-z_\-]{40,}", ("1//0",),
           ("1//0u-s7pwd_HzSglzbL3cucyMfwM34uppHrFKDE1bQhazgIGY5tlAfFsx3Hd-QG",), ("ratio 1//0 is undefined",)),
    # Azure AD client secret (xxxNQ~…): validated (a digit and entropy)
    _known("azure-ad-client-secret", "azure_client_secret", r"\b[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}",
           ("Q~",), ("mrr8Q~r2K.~DHlhewrFKayTpO_A-k3LBPmEuu3b9",), ("abc1Q~x", "aaa1Q~aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
           gated=True),
    # Databricks, npm, PyPI, Docker Hub, Grafana, Vault, Terraform, SendGrid, Replicate, Groq, …
    _known("databricks-token", "databricks_token", r"\bdapi[a-f0-9]{32}(?:-[0-9]+)?\b", ("dapi",),
           ("dapi5fafd29b6f5437c2a9a57c3aa1db2156",), ("dapi1234 is not a token",)),
    _known("npm-token", "npm_token", r"\bnpm_[A-Za-z0-9]{36}\b", ("npm_",),
           ("npm_2C4VUzGnklH2DBLKjVP5qIHiwiYwy9545Q8p",), ("npm_config_cache=/tmp/npm",)),
    _known("pypi-token", "pypi_token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}", ("pypi-AgE",),
           ("pypi-AgEIcHlwaS5vcmc18EpyQ6aQ-BERgfLLY6eK2x83At4IxUJhbPjMnNolPEzAypJpitAYYNPuIjQUh7CNDsllC",),
           ("pypi-AgE short",)),
    _known("dockerhub-token", "dockerhub_token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}", ("dckr_pat_", "dckr_oat_"),
           ("dckr_pat_EI5RyekKyGY4NX2aLY21r-cLJ-F",), ("dckr_pat_abc",)),
    _known("grafana-cloud-token", "grafana_token", r"\bglc_[A-Za-z0-9+/]{32,}={0,2}", ("glc_",),
           ("glc_BwDYk9G3nWqRsCfdU25vgIQCQ+6IJP+dcmmHvTIEsF8nXcgG",), ("glc_short",)),
    _known("grafana-service-account-token", "grafana_token", r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b", ("glsa_",),
           ("glsa_929LbHBbFmiAKLhi28pltQ7oYPUsj7Ng_a088c681",), ("glsa_short",)),
    _known("vault-token", "vault_token", r"\bhv[sbr]\.[A-Za-z0-9_\-]{24,}", ("hvs.", "hvb.", "hvr."),
           ("hvs.tR5cDyUNvnlvj4WYK3xSkyBy7wPunR5PypMhG_6sZmOugFyTfw_Tsnt3oGEhs3LtH130RKhC2j3eN0Fi9cF-WLhRK8-",),
           ("hvs.short",)),
    _known("terraform-token", "terraform_token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,}", (".atlasv1.",),
           ("03e5wKmdCeRflf.atlasv1.iJdvnkh17VO69Ah2LZ8apJgNrX2ZBJtiDVVbeAbGNjNtZuJQnZMULa8rNS37MBqYHlI",),
           ("app.atlasv1.example",), gated=True),
    _known("sendgrid-key", "sendgrid_key", r"\bSG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,64}", ("SG.",),
           ("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",), ("SG.short.x",)),
    _known("replicate-token", "replicate_token", r"\br8_[A-Za-z0-9]{37}\b", ("r8_",),
           ("r8_FDwXMYqGf8r6syB5rUhZouV5ZmFP5shwLJ6TG",), ("r8_short",)),
    _known("groq-key", "groq_key", r"\bgsk_[A-Za-z0-9]{48,}", ("gsk_",),
           ("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",), ("gsk_short",)),
    _known("perplexity-key", "perplexity_key", r"\bpplx-[A-Za-z0-9]{40,}", ("pplx-",),
           ("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",), ("pplx-short",)),
    _known("xai-key", "xai_key", r"\bxai-[A-Za-z0-9]{70,}", ("xai-",),
           ("xai-ChP9hXhMMZgT5xBExepmisGFzilQvvGv7TbtqdgFJj1G84qmaibpXIBTeTGRsWwqYPPheJCSqFQynh4g",),
           ("using model xai-grok-2",)),
    _known("langsmith-key", "langsmith_key", r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b", ("lsv2_pt_", "lsv2_sk_"),
           ("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",), ("lsv2_pt_short",)),
    _known("tavily-key", "tavily_key", r"\btvly-(?:dev-|prod-)?[A-Za-z0-9]{24,}", ("tvly-",),
           ("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",), ("tvly-dev-short",)),
    _known("pinecone-key", "pinecone_key", r"\bpcsk_[A-Za-z0-9_]{40,}", ("pcsk_",),
           ("pcsk_1fWtfgF3lgHYCc4_boJ2nHIysNUgd1WzU3byIUVjh8OHHpwC6wrDZqrzQ7Qn",), ("pcsk_short",)),
    _known("digitalocean-token", "digitalocean_token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", ("doo_v1_", "dop_v1_", "dor_v1_"),
           ("dop_v1_7df774f3f07e2f6a272d6803d6deec23175bd0a80a61e872d7c32e294bc9ae8f",), ("dop_v1_short",)),
    _known("shopify-token", "shopify_token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
           ("shpat_", "shpca_", "shppa_", "shpss_"), ("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",), ("shpat_short",)),
    # validated: entropy (see heuristics.check_known)
    _known("twilio-key", "twilio_key", r"\bSK[0-9a-fA-F]{32}\b", ("SK",),
           ("SK064dd1134cf8adc5e633c2e186c55a6d",), ("SK00000000000000000000000000000000",)),
    _known("atlassian-token", "atlassian_token", r"\bATATT3[A-Za-z0-9_\-=]{100,}", ("ATATT3",),
           ("ATATT3I46qe1Vnn7R3M4Ns_6398jgSxqfAXmmwBDljenmcB9hehCYpnbew2Onne9R78mp7eajKuQT4XMIcIXG684JHDI414K5XOcSZkJVK3rzADFx5FCG1_0xaTR-Ha8GC9zJpDF6t4o",),
           ("ATATT3 prefix means an API token",)),
    _known("onepassword-token", "onepassword_token", r"\bops_eyJ[A-Za-z0-9+/=_\-]{100,}", ("ops_eyJ",),
           ("ops_eyJ+N1bnJy/8zxqHitTENNOe0M1awqn/Ry8DNYkLbHLbhXRYjTIUSC3/zms8RLUxzRqERjNklWwMkCfel1xaY5FOXWrkBebWT1xgWf1dfjScHVaiZ5RPOtZycmQ",),
           ("ops_eyJshort",)),
    _known("alibaba-access-key", "alibaba_access_key", r"\bLTAI[A-Za-z0-9]{12,20}\b", ("LTAI",),
           ("LTAIOzkvl0nTfLuLVHQkdksZ",), ("LTAIshort",)),
    _known("onepassword-secret-key", "onepassword_secret_key",
           r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b", ("A3-",),
           ("A3-OP6P8S-WWXXH1MMZN5-8RJ5E-UXNOF-MPWUN",), ("A3-ABCDEF is a paper size",)),
    _known("doppler-token", "doppler_token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}",
           ("dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."),
           ("dp.pt.lFs2FyWTY08tlIQJ3HTSgyqM3XtbEeeCa3ZNmAyuaT3",), ("dp.pt.short",)),
    _known("postman-key", "postman_key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", ("PMAK-",),
           ("PMAK-053605988c5ad8aea02fb8ad-0359bbe559cd18b14210efe26ec78fc346",), ("PMAK-short",)),
    _known("linear-key", "linear_key", r"\blin_api_[A-Za-z0-9]{40}\b", ("lin_api_",),
           ("lin_api_C13qtcAtKfHIlIe1PA0tzvJxicj3GwaqLNR0Rcgb",), ("lin_api_short",)),
    _known("brevo-key", "brevo_key", r"\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b", ("xkeysib-",),
           ("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",),
           ("xkeysib-short",)),
    _known("square-token", "square_token", r"\bsq0(?:atp|csp)-[A-Za-z0-9_\-]{22,43}", ("sq0atp-", "sq0csp-"),
           ("sq0atp-WNbwTOkvh8DPyEmKkPB5A8",), ("sq0atp-short",)),
    _known("age-secret-key", "age_secret_key", r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b",
           ("AGE-SECRET-KEY-1",), ("AGE-SECRET-KEY-1EP42269EU6ZYVG0FL3S74JLWS3GZTYZZYFW029UC6NJFMFPJHJQTR4T2WN",),
           ("AGE-SECRET-KEY-1 is the prefix of age identities",)),
    # JWT / JWS (3 parts) and JWE (5 parts); header and payload are base64url JSON ("eyJ" = '{"')
    _known("jwt", "jwt", r"\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}(?:\.[A-Za-z0-9_\-]*){1,3}=*", ("eyJ",),
           ("eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6cnVuYWk6ZGVmYXVsdCIsImV4cCI6MTc2NzIyNTYwMH0.WWBCnGRqmV8icpEQuox3iQjL2lLRa3AsuUDUaI8-MN0",),
           ("header eyJhbGciOiJIUzI1NiJ9 only",)),
    # base64 of "-----BEGIN …" (Kubernetes Secret data, kubeconfig client-key-data): validated
    _known("private-key-base64", "private_key", r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{16,}={0,2}", ("LS0tLS1CRUdJTi",),
           ("LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo0ekx4ekpHMnpZbUtOMXBzWUprR1BuSkVPbnhIUHdWR3JwaWxMazVLYW03OWhqQ21lRU16bllteStLWGQ1blZZCi0tLS0tRU5EIFJTQSBQUklWQVRFIEtFWS0tLS0tCg==",),
           ("ca.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t",)),
    # base64 of a docker config json: {"auths": …
    _known("docker-config-base64", "docker_auth",
           r"\b(?:eyJhdXRocyI6|ewogICJhdXRocyI6|ewogICAgImF1dGhzIjo|eyAiYXV0aHMiOi)[A-Za-z0-9+/]{8,}={0,2}",
           ("eyJhdXRocyI6", "ewogICJhdXRocyI6", "ewogICAgImF1dGhzIjo", "eyAiYXV0aHMiOi"),
           ("eyJhdXRocyI6IHsibnZjci5pbyI6IHsiYXV0aCI6ICJKRzloZFhSb2RHOXJaVzQ2Y2tkc1F6aGtlSE52Wm5wbllVSk1RWE5uUTFZPSJ9fX0=",),
           ("empty config eyJhdXRocyI6e30=",)),
    # Discord webhook URLs: the id and token in the path are the credential
    _known("discord-webhook", "discord_webhook",
           r"(?:https?://)?(?:(?:canary|ptb)\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_\-]{60,68}",
           ("discord.com/api/webhooks/", "discordapp.com/api/webhooks/"),
           (("alert sink https://discord.com/api/webhooks/2262385734152184090/RBWZRZX1VlxeVZ4DNCNnOBFXL4k41GiLP9qG3L0uKW4yWRzSaTLyvH1D0SZaozaNv4AH returned 429",
             "2262385734152184090/RBWZRZX1VlxeVZ4DNCNnOBFXL4k41GiLP9qG3L0uKW4yWRzSaTLyvH1D0SZaozaNv4AH"),),
           ("see https://discord.com/developers/docs/resources/webhook", "https://discord.com/api/webhooks/ is disabled")),
    # Telegram bot tokens: <bot id>:AA<33 characters> (also inside api.telegram.org/bot<token>/… URLs; the
    # token may end with - or _, so no \b after it)
    _known("telegram-bot-token", "telegram_bot_token", r"(?:\b|\bbot)[0-9]{8,10}:AA[A-Za-z0-9_\-]{33,}", (":AA",),
           ("732792820:AAocv81k2lsNaWQrZzhB4GZqT8hqt0pmpsL",
            ("POST https://api.telegram.org/bot732792820:AAocv81k2lsNaWQrZzhB4GZqT8hqt0pmpsL/sendMessage",
             "732792820:AAocv81k2lsNaWQrZzhB4GZqT8hqt0pmpsL"),
            # as the userinfo of a notification URL: user and password are one token
            ("value: telegram://732792820:AAocv81k2lsNaWQrZzhB4GZqT8hqt0pmpsL@chat", "732792820:AAocv81k2lsNaWQrZzhB4GZqT8hqt0pmpsL"),
            ("url: /bot483972398:AAcNjpJ_fKJIUwA7NXr963Pl2NpJXBzdko-/sendMessage", "483972398:AAcNjpJ_fKJIUwA7NXr963Pl2NpJXBzdko-")),
           ("2026-01-02 10:11:12 job 732792820:AA started", "sha 12345678:AAAA mismatch"), gated=True),
]


def _json_escape_boundary(p: str) -> str:
    """A token right after a JSON escape ("…\\nghp_…", common in JSON-encoded container logs) has no \\b
    before it (the 'n' of the escape is a word character): accept the escape as a boundary too; the
    handler keeps those two characters."""
    return (r"(?:\b|\\[nrt])" + p[2:]) if p.startswith(r"\b") else p


# (kind, pattern) of every known format, in priority order (the first one matching wins)
KNOWN_FORMATS: list[tuple[str, str]] = [(r.kind, _json_escape_boundary(r.pattern)) for r in FORMATS]


# ====================================================================================== context rules
NAMEC = r"[A-Za-z0-9_.\-]"
# A key / flag / element name is the whole run of name characters before the secret word (the rules
# require a non-name character before it).  It is written unbounded, not ``{0,40}``: a counted
# repetition that restarts after every separator keeps one DFA state per combination of the counters
# in flight, and one long token over an alphabet like [A-Za-z0-9+/._-] then exhausts any DFA budget
# (re2 falls back to its NFA: ~1 MB/s).  Names longer than NAME_MAX characters are new candidates; the
# text before their value is scanned for known token formats (as the scan did when they were not
# candidates), see handlers.long_name.
NAME = NAMEC + r"*"
NAME_MAX = 40
SCHEME_MAX = 21
# secret-ish words a key / flag name must END with to be a candidate (the final decision is made by
# names.classify_name on the whole name; requiring the word at the end keeps "token_budget=",
# "max_new_tokens=", "Authentication failed:" from even becoming candidates, which matters for speed)
_KEY_QUALIFIERS = "|".join(sorted(KEY_STRONG_PREV, key=len, reverse=True))
_SUFFIX = r"(?i:[_.\-](?:b64|base64|hex|enc|encoded|value|val|raw|plain|plaintext))?"
# strong words: any (non-placeholder) value is a secret
SW = (r"(?i:pass(?:w(?:or)?d|phrase|wort)?|pwd|secret|token|(?:" + _KEY_QUALIFIERS + r")[_.\-]?key|apikey"
      r"|key[_.\-]?data|credentials?|creds?|authorization|(?:basic|proxy|http|registry|docker)[_.\-]?auth|cookie|jwt"
      r"|dockercfg|dockerconfigjson)" + _SUFFIX)
# weak words: only random-looking values are secrets, so short values are not even candidates
SW_WEAK = r"(?i:key|auth|signature|salt|hmac)" + _SUFFIX
# a shell line continuation: backslash-newline (as text, or JSON-escaped: three backslashes and n) and the next line's
# indentation. A value goes on after one (``export TOKEN=abc\\`` + newline + ``def`` is the one value abcdef),
# and may start after one (``export TOKEN=\\`` + newline + ``abcdef``); heuristics.unfold joins the parts.
CONT = r"(?:\\\r?\n|\\\\\\(?:r\\)?n)[ \t]*"
# a value: escaped-JSON string, JSON string, unterminated string, single-quoted, back-quoted, bare word.
# A bare value cannot start with '[' (markers, arrays), '<' (placeholders) or '$' (shell references).
# A bare value ends at whitespace, quotes, , ; ) ] } or at a JSON/log escape (\\n \\r \\t \\" \\\\), unless that
# is a line continuation followed by more of the value.
_BARE_C1 = r"[^\s\"'`,;)\]}\\]"
_BARE_CH = r"(?:" + _BARE_C1 + r"|\\[^nrt\"\\\s]|" + CONT + _BARE_C1 + r")"
_BARE_START = r"[^\s\"'`,;)\]}\[<$\\]"
VALUE = (r"(?:" + CONT + r")?(?:\\\"(?:[^\"\\\n]|\\[^\"\n])*\\\"|\"(?:[^\"\\\n]|\\.|\\\r?\n)*\"|\"(?:[^\"\n]|\\\r?\n)*"
         r"|'(?:[^'\n]|\\\r?\n)*'?|`[^`\n]*`?|" + _BARE_START + _BARE_CH + r"*)")
VALUE_LONG = (r"(?:" + CONT + r")?(?:\\\"[^\"\\\n]{8,}\\\"|\"(?:[^\"\\\n]|\\\r?\n){8,}\"|'(?:[^'\n]|\\\r?\n){8,}'|"
              + _BARE_START + _BARE_CH + r"{7,})")
# a character that cannot be part of a name (the context before a key)
_PRE = r"^|[^A-Za-z0-9_.\-]"


def _ctx(id_: str, kind: str, pattern: str, keywords: tuple[str, ...], tp: tuple, fp: tuple) -> Rule:
    return Rule(id_, kind, pattern, keywords, tp, fp)


# In priority order: the scan is one leftmost-first alternation of these, then the known formats.
CONTEXT: list[Rule] = [
    # query parameters: ?token=…&sig=…
    _ctx("query-parameter", "q",
         r"(?P<q_pre>[?&;])(?P<q_name>(?i:access_token|id_token|refresh_token|auth_token|token|api_key|apikey"
         r"|api-key|key|sig|signature|x-amz-signature|x-amz-security-token|x-amz-credential|password|passwd"
         r"|pwd|secret|client_secret|code|jwt|session|sessionid|private_token|private-token))"
         r"=(?P<q_val>[^&#\s\"'<>\[\]$][^&#\s\"'<>\[\]]*)", ("=",),
         (("GET https://storage.example.com/o/ckpt.pt?token=Zx8f3kQ2mN7pLw4R&alt=media", "Zx8f3kQ2mN7pLw4R"),
          # Azure SAS: the signature is URL-encoded base64 (judged decoded)
          ("GET https://acct.blob.core.windows.net/ckpt/model.pt?sv=2022-11-02&se=2026-01-03T00%3A00%3A00Z&sr=b&sp=r"
           "&sig=q9ZQ3rT7bN2mK8vL4cX6dF1gH5jW0sY3uE7iO9pA%2Bz%3D", "q9ZQ3rT7bN2mK8vL4cX6dF1gH5jW0sY3uE7iO9pA%2Bz%3D")),
         ("GET https://pypi.org/search/?q=torch&page=2", "GET /api/v1/workloads?limit=50&offset=100&sort=name",
          "GET /v2/acme/trainer/blobs/upload?digest=sha256%3A3f9a2b1c&sig=1")),
    # HTTP headers carrying credentials (plain, JSON, Python-repr, escaped JSON)
    _ctx("http-header", "h",
         r"(?P<h_pre>" + _PRE + r")(?P<h_name>(?i:authorization|proxy-authorization|x-api-key|x-auth-token"
         r"|x-access-token|private-token|x-goog-api-key|api-key|cookie|set-cookie|x-amz-security-token))"
         r"(?:\\?[\"'])?[ \t]*:[ \t]*(?:\\?[\"'])?(?P<h_val>[^\r\n\"'\\]+)", (":",),
         (("> Authorization: Bearer Zx8f3kQ2mN7pLw4RtY6u", "Zx8f3kQ2mN7pLw4RtY6u"),
          ("X-API-Key: 4f9c2e7a1b8d3f6e", "4f9c2e7a1b8d3f6e")),
         ("Authorization header missing", "authorization: server message: access denied")),
    # Kubernetes env entry as JSON: {"name": "DB_PASSWORD", "value": "…"} (also escaped JSON)
    _ctx("env-entry-json", "ej",
         r"\\?\"(?i:name)\\?\"[ \t]*:[ \t]*\\?\"(?P<ej_name>[^\"\\\n]{1,100})\\?\"[ \t]*,[ \t\r\n]*"
         r"\\?\"(?i:value)\\?\"[ \t]*:[ \t]*(?P<ej_val>" + VALUE + r")", ("value",),
         (('{"name": "DB_PASSWORD", "value": "hunter2xyz"}', "hunter2xyz"),),
         ('{"name": "EPOCHS", "value": "3"}', '{"name": "NCCL_DEBUG", "value": "INFO"}')),
    # Kubernetes env entry as YAML: - name: DB_PASSWORD\n  value: …   (or flow style name: X, value: Y)
    _ctx("env-entry-yaml", "ey",
         r"(?P<ey_pre>" + _PRE + r")(?i:name)[ \t]*:[ \t]*[\"']?(?P<ey_name>[A-Za-z0-9_.\-]{1,100})[\"']?"
         r"[ \t]*(?:\r?\n[ \t]*(?:-[ \t]*)?|,[ \t]*)(?i:value)[ \t]*:[ \t]*(?P<ey_val>" + VALUE + r")", ("value",),
         (("    - name: DB_PASSWORD\n      value: hunter2xyz", "hunter2xyz"),),
         ("    - name: NCCL_DEBUG\n      value: INFO",)),
    # aws configure set aws_secret_access_key SECRET
    _ctx("aws-configure-set", "ac",
         r"\baws[ \t]+configure[ \t]+set[ \t]+(?P<ac_name>[A-Za-z0-9_.\-]{1,80})[ \t]+(?P<ac_val>" + VALUE + r")",
         ("configure",),
         (("aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
           "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),),
         ("aws configure set region us-east-1",)),
    # XML element <password>SECRET</password>
    _ctx("xml-element", "x", r"<(?P<x_name>" + NAME + SW + r")>(?P<x_val>[^<\n]+)</", ("<",),
         (("<password>hunter2xyz</password>", "hunter2xyz"),),
         ("<passwordPolicy>strict</passwordPolicy>", "<token>expired</token>")),
    # key/name + value attribute pairs: <add key="ApiKey" value="SECRET"/>
    _ctx("key-value-attributes", "ka",
         r"(?P<ka_pre>" + _PRE + r")(?i:key|name)[ \t]*=[ \t]*[\"'](?P<ka_name>[A-Za-z0-9_.\-]{1,100})[\"'][ \t]+"
         r"(?i:value)[ \t]*=[ \t]*(?P<ka_val>" + VALUE + r")", ("value",),
         (('<add key="ApiKey" value="Zx8f3kQ2mN7pLw4R" />', "Zx8f3kQ2mN7pLw4R"),),
         ('<add key="LogLevel" value="Debug" />',)),
    # curl -u user:pass / --user / --proxy-user
    _ctx("curl-user", "cu",
         r"(?P<cu_pre>^|[\s\"'])(?:-u|--user|--proxy-user)[ \t]+[\"']?(?P<cu_user>[^\s:\"']+):(?P<cu_val>[^\s\"']+)",
         ("-u", "--user", "--proxy-user"),
         (("curl -sS -u admin:hunter2xyz https://nexus.example.com/repository/", "hunter2xyz"),),
         ("curl -sS -u admin https://nexus.example.com/", "ps -u root:")),
    # generic key = value / key: value with a secret-like key
    _ctx("key-value", "g",
         r"(?P<g_pre>" + _PRE + r")(?P<g_name>" + NAME + SW + r")"
         r"(?:\\?[\"'])?\]?[ \t]*(?::=|=>|[:=])[ \t]*(?P<g_val>" + VALUE + r")", ("=", ":"),
         (("DB_PASSWORD=hunter2xyz", "hunter2xyz"), ('{"client_secret": "s3cr3t-Value-99"}', "s3cr3t-Value-99"),
          # a value continued after a backslash-newline (both parts are the secret), or starting after one
          ("+ export DB_PASSWORD=Zx8f3kQ2mN\\\n  7pLw4RtY6u && python train.py", "Zx8f3kQ2mN\\\n  7pLw4RtY6u"),
          ('export API_TOKEN="Zx8f3kQ2mN\\\n7pLw4RtY6u"', "Zx8f3kQ2mN\\\n7pLw4RtY6u"),
          ("export DB_PASSWORD=\\\nhunter2xyz", "hunter2xyz"),
          ('{"log": "export DB_PASSWORD=Zx8f3kQ2mN\\\\\\n7pLw4RtY6u\\n"}', "Zx8f3kQ2mN\\\\\\n7pLw4RtY6u")),
         ("password: ${DB_PASSWORD}", "Authentication failed: token expired", "max_new_tokens=512",
          "export DB_PASSWORD=\\\n  ${DB_PASSWORD}", "export DATA_DIR=/mnt/data\\\n/more")),
    # the same with a weak word (key / auth / signature): value of 8+ characters
    _ctx("key-value-weak", "gw",
         r"(?P<gw_pre>" + _PRE + r")(?P<gw_name>" + NAME + SW_WEAK + r")"
         r"(?:\\?[\"'])?[ \t]*(?::=|=>|[:=])[ \t]*(?P<gw_val>" + VALUE_LONG + r")", ("=", ":"),
         (("WANDB_KEY=8f9a2b3c4d5e6f708192a3b4c5d6e7f8", "8f9a2b3c4d5e6f708192a3b4c5d6e7f8"),
          ("export WANDB_KEY=8f9a2b3c4d5e6f70\\\n8192a3b4c5d6e7f8", "8f9a2b3c4d5e6f70\\\n8192a3b4c5d6e7f8")),
         ("key: nvidia.com/gpu", "  - key: node.kubernetes.io/not-ready")),
    # --password X / -token X (space separated flag; also continued after a backslash-newline)
    _ctx("flag", "f", r"(?P<f_pre>^|[\s\"'=(])(?P<f_name>-" + NAME + SW + r")(?:[ \t]|" + CONT + r")+(?P<f_val>" + VALUE + r")",
         ("-",),
         (("python train.py --api-token Zx8f3kQ2mN7pLw4R --epochs 3", "Zx8f3kQ2mN7pLw4R"),
          # a value continued on the next line of a shell command
          ("mlflow server \\\n  --password \\\n  hunter2xyz \\\n  --port 5000", "hunter2xyz")),
         ("--max-new-tokens 512", "--token-file /var/run/secrets/kubernetes.io/serviceaccount/token")),
    # URL userinfo scheme://user:pass@host
    # (RFC 3986 userinfo may hold sub-delims such as ' ( ) ; , so only /?#@ " < > [ ] \ and space end it)
    # The scheme is letters/digits with at most three + . - separators, not "up to 21 characters": a
    # scheme can start after every separator, and 21-character counters started there multiply the DFA
    # states (see NAME); an unbounded [A-Za-z0-9+.-]* would keep every search reading to the end of a
    # long dotted token (quadratic).  The text before the userinfo of a scheme longer than SCHEME_MAX is
    # scanned for known formats (see handlers.long_name).
    _ctx("url-userinfo", "u",
         r"\b[A-Za-z][A-Za-z0-9]*(?:[+.\-][A-Za-z0-9]*){0,3}://"
         r"(?P<u_user>[^\s/?#@:\"'<>\[\]\\]*):(?P<u_val>[^\s/?#@\"<>\[\]\\]+)@", ("://",),
         (("could not connect to postgresql://mlflow:hunter2xyz@mlflow-db:5432/mlflow", "hunter2xyz"),),
         ("git clone https://github.com/acme/llm-finetune.git", "ssh://git@github.com:22/acme/repo.git")),
    # bare Bearer / Basic credentials
    _ctx("bearer", "bb", r"\b(?i:bearer)[ \t]+(?P<bb_val>[A-Za-z0-9._~+/\-]{8,}=*)", ("bearer",),
         (("retrying with bearer Zx8f3kQ2mN7pLw4RtY6u", "Zx8f3kQ2mN7pLw4RtY6u"),),
         ("bearer tokens are validated by the gateway",)),
    _ctx("basic", "bs", r"\b(?i:basic)[ \t]+(?P<bs_val>[A-Za-z0-9+/]{6,}={0,2})", ("basic",),
         (("auth=basic YWRtaW46aHVudGVyMnh5eg==", "YWRtaW46aHVudGVyMnh5eg=="),),
         ("basic setup complete", "basic authentication is disabled")),
    # ---- formats that leaked (issue 10 item 2); after the others so no earlier choice changes
    # .netrc: machine <host> login <user> password <secret>, on one line or several
    _ctx("netrc", "nr",
         r"\b(?i:machine[ \t]+[^\s]{1,256}[ \t\r\n]+(?:login[ \t]+[^\s]{1,256}[ \t\r\n]+)?|login[ \t]+[^\s]{1,256}[ \t\r\n]+)"
         r"(?i:password|passwd)[ \t]+(?P<nr_val>" + VALUE + r")", ("login", "machine"),
         (("machine api.wandb.ai login user password 8f9a2b3c4d5e6f70", "8f9a2b3c4d5e6f70"),
          ("machine nexus.example.com\n  login ci\n  password Hunter2-xyz", "Hunter2-xyz")),
         ("Login succeeded", "login admin password reset required", "machine gpu-node-7 login failed")),
    # wandb login <40 hex API key> (flags before it allowed)
    _ctx("wandb-login", "wl",
         r"\bwandb[ \t]+login\b(?:[ \t]+--?[A-Za-z][A-Za-z0-9\-]*(?:=[^\s]*)?)*[ \t]+(?P<wl_val>[A-Za-z0-9_\-]{32,})",
         ("wandb",),
         (("+ wandb login cc6577428c2f6d6bc64e5a22fac180d6b2e6e1b4", "cc6577428c2f6d6bc64e5a22fac180d6b2e6e1b4"),
          ("wandb login --relogin --host=https://wandb.example.com local-cc6577428c2f6d6bc64e5a22fac180d6b2e6e1b4",
           "local-cc6577428c2f6d6bc64e5a22fac180d6b2e6e1b4")),
         ("wandb login --relogin", "wandb: Currently logged in as: alice (acme). Use `wandb login --relogin` to force relogin")),
    # Oracle JDBC URLs carry user/password@host
    _ctx("oracle-jdbc", "oj",
         r"\bjdbc:oracle:[A-Za-z0-9]{1,16}:(?P<oj_user>[A-Za-z0-9_$#.\-]{1,128})/(?P<oj_val>[^\s@/\"'<>\[\]\\]{1,256})@",
         ("jdbc:oracle:",),
         (("url=jdbc:oracle:thin:scott/tiger@db:1521/ORCL", "tiger"),),
         ("url=jdbc:oracle:thin:@db:1521/ORCL", "jdbc:oracle:thin:@//db.example.com:1521/svc")),
    # URL-encoded key=value (a URL inside a query parameter, form bodies): password%3D…, %3Ftoken%3D…
    _ctx("url-encoded-key-value", "ue",
         r"(?P<ue_pre>%(?i:3F|26|3B|20|2C|22|27|7B)|^|[^A-Za-z0-9_.\-%])(?P<ue_name>" + NAME + r"(?:" + SW + r"|(?i:sig|signature)))"
         r"(?i:%3D)(?P<ue_val>(?:[^%&\s\"'<>#\[\]\\]|%(?:[013-9A-Fa-f][0-9A-Fa-f]|2[0-57-9A-Fa-f]))+)", ("%3D",),
         (("redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb%3Ftoken%3DZx8f3kQ2mN7pLw4R%26state%3D1", "Zx8f3kQ2mN7pLw4R"),
          ("body: user%3Dci%26password%3DHunter2%2521xyz", "Hunter2%2521xyz")),
         ("next=%2Fdashboard%3Ftab%3Dlogs%26page%3D2", "q=password%3D%24%7BDB_PASSWORD%7D")),
    # an escaped "=" between a secret-like key and its value: password\u003d…, token\x3d…, secret&#61;…
    _ctx("escaped-equals", "ee",
         r"(?P<ee_pre>^|[^A-Za-z0-9_.\-])(?P<ee_name>" + NAME + SW + r")"
         r"(?:\\{1,2}(?:x3[dD]|u003[dD])|&#61;|&#[xX]3[dD];)(?P<ee_val>(?:[^\s\"'`,;)\]}\[<>&\\])+)",
         ("\\x3d", "\\u003d", "&#61;", "&#x3d;"),
         (("{\"args\": \"--conf password\\u003dhunter2xyz\\u0026user\\u003dci\"}", "hunter2xyz"),
          ("token\\x3dZx8f3kQ2mN7pLw4R", "Zx8f3kQ2mN7pLw4R"), ("<a href=\"/x?secret&#61;Zx8f3kQ2mN7pLw4R\">", "Zx8f3kQ2mN7pLw4R")),
         ("max_new_tokens\\u003d512", "password\\u003d\\u003cnil\\u003e")),
    # GCP service-account JSON: "private_key_id": "<40 hex>"
    _ctx("gcp-private-key-id", "pk",
         r"(?P<pk_pre>" + _PRE + r")(?P<pk_name>(?i:private[_.\-]?key[_.\-]?id))(?:\\?[\"'])?[ \t]*[:=][ \t]*(?P<pk_val>" + VALUE + r")",
         ("key_id", "keyid", "key-id", "key.id"),
         (('{"type": "service_account", "private_key_id": "cc6577428c2f6d6bc64e5a22fac180d6b2e6e1b4", "client_email": "x"}',
           "cc6577428c2f6d6bc64e5a22fac180d6b2e6e1b4"),),
         ('"private_key_id": ""', "private_key_id: null")),
    # prose: "with password X", "using the token X", "the password is X"
    _ctx("prose-with-password", "pw",
         r"\b(?i:with|using|via)[ \t]+(?:(?i:the|a|an|its|my|your|new|temporary)[ \t]+)?"
         r"(?P<pw_name>(?i:password|passphrase|passwd|token|secret|api[ _\-]?key))[ \t]+(?P<pw_val>" + VALUE + r")",
         ("password", "passphrase", "passwd", "token", "secret", "key"),
         (("connecting as admin with password Hunter2xyz", "Hunter2xyz"), ("retrying using token 'Zx8f3kQ2mN7pLw4R'", "Zx8f3kQ2mN7pLw4R")),
         ("login with password authentication failed", "authenticated with token from file", "signing in with password manager",
          "using the token provided by the service account")),
    _ctx("prose-password-is", "pi",
         r"\b(?P<pi_name>(?i:password|passphrase|passwd|token|secret|api[ _\-]?key))[ \t]+(?i:is|was|will[ \t]+be)[ \t]+"
         r"(?:(?i:set[ \t]+to|now)[ \t]+)?(?P<pi_val>" + VALUE + r")",
         ("password", "passphrase", "passwd", "token", "secret", "key"),
         (("the admin password is Hunter2xyz, change it", "Hunter2xyz"), ("your token was set to 'Zx8f3kQ2mN7pLw4R'", "Zx8f3kQ2mN7pLw4R")),
         ("the password is incorrect", "token is expired", "the secret is mounted at /etc/creds", "password was changed by alice")),
]

# the rules after the (unbounded-name) generic and URL rules: what can match where one of those was
# declined (see handlers.RESCAN)
TAIL_KINDS = ("bb", "bs", "nr", "wl", "oj", "ue", "ee", "pk", "pw", "pi")


# ====================================================================================== command rules
# Command rules (docker login -p, mysql -p, redis-cli -a, sshpass -p, echo … | --password-stdin) skip an
# unbounded stretch of the line before their flag ([^\n|;&]*?).  In the single alternation a command word
# without its flag kept every later search reading to the end of the line ("mysql ghp_… " repeated,
# "redis-cli password=x " repeated: quadratic).  Each runs as its own pass before the others (only when
# one of its keywords occurs): alone, a search that reads to the end of the line finds no match there.
# ``starts`` is the part of the pattern a match starts with (to find the lines worth scanning).
def _cmd(id_: str, kind: str, pattern: str, keywords: tuple[str, ...], starts: str, tp: tuple, fp: tuple) -> Rule:
    return Rule(id_, kind, pattern, keywords, tp, fp, starts=starts)


_LOGIN = r"\b(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|helm[ \t]+registry)[ \t]+(?:auth[ \t]+)?login\b"
COMMANDS: list[Rule] = [
    # docker/podman/… login -p / --password
    _cmd("registry-login-password", "dl", _LOGIN + r"[^\n|;&]*?[ \t](?:-p|--password)(?:[ \t]+|=)(?P<dl_val>" + VALUE + r")",
         ("login",), _LOGIN,
         (("docker login -u ci -p hunter2xyz registry.example.com", "hunter2xyz"),
          ("helm registry login ghcr.io --username ci --password=hunter2xyz", "hunter2xyz")),
         ("docker login registry.example.com", "Login Succeeded")),
    # tool-specific password arguments: mysql -pSECRET, redis-cli -a SECRET, sshpass -p SECRET
    _cmd("mysql-password", "tp", r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?[ \t]-p(?P<tp_val>" + VALUE + r")",
         ("mysql", "mariadb"), r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b",
         (("mysql -h db -u root -phunter2xyz mlflow", "hunter2xyz"),), ("mysql -h db -u root -p mlflow",)),
    _cmd("redis-cli-password", "tp", r"\b(?:redis-cli|keydb-cli)\b[^\n|;&]*?[ \t]-a[ \t]+(?P<tp_val>" + VALUE + r")",
         ("-cli",), r"\b(?:redis-cli|keydb-cli)\b",
         (("redis-cli -h cache -a hunter2xyz ping", "hunter2xyz"),), ("redis-cli -h cache ping",)),
    _cmd("sshpass-password", "tp", r"\bsshpass[ \t]+-p[ \t]*(?P<tp_val>" + VALUE + r")", ("sshpass",), r"\bsshpass[ \t]+-p",
         (("sshpass -p hunter2xyz ssh ubuntu@gpu-node-7", "hunter2xyz"),), ("sshpass -f /etc/ssh-pass ssh gpu-node-7",)),
    # echo SECRET | docker login --password-stdin
    _cmd("echo-password-stdin", "es", r"\becho[ \t]+(?:-n[ \t]+)?(?P<es_val>" + VALUE + r")[ \t]*\|[^\n|]*--password-stdin",
         ("--password-stdin",), r"\becho[ \t]",
         (("echo hunter2xyz | docker login -u ci --password-stdin registry.example.com", "hunter2xyz"),),
         ("cat /run/secrets/pw | docker login -u ci --password-stdin registry.example.com",)),
]


# ============================================================================== PEM private-key blocks
# found with str.find inside bounded windows (pem.py); the END line and the body of a truncated block
PEM = Rule(
    "pem-private-key", "private_key", r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----", ("PRIVATE KEY",),
    (("key: |\n  -----BEGIN RSA PRIVATE KEY-----\n  MIIEowIBAAKCAQEAx8f3kQ2mN7pLw4RtY6uZx8f3kQ2mN7pLw4RtY6uAbCdEf\n"
      "  -----END RSA PRIVATE KEY-----\n",
      "MIIEowIBAAKCAQEAx8f3kQ2mN7pLw4RtY6uZx8f3kQ2mN7pLw4RtY6uAbCdEf"),
     ("-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\\n(truncated)",
      "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB"),
     # JSON inside JSON (a log line holding a JSON document): the newlines are escaped twice
     ('{"log": "{\\"key\\": \\"-----BEGIN PRIVATE KEY-----\\\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\\\\n'
      'x8f3kQ2mN7pLw4RtY6uZx8f3kQ2mN7pLw4RtY6uAbCdEf0123q9ZQ3rT7bN2mK8v\\"}"}',
      "x8f3kQ2mN7pLw4RtY6uZx8f3kQ2mN7pLw4RtY6uAbCdEf0123q9ZQ3rT7bN2mK8v")),
    ("-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
     "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----"),
)
PEM_END = r"^-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
# body of a block whose END is missing (truncated output): base64 lines / RFC 1421 headers separated by
# real, escaped or doubly escaped (JSON in JSON) newlines; on one line (flattened) only long base64 words continue the block.
PEM_BODY = (r"^(?:[ \t]+[A-Za-z0-9+/=]{20,}|(?:[ \t]*(?:\r?\n|\\{1,2}r\\{1,2}n|\\{1,2}n)[ \t]*)+(?:[A-Za-z0-9+/=]+"
            r"|[A-Za-z][A-Za-z\-]*:[ \t][^\r\n\\]*))*")



# ================================================================== base64 of text holding a secret
# A base64 run is decoded (encoded.py) when it holds the base64 form of one of these words at any of the
# three byte alignments; the run is replaced when the decoded text has a secret the rules above find
# (``password=…``, ``"token": "…"``, a known token).  The fragments are the characters of the encoding
# that depend on the word only.
BASE64_WORDS = ("password", "passwd", "secret", "token", "api_key", "apikey", "Password", "Secret", "Token",
                "PASSWORD", "PASSWD", "SECRET", "TOKEN", "API_KEY", "APIKEY")


def _b64_fragments(word: str) -> list[str]:
    out = []
    for k in range(3):
        enc = base64.b64encode(b"\0" * k + word.encode()).decode()
        first = -(-8 * k // 6)                    # first character made of the word's bits only
        last = (8 * (k + len(word))) // 6         # one past the last such character
        out.append(enc[first:last])
    return out


BASE64_FRAGMENTS = tuple(sorted({f for w in BASE64_WORDS for f in _b64_fragments(w)}))
BASE64 = Rule(
    "base64-encoded-secret", "base64_secret", "|".join(BASE64_FRAGMENTS), BASE64_FRAGMENTS,
    (("config.env: cGFzc3dvcmQ9aHVudGVyMnh5elE=", "cGFzc3dvcmQ9aHVudGVyMnh5elE="),
     ("echo eyJ1c2VyIjogImNpIiwgInRva2VuIjogIlp4OGYza1EybU43cEx3NFIifQ== | base64 -d",
      "eyJ1c2VyIjogImNpIiwgInRva2VuIjogIlp4OGYza1EybU43cEx3NFIifQ==")),
    # base64 of '{"token_type": "Bearer", "expires_in": 3600}' and of 'password rotation is due': no secret
    ("payload eyJ0b2tlbl90eXBlIjogIkJlYXJlciIsICJleHBpcmVzX2luIjogMzYwMH0=",
     "note cGFzc3dvcmQgcm90YXRpb24gaXMgZHVl"),
)

ALL_RULES: list[Rule] = FORMATS + CONTEXT + COMMANDS + [PEM, BASE64]
