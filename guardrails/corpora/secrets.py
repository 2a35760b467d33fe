"""Secret corpus GENERATED from vendor-documented token formats.

The generator is deliberately independent of the detector: it never imports ``guardrails.redaction``
and builds every token from a (prefix, charset, length) description of the vendor's published format
(GitHub "ghp_ + 36 base62", AWS "AKIA + 16 upper-case alphanumerics", Hugging Face "hf_ + 34 letters",
NGC "nvapi- + 64 base64url", RFC 7519 JWTs built from real JSON headers/payloads, RFC 7468 PEM blocks of
random DER bytes, RFC 3986 userinfo passwords with sub-delims, …).  The tokens are then embedded in
realistic pod specs, logs, events and commands.  A sample is (kind, secret, text) and a detector passes
when ``secret`` is gone from the redacted text (recall) and no 8-character window of it survives
(full-span recall).

Key-labelled generic secrets (``DB_PASSWORD=…``, ``"client_secret": "…"``, ``--api-key …``) are a
separate corpus; hard negatives (digests, UUIDs, pod-template hashes, resourceVersions, sizes, …) must
come out unchanged.
"""

from __future__ import annotations

import base64
import json
import random
import string
from dataclasses import dataclass

UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
DIGITS = string.digits
ALPHA = UPPER + LOWER
ALNUM = ALPHA + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
BASE32 = UPPER + "234567"


@dataclass(frozen=True)
class Sample:
    kind: str       # vendor format name (not the detector's kind)
    secret: str     # the exact secret substring that must disappear
    text: str       # realistic evidence containing it
    context: str    # template name


def _r(rng: random.Random, charset: str, n: int) -> str:
    return "".join(rng.choice(charset) for _ in range(n))


def _b64url_json(obj: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")


# ----------------------------------------------------------------------------- vendor token formats
def _jwt(rng: random.Random) -> str:
    header = {"alg": rng.choice(["RS256", "ES256", "HS256"]), "typ": "JWT", "kid": _r(rng, B64URL, 43)}
    payload = {
        "iss": rng.choice(["https://kubernetes.default.svc.cluster.local",
                           "https://app.run.ai/auth/realms/acme", "https://accounts.google.com"]),
        "sub": rng.choice(["system:serviceaccount:runai-ml:default", "a1b2c3d4-client", "user@example.com"]),
        "aud": ["runai"], "exp": 1767225600 + rng.randint(0, 10 ** 6), "iat": 1767222000,
        "email": "alice@example.com", "scope": "openid email profile",
    }
    sig = base64.urlsafe_b64encode(bytes(rng.getrandbits(8) for _ in range(rng.choice([32, 64, 256])))).decode()
    return f"{_b64url_json(header)}.{_b64url_json(payload)}.{sig.rstrip('=')}"


def _pem(rng: random.Random, label: str, nbytes: int, headers: str = "") -> str:
    der = bytes(rng.getrandbits(8) for _ in range(nbytes))
    b = base64.b64encode(der).decode()
    lines = [b[i:i + 64] for i in range(0, len(b), 64)]
    return f"-----BEGIN {label}-----\n{headers}" + "\n".join(lines) + f"\n-----END {label}-----"


def _url_password(rng: random.Random) -> str:
    # RFC 3986 userinfo: unreserved / pct-encoded / sub-delims (":" separates user and password)
    unreserved = ALNUM + "-._~"
    subdelims = "!$&'()*+,;="
    body = _r(rng, unreserved, rng.randint(10, 20))
    for _ in range(rng.randint(0, 3)):
        pos = rng.randint(1, len(body))
        ins = rng.choice([rng.choice(subdelims), "%" + rng.choice("234567") + rng.choice("0123456789ABCDEF")])
        body = body[:pos] + ins + body[pos:]
    return body


def _basic(rng: random.Random) -> str:
    user = rng.choice(["admin", "svc-ci", "robot$ml+puller", "alice"])
    pw = _r(rng, ALNUM + "!#%&*+-=?@^_", rng.randint(10, 24))
    return base64.b64encode(f"{user}:{pw}".encode()).decode()


def _dockerconfigjson(rng: random.Random) -> str:
    auth = _basic(rng)
    cfg = {"auths": {rng.choice(["nvcr.io", "ghcr.io", "registry.example.com:5000"]):
                     {"username": "$oauthtoken", "password": "nvapi-" + _r(rng, B64URL, 64), "auth": auth}}}
    return base64.b64encode(json.dumps(cfg).encode()).decode()


def _pem_b64(rng: random.Random) -> str:
    return base64.b64encode(_pem(rng, "RSA PRIVATE KEY", 600).encode()).decode()


# (name, generator).  Each generator follows the vendor's documented shape.
TOKEN_FORMATS: list[tuple[str, callable]] = [
    ("aws_access_key_id", lambda r: "AKIA" + _r(r, UPPER + DIGITS, 16)),
    ("aws_sts_access_key_id", lambda r: "ASIA" + _r(r, UPPER + DIGITS, 16)),
    ("github_classic_pat", lambda r: "ghp_" + _r(r, ALNUM, 36)),
    ("github_oauth_token", lambda r: "gho_" + _r(r, ALNUM, 36)),
    ("github_app_user_token", lambda r: "ghu_" + _r(r, ALNUM, 36)),
    ("github_app_installation_token", lambda r: "ghs_" + _r(r, ALNUM, 36)),
    ("github_refresh_token", lambda r: "ghr_" + _r(r, ALNUM, 36)),
    ("github_fine_grained_pat", lambda r: "github_pat_" + _r(r, ALNUM, 22) + "_" + _r(r, ALNUM, 59)),
    ("gitlab_pat", lambda r: "glpat-" + _r(r, ALNUM + "-_", 20)),
    ("gitlab_pat_routable", lambda r: "glpat-" + _r(r, B64URL, 27) + ".01." + _r(r, LOWER + DIGITS, 9)),
    ("gitlab_runner_token", lambda r: "glrt-" + _r(r, ALNUM + "-_", 20)),
    ("gitlab_deploy_token", lambda r: "gldt-" + _r(r, ALNUM + "-_", 20)),
    ("gitlab_runner_registration", lambda r: "GR1348941" + _r(r, ALNUM + "-_", 20)),
    ("slack_bot_token", lambda r: f"xoxb-{_r(r, DIGITS, 12)}-{_r(r, DIGITS, 13)}-{_r(r, ALNUM, 24)}"),
    ("slack_user_token", lambda r: f"xoxp-{_r(r, DIGITS, 12)}-{_r(r, DIGITS, 12)}-{_r(r, DIGITS, 13)}-{_r(r, HEX, 32)}"),
    ("slack_app_token", lambda r: f"xapp-1-A{_r(r, UPPER + DIGITS, 10)}-{_r(r, DIGITS, 13)}-{_r(r, HEX, 64)}"),
    ("slack_webhook_url", lambda r: f"https://hooks.slack.com/services/T{_r(r, UPPER + DIGITS, 8)}/B{_r(r, UPPER + DIGITS, 10)}/{_r(r, ALNUM, 24)}"),
    ("openai_legacy_key", lambda r: "sk-" + _r(r, ALNUM, 20) + "T3BlbkFJ" + _r(r, ALNUM, 20)),
    ("openai_project_key", lambda r: "sk-proj-" + _r(r, B64URL, r.choice([48, 100, 156]))),
    ("openai_service_account_key", lambda r: "sk-svcacct-" + _r(r, B64URL, 100)),
    ("anthropic_api_key", lambda r: "sk-ant-api03-" + _r(r, B64URL, 93) + "AA"),
    ("stripe_live_secret", lambda r: "sk_live_" + _r(r, ALNUM, r.choice([24, 99]))),
    ("stripe_test_secret", lambda r: "sk_test_" + _r(r, ALNUM, 24)),
    ("stripe_restricted", lambda r: "rk_live_" + _r(r, ALNUM, 24)),
    ("stripe_webhook_secret", lambda r: "whsec_" + _r(r, ALNUM, 32)),
    ("huggingface_user_token", lambda r: "hf_" + _r(r, ALPHA, 34)),
    ("huggingface_org_token", lambda r: "api_org_" + _r(r, ALPHA, 34)),
    ("ngc_api_key", lambda r: "nvapi-" + _r(r, B64URL, 64)),
    ("google_api_key", lambda r: "AIza" + _r(r, B64URL, 35)),
    ("google_oauth_client_secret", lambda r: "GOCSPX-" + _r(r, B64URL, 28)),
    ("google_oauth_access_token", lambda r: "ya29." + _r(r, B64URL, r.randint(100, 200))),
    ("azure_ad_client_secret", lambda r: _r(r, ALNUM + "_~.", 3) + r.choice(DIGITS) + "Q~" + _r(r, ALNUM + "_~.-", 34)),
    ("databricks_token", lambda r: "dapi" + _r(r, HEX, 32)),
    ("npm_token", lambda r: "npm_" + _r(r, ALNUM, 36)),
    ("pypi_token", lambda r: "pypi-AgEIcHlwaS5vcmc" + _r(r, B64URL, r.randint(60, 150))),
    ("dockerhub_pat", lambda r: "dckr_pat_" + _r(r, B64URL, 27)),
    ("grafana_cloud_token", lambda r: "glc_" + base64.b64encode(json.dumps({"o": _r(r, DIGITS, 6), "n": "stack-" + _r(r, DIGITS, 6), "k": _r(r, ALNUM, 24)}).encode()).decode()),
    ("grafana_service_account_token", lambda r: "glsa_" + _r(r, ALNUM, 32) + "_" + _r(r, HEX, 8)),
    ("vault_service_token", lambda r: "hvs." + _r(r, B64URL, r.choice([24, 91]))),
    ("sendgrid_api_key", lambda r: "SG." + _r(r, B64URL, 22) + "." + _r(r, B64URL, 43)),
    ("replicate_token", lambda r: "r8_" + _r(r, ALNUM, 37)),
    ("groq_api_key", lambda r: "gsk_" + _r(r, ALNUM, 52)),
    ("digitalocean_pat", lambda r: "dop_v1_" + _r(r, HEX, 64)),
    ("shopify_access_token", lambda r: "shpat_" + _r(r, HEX, 32)),
    ("langsmith_api_key", lambda r: "lsv2_pt_" + _r(r, HEX, 32) + "_" + _r(r, HEX, 10)),
    ("alibaba_access_key_id", lambda r: "LTAI" + _r(r, ALNUM, 20)),
    ("doppler_personal_token", lambda r: "dp.pt." + _r(r, ALNUM, 43)),
    ("postman_api_key", lambda r: "PMAK-" + _r(r, HEX, 24) + "-" + _r(r, HEX, 34)),
    ("linear_api_key", lambda r: "lin_api_" + _r(r, ALNUM, 40)),
    ("jwt", _jwt),
    ("pem_rsa_private_key", lambda r: _pem(r, "RSA PRIVATE KEY", 1190)),
    ("pem_pkcs8_private_key", lambda r: _pem(r, "PRIVATE KEY", 1216)),
    ("pem_ec_private_key", lambda r: _pem(r, "EC PRIVATE KEY", 121)),
    ("pem_openssh_private_key", lambda r: _pem(r, "OPENSSH PRIVATE KEY", 400)),
    ("pem_encrypted_private_key", lambda r: _pem(r, "ENCRYPTED PRIVATE KEY", 1300)),
    ("pem_rsa_legacy_encrypted", lambda r: _pem(r, "RSA PRIVATE KEY", 1190, headers=f"Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{_r(r, HEX.upper(), 32)}\n\n")),
    ("pgp_private_key_block", lambda r: _pem(r, "PGP PRIVATE KEY BLOCK", 900, headers="Version: GnuPG v2\n\n")),
    ("k8s_secret_pem_b64", _pem_b64),
    ("dockerconfigjson_b64", _dockerconfigjson),
]

# formats whose secret only makes sense with a label (no vendor prefix): always embedded labelled
LABELLED_FORMATS: list[tuple[str, callable, list[str]]] = [
    ("aws_secret_access_key", lambda r: _r(r, B64, 40), ["aws_credentials", "aws_env", "aws_env_json"]),
    ("basic_auth_credentials", _basic, ["basic_header", "basic_header_json", "docker_config_auth"]),
    ("opaque_bearer_token", lambda r: _r(r, B64URL + ".~", r.randint(32, 64)), ["bearer_header", "bearer_curl"]),
    ("url_userinfo_password", _url_password, ["url_git", "url_db", "url_pip", "url_amqp"]),
]

def _password(rng: random.Random) -> str:
    """A password as people and generators write them: letters and digits (at least one), a symbol or not."""
    body = rng.choice(ALPHA) + _r(rng, ALNUM, rng.randint(8, 16))
    return body + rng.choice(DIGITS) + rng.choice(["", "!", "#", "-x", "_7"])


def _sas_sig(rng: random.Random) -> str:
    # an Azure SAS signature: base64 of a 32-byte HMAC, URL-encoded in the query string
    raw = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(32))).decode()
    return raw.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


def _b64_of_config(rng: random.Random) -> str:
    text = rng.choice(["password={p}\n", "DB_USER=mlflow\nDB_PASSWORD={p}\n", '{{"user": "ci", "token": "{p}"}}',
                       "api_key: {p}\nregion: us-east-1\n"]).format(p=_password(rng))
    return base64.b64encode(text.encode()).decode()


# formats that used to leak (issue 10 item 2): each embedded in the evidence it comes from
LEAKED_FORMATS: list[tuple[str, callable, list[str]]] = [
    ("netrc_password", _password, ["netrc_line", "netrc_multiline"]),
    ("wandb_login_key", lambda r: _r(r, HEX, 40), ["wandb_login", "wandb_login_flags"]),
    ("oracle_jdbc_password", _password, ["jdbc_oracle", "jdbc_oracle_json"]),
    ("url_encoded_secret", lambda r: _r(r, B64URL.replace("-", ""), 32), ["urlenc_redirect", "urlenc_form"]),
    ("escaped_equals_secret", _password, ["json_u003d", "js_x3d", "html_entity"]),
    ("azure_sas_signature", _sas_sig, ["azure_sas_url", "azure_sas_connection_string"]),
    ("discord_webhook", lambda r: _r(r, DIGITS, 19) + "/" + _r(r, B64URL, 68), ["discord_url"]),
    ("telegram_bot_token", lambda r: str(r.randint(10 ** 8, 10 ** 10 - 1)) + ":AA" + _r(r, B64URL, 33),
     ["telegram_url", "telegram_env"]),
    ("gcp_private_key_id", lambda r: _r(r, HEX, 40), ["gcp_sa_json", "gcp_sa_json_escaped"]),
    ("continued_password_flag", _password, ["shell_continuation"]),
    # an assignment continued after a backslash-newline: both parts are the secret (as text, and JSON-escaped)
    ("continued_assignment", lambda r: _password(r) + "\\\n" + _password(r),
     ["export_continued", "export_continued_indented", "env_continued"]),
    ("continued_assignment_escaped", lambda r: _password(r) + "\\\\\\n" + _password(r), ["export_continued_json"]),
    ("base64_of_secret_config", _b64_of_config, ["k8s_configmap_b64", "echo_b64"]),
    ("prose_password", _password, ["prose_with", "prose_is"]),
]

# --------------------------------------------------------------------------- realistic embeddings
# {s} = the secret; {S}/{pod}/{ts}/{uuid}/{node} filled from realistic values
_CONTEXTS: dict[str, str] = {
    "log_plain": "{ts} INFO  [rank0] hub: using credential {s} to download meta-llama/Llama-3-8B\n",
    "log_python_repr": "{ts} DEBUG client config: {{'endpoint': 'https://api.example.com', 'api_key': '{s}', 'timeout': 30}}\n",
    "log_json_escaped": "{{\"log\":\"export TOKEN_VALUE={s}\\n\",\"stream\":\"stdout\",\"time\":\"{ts}\"}}\n",
    "log_traceback": "openai.AuthenticationError: Error code: 401 - Incorrect API key provided: {s}. You can find your API key at https://platform.openai.com/account/api-keys.\n",
    "event_message": "Failed to pull image \"nvcr.io/nvidia/pytorch:24.01-py3\": rpc error: code = Unknown desc = failed to authorize: credential {s} was rejected\n",
    "env_yaml": "    env:\n    - name: HF_HOME\n      value: /data/hf\n    - name: ACCESS_CREDENTIAL\n      value: {s}\n    - name: NCCL_DEBUG\n      value: INFO\n",
    "env_json_runai": "{{\"environmentVariables\": [{{\"name\": \"EPOCHS\", \"value\": \"3\"}}, {{\"name\": \"SERVICE_CREDENTIAL\", \"value\": \"{s}\"}}]}}\n",
    "submit_command": "runai submit train-llama -p ml-team -i nvcr.io/nvidia/pytorch:24.01-py3 -g 8 --environment SERVICE_CREDENTIAL={s} -- python train.py --epochs 3\n",
    "annotation": "annotations:\n  runai-submit-command: 'runai training submit ft-{pod} --image ghcr.io/acme/ft:1.4 --gpu 4 -e CRED={s}'\n",
    "curl_header": "curl -sS -H \"Authorization: token {s}\" https://api.github.com/repos/acme/ml/actions/runs\n",
    "shell_export": "+ export SERVICE_CREDENTIAL={s}\n+ python -m torch.distributed.run --nproc_per_node 8 train.py\n",
    "bare_line": "{ts} WARN cached value {s} will be reused for the next 3600s\n",
    "kubectl_describe_env": "    Environment:\n      WORLD_SIZE:          8\n      SERVICE_CREDENTIAL:  {s}\n      MASTER_ADDR:         {pod}-master-0\n",
    "yaml_config": "hub:\n  endpoint: https://hub.example.com\n  credential: {s}\n  retries: 5\n",
    "k8s_secret_yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: training-creds\ntype: Opaque\ndata:\n  value: {s}\n",
}
# which contexts suit which secrets (PEM blocks are multi-line, so not in one-liners that would break them)
_MULTILINE_OK = {"log_plain", "bare_line", "env_yaml", "yaml_config", "log_json_escaped", "env_json_runai"}

_LABELLED_CONTEXTS: dict[str, str] = {
    "aws_credentials": "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = {s}\nregion = us-east-1\n",
    "aws_env": "    - name: AWS_SECRET_ACCESS_KEY\n      value: {s}\n",
    "aws_env_json": "{{\"name\": \"AWS_SECRET_ACCESS_KEY\", \"value\": \"{s}\"}}",
    "basic_header": "> GET /v2/acme/trainer/manifests/1.4 HTTP/1.1\n> Authorization: Basic {s}\n> Accept: */*\n",
    "basic_header_json": "{{\"headers\": {{\"Authorization\": \"Basic {s}\", \"Accept\": \"application/json\"}}}}",
    "docker_config_auth": "{{\"auths\": {{\"registry.example.com\": {{\"auth\": \"{s}\"}}}}}}",
    "bearer_header": "DEBUG:httpx:HTTP Request headers: Authorization: Bearer {s}\n",
    "bearer_curl": "curl -H 'Authorization: Bearer {s}' https://app.run.ai/api/v1/workloads\n",
    "url_git": "{ts} git clone https://oauth2:{s}@gitlab.example.com/ml/llm-finetune.git /workspace/src\n",
    "url_db": "sqlalchemy.exc.OperationalError: could not connect to postgresql://mlflow:{s}@mlflow-db.ml.svc:5432/mlflow\n",
    "url_pip": "Looking in indexes: https://__token__:{s}@pypi.example.com/simple\n",
    "url_amqp": "celery.worker: Connected to amqp://worker:{s}@rabbitmq.infra:5672//\n",
    "netrc_line": "+ echo 'machine api.wandb.ai login user password {s}' >> /root/.netrc\n",
    "netrc_multiline": "$ cat ~/.netrc\nmachine nexus.example.com\n  login ci-bot\n  password {s}\n",
    "wandb_login": "{ts} + wandb login {s}\n",
    "wandb_login_flags": "+ wandb login --relogin --host=https://wandb.example.com {s}\n",
    "jdbc_oracle": "java.sql.SQLException: Listener refused the connection: jdbc:oracle:thin:scott/{s}@oradb.ml.svc:1521/ORCL\n",
    "jdbc_oracle_json": "{{\"spring.datasource.url\": \"jdbc:oracle:thin:app_user/{s}@//oradb:1521/FEATURES\"}}",
    "urlenc_redirect": "GET /oauth/callback?redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb%3Faccess_token%3D{s}%26state%3Dx HTTP/1.1\n",
    "urlenc_form": "POST /login body=user%3Dci%26password%3D{s}%26remember%3D1\n",
    "json_u003d": "{{\"args\": \"--set db.password\\u003d{s}\\u0026db.user\\u003dml\"}}",
    "js_x3d": "config = \"token\\x3d{s}\";\n",
    "html_entity": "<a href=\"/reset?user=alice&amp;password&#61;{s}\">reset</a>\n",
    "azure_sas_url": "Downloading https://acmeml.blob.core.windows.net/ckpt/model.safetensors?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-03T00:00:00Z&sig={s}\n",
    "azure_sas_connection_string": "AZURE_STORAGE_SAS_URL=https://acmeml.blob.core.windows.net/data?sp=rl&st=2026-01-01&spr=https&sv=2022-11-02&sr=c&sig={s}\n",
    "discord_url": "{ts} ERROR notifier: POST https://discord.com/api/webhooks/{s} failed: 429 Too Many Requests\n",
    "telegram_url": "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.telegram.org', port=443): Max retries exceeded with url: /bot{s}/sendMessage\n",
    "telegram_env": "    - name: ALERT_CHANNEL\n      value: telegram://{s}@chat\n",
    "gcp_sa_json": "{{\"type\": \"service_account\", \"project_id\": \"acme-ml\", \"private_key_id\": \"{s}\", \"client_email\": \"trainer@acme-ml.iam.gserviceaccount.com\"}}",
    "gcp_sa_json_escaped": "{{\"log\":\"loaded credentials {{\\\"private_key_id\\\": \\\"{s}\\\"}}\\n\"}}",
    "export_continued": "+ export MLFLOW_TRACKING_PASSWORD={s}\n+ mlflow run .\n",
    "export_continued_indented": "  export DB_PASSWORD={s} && python train.py --epochs 3\n",
    "env_continued": "RUN API_SECRET={s} ./download.sh\n",
    "export_continued_json": "{{\"log\":\"+ export DB_PASSWORD={s}\\n\",\"stream\":\"stderr\"}}\n",
    "shell_continuation": "+ mlflow server \\\n    --backend-store-uri postgresql://mlflow@db/mlflow \\\n    --password \\\n    {s} \\\n    --port 5000\n",
    "k8s_configmap_b64": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: train-env\nbinaryData:\n  app.env: {s}\n",
    "echo_b64": "+ echo {s} | base64 -d > /workspace/.env\n",
    "prose_with": "{ts} INFO db: connecting to mlflow-db as admin with password {s}\n",
    "prose_is": "NOTE: the temporary password is {s} (change it after the first login)\n",
}


def _fill(rng: random.Random, template: str, secret: str) -> str:
    return template.format(
        s=secret,
        ts=f"2026-01-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z",
        pod=f"job-{rng.randint(1, 999)}",
    )


def known_format_samples(per_format: int = 12, seed: int = 7) -> list[Sample]:
    """Every vendor format × several contexts."""
    rng = random.Random(seed)
    out: list[Sample] = []
    ctx_names = list(_CONTEXTS)
    for name, gen in TOKEN_FORMATS:
        multiline = name.startswith(("pem_", "pgp_"))
        choices = [c for c in ctx_names if c in _MULTILINE_OK] if multiline else ctx_names
        for i in range(per_format):
            secret = gen(rng)
            ctx = choices[i % len(choices)]
            tmpl = _CONTEXTS[ctx]
            text_secret = secret
            if ctx == "log_json_escaped" or ctx == "env_json_runai":
                text_secret = secret.replace("\n", "\\n")
            elif ctx in ("env_yaml", "yaml_config") and multiline:
                text_secret = "|\n        " + secret.replace("\n", "\n        ")
            text = _fill(rng, tmpl, text_secret)
            # the secret to look for is what is in the text (escaped newlines included)
            look = secret if text_secret == secret else text_secret.replace("|\n        ", "", 1)
            if name == "slack_webhook_url":
                look = secret.split("/services/", 1)[1]  # the T…/B…/secret path is the credential
            out.append(Sample(name, look, text, ctx))
    for name, gen, ctxs in LABELLED_FORMATS + LEAKED_FORMATS:
        for i in range(per_format):
            secret = gen(rng)
            ctx = ctxs[i % len(ctxs)]
            out.append(Sample(name, secret, _fill(rng, _LABELLED_CONTEXTS[ctx], secret), ctx))
    return out


# --------------------------------------------------------------------------- key-labelled generic
GENERIC_NAMES = [
    "DB_PASSWORD", "POSTGRES_PASSWORD", "MYSQL_ROOT_PASSWORD", "REDIS_PASSWORD", "MLFLOW_TRACKING_PASSWORD",
    "WANDB_API_KEY", "COMET_API_KEY", "NEPTUNE_API_TOKEN", "CLEARML_API_SECRET_KEY", "RUNAI_CLIENT_SECRET",
    "client_secret", "clientSecret", "api_key", "apiKey", "SECRET_TOKEN", "AUTH_TOKEN", "access_token",
    "refreshToken", "S3_SECRET_KEY", "AZURE_STORAGE_KEY", "AZURE_CLIENT_SECRET", "MINIO_ROOT_PASSWORD",
    "MINIO_SECRET_KEY", "aws_secret_access_key", "GITHUB_TOKEN", "HF_TOKEN", "NGC_API_KEY", "OPENAI_API_KEY",
    "SMTP_PASS", "LDAP_BIND_PASSWORD", "db.password", "spring.datasource.password", "jwt_secret",
    "SESSION_SECRET", "ENCRYPTION_KEY", "SIGNING_KEY", "webhook_secret", "password", "passwd", "secret_key",
    "private_key", "credentials", "x-api-key", "TRITON_AUTH_TOKEN", "LABEL_STUDIO_API_KEY", "ray_redis_password",
]
_PW_SYMBOLS = "!@#%^&*-_+=.~"


def _generic_value(rng: random.Random) -> str:
    kind = rng.randrange(9)
    if kind == 0:
        return _r(rng, HEX, 32)
    if kind == 1:
        return _r(rng, HEX, 40)
    if kind == 2:
        return _r(rng, B64, 40)
    if kind == 3:
        return _r(rng, ALNUM, 24)
    if kind == 4:
        return _r(rng, B64URL, 32)
    if kind == 5:  # memorable password
        return rng.choice(["Summer", "Winter", "Falcon", "Orchid", "Granite"]) + str(rng.randint(1990, 2030)) + rng.choice("!#%*")
    if kind == 6:  # random password with symbols (not starting with a symbol used for shell refs)
        return rng.choice(ALNUM) + _r(rng, ALNUM + _PW_SYMBOLS, rng.randint(9, 20))
    if kind == 7:  # uuid used as an API key
        h = _r(rng, HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"
    return "-".join(rng.choice(["correct", "horse", "battery", "staple", "violet", "rocket", "pepper"]) for _ in range(4))


def _kebab(name: str) -> str:
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i and (name[i - 1].islower()):
            out.append("-")
        out.append(ch.lower())
    return "".join(out).replace("_", "-").replace(".", "-")


GENERIC_FORMATS = {
    "shell": "{n}={v}",
    "shell_export": "export {n}={v}",
    "shell_quoted": "{n}=\"{v}\"",
    "shell_single": "{n}='{v}'",
    "docker_e": "docker run -e {n}={v} nvcr.io/nvidia/pytorch:24.01-py3",
    "runai_env": "runai submit job-1 -i img --environment {n}={v} -g 1",
    "yaml": "{n}: {v}",
    "yaml_quoted": "{n}: \"{v}\"",
    "json": "{{\"{n}\": \"{v}\", \"region\": \"us-east-1\"}}",
    "json_escaped": "{{\"log\":\"config {{\\\"{n}\\\":\\\"{v}\\\"}}\\n\"}}",
    "py_repr": "settings={{'{n}': '{v}', 'debug': False}}",
    "flag_space": "python train.py --{k} {v} --epochs 3",
    "flag_eq": "python train.py --{k}={v} --epochs 3",
    "env_yaml": "- name: {n}\n  value: {v}",
    "env_yaml_quoted": "- name: {n}\n  value: \"{v}\"",
    "env_json": "{{\"name\": \"{n}\", \"value\": \"{v}\"}}",
    "describe_env": "      {n}:  {v}",
    "ini": "{n} = {v}",
    "log_kv": "{ts} INFO connecting with {n}={v} host=db.ml.svc",
    "xml": "<{n}>{v}</{n}>",
    "dotnet_config": "<add key=\"{n}\" value=\"{v}\" />",
    "os_environ": "os.environ[\"{n}\"] = \"{v}\"",
    "toml": "{n} = \"{v}\"",
    "dotenv_comment": "{n}={v}  # do not commit",
}


def generic_samples(n: int = 2000, seed: int = 11) -> list[Sample]:
    rng = random.Random(seed)
    fmts = list(GENERIC_FORMATS.items())
    out = []
    for i in range(n):
        name = rng.choice(GENERIC_NAMES)
        fmt_name, fmt = fmts[i % len(fmts)]
        v = _generic_value(rng)
        text = fmt.format(n=name, k=_kebab(name), v=v, ts="2026-01-02T10:11:12Z")
        out.append(Sample("generic:" + name, v, text, fmt_name))
    return out


# --------------------------------------------------------------------------- hard negatives
def hard_negatives(n_random: int = 400, seed: int = 13) -> list[str]:
    """Evidence that looks secret-ish but must survive redaction unchanged."""
    rng = random.Random(seed)
    fixed = [
        "image: nvcr.io/nvidia/pytorch@sha256:" + _r(rng, HEX, 64),
        "Container image \"ghcr.io/acme/trainer:git-3f9a2b1c4d5e6f708192a3b4c5d6e7f8091a2b3c\" already present on machine",
        "Successfully pulled image \"nvcr.io/nvidia/nemo:24.07\" in 1m32.5s (1m32.5s including waiting). Image size: 21845637281 bytes.",
        "workloadId: 3f2b1c9e-7a6d-4e2f-9b1a-0c8d7e6f5a4b",
        "clusterId: 9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a",
        "Back-off restarting failed container trainer in pod train-7d9f8c6b5-x2x9q_runai-ml(3f2b1c9e-7a6d-4e2f-9b1a-0c8d7e6f5a4b)",
        "resourceVersion: \"184467440737\"",
        "  uid: 5c1f0d6e-2b3a-4c8d-9e7f-0a1b2c3d4e5f",
        "Last State: Terminated  Reason: OOMKilled  Exit Code: 137",
        "cpuMemoryLimit: 32Gi",
        "CPU_MEMORY_LIMIT_BYTES 34359738368",
        "lastTransitionTime: \"2026-01-01T03:49:52Z\"",
        "key: nvidia.com/gpu",
        "  - key: node.kubernetes.io/not-ready\n    operator: Exists\n    effect: NoExecute\n    tolerationSeconds: 300",
        "secretName: hf-token",
        "secret: db-credentials",
        "      valueFrom:\n        secretKeyRef:\n          name: wandb\n          key: api-key",
        "tokenizer: meta-llama/Llama-3.1-8B-Instruct",
        "max_tokens: 4096",
        "--max-new-tokens 512",
        "pad_token: <pad>",
        "Using pad_token, but it is not set yet.",
        "token_type: Bearer",
        "tokenType: Bearer",
        "expiresIn: 3600",
        "psql: error: connection to server at \"10.0.3.4\", port 5432 failed: FATAL:  password authentication failed for user \"mlflow\"",
        "Error: secret \"hf-token\" not found",
        "MountVolume.SetUp failed for volume \"creds\" : secret \"db-credentials\" not found",
        "Authentication failed: token expired",
        "401 Unauthorized: invalid token",
        "WWW-Authenticate: Bearer realm=\"https://auth.docker.io/token\",service=\"registry.docker.io\"",
        "--token-file /var/run/secrets/kubernetes.io/serviceaccount/token",
        "TOKEN_PATH=/var/run/secrets/kubernetes.io/serviceaccount/token",
        "password: ${DB_PASSWORD}",
        "HF_TOKEN: <set to the key 'token' in secret 'hf'>  Optional: false",
        "AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY",
        "checksum/config: " + _r(rng, HEX, 64),
        "pod-template-hash: 7d9f8c6b5",
        "controller-revision-hash: train-5f6d8b9c7",
        "nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB",
        "Node gpu-node-07 status is now: NodeNotReady",
        "Started container trainer",
        "Pulling image \"nvcr.io/nvidia/pytorch:24.01-py3\"",
        "NCCL INFO Using network IB",
        "step 1200/5000 loss=2.3411 lr=3.0e-04 tokens/s=48211",
        "git_commit=8c1f0e9d2b3a4c5d6e7f8091a2b3c4d5e6f70819",
        "pip install --index-url https://pypi.org/simple torch==2.3.1",
        "kubectl logs train-42-0-0 -n runai-ml-team --previous",
        "Authorization header missing",
        "basic setup complete; bearer tokens are validated by the gateway",
        "exit code 143 (SIGTERM)",
        "x-request-id: " + _r(rng, HEX, 32),
        "ETag: \"" + _r(rng, HEX, 32) + "\"",
        "TORCH_NCCL_ASYNC_ERROR_HANDLING=1",
        "sk-learn pipeline step finished",
        # look-alikes of the formats of issue 10 item 2: the word without a value, values that are not secrets
        "Login Succeeded",
        "login succeeded for user alice",
        "machine gpu-node-07 login failed: Permission denied (publickey)",
        "wandb: Currently logged in as: alice (acme-ml). Use `wandb login --relogin` to force relogin",
        "wandb: Appending key for api.wandb.ai to your netrc file: /root/.netrc",
        "jdbc:oracle:thin:@oradb.ml.svc:1521/ORCL",
        "spring.datasource.url=jdbc:oracle:thin:@//oradb:1521/FEATURES",
        "GET /api/v1/workloads?limit=50&offset=100&sort=name HTTP/1.1\" 200",
        "GET /oauth/callback?redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb%3Ftab%3Dlogs%26page%3D2 HTTP/1.1",
        "GET /v2/acme/trainer/blobs/uploads/?digest=sha256%3A" + _r(rng, HEX, 64) + " HTTP/1.1",
        "login with password authentication failed for user \"mlflow\"",
        "the password is incorrect (2 attempts left)",
        "password must be at least 12 characters long",
        "using the token provided by the service account",
        "authenticated with token from /var/run/secrets/tokens/hf",
        "the secret is mounted at /etc/creds",
        "token was refreshed",
        "password reset link sent to alice@example.com",
        "private_key_id field missing in credentials file",
        "Discord notification sent to channel #ml-alerts",
        "telegram: message 4812 delivered to chat 92817",
        "max_new_tokens\\u003d512",
        "commit " + _r(rng, HEX, 40) + " (HEAD -> main, origin/main)",
        "--password-file /etc/db/password \\",
        "data: " + base64.b64encode(b'{"token_type": "Bearer", "expires_in": 3600}').decode(),
        "note: " + base64.b64encode(b"password rotation is due on 2026-02-01").decode(),
    ]
    out = list(fixed)
    for _ in range(n_random):
        h = _r(rng, HEX, 32)
        kind = rng.randrange(8)
        if kind == 0:
            out.append(f"image: registry.example.com/ml/train@sha256:{_r(rng, HEX, 64)}")
        elif kind == 1:
            out.append(f"uid: {h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}")
        elif kind == 2:
            out.append(f"pod/{rng.choice(['train', 'infer', 'ft'])}-{_r(rng, 'bcdfghjklmnpqrstvwxz2456789', 9)}-{_r(rng, 'bcdfghjklmnpqrstvwxz2456789', 5)} Back-off restarting failed container")
        elif kind == 3:
            out.append(f"resourceVersion: \"{rng.randint(10 ** 5, 10 ** 12)}\"")
        elif kind == 4:
            out.append(f"memory: {rng.choice([8, 16, 32, 64, 128])}Gi limit={rng.randint(2 ** 30, 2 ** 38)}")
        elif kind == 5:
            out.append(f"commit {_r(rng, HEX, 40)} Merge pull request #{rng.randint(1, 9999)}")
        elif kind == 6:
            out.append(f"{rng.randint(2020, 2026)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00Z Exit Code: {rng.choice([0, 1, 2, 126, 127, 137, 139, 143])}")
        else:
            out.append(f"image: ghcr.io/acme/trainer:{_r(rng, HEX, 12)}")
    return out
