"""Classification of key / variable / flag names: does this name label a secret?

Used by the text redactor (``password=...``, ``--api-key X``, ``- name: DB_PASSWORD``) and by the
structure-aware ``redact_value`` (dict keys, ``{name, value}`` env entries).

The rule is decided on the *last words* of the name (``DB_PASSWORD`` → ``db password``;
``clientSecret`` → ``client secret``; ``token_type`` → ``token type``):

* STRONG  – the value is a secret whatever it looks like (``password``, ``client_secret``, ``HF_TOKEN``)
* WEAK    – a secret only if the value looks random (``key``, ``auth``, ``signature``): ``key: nvidia.com/gpu``
            (a toleration) must survive, ``WANDB_KEY=8f9a…`` must not.
* None    – not a secret label (``token_type``, ``secret_name``, ``password_file``, ``max_tokens``,
            ``pad_token``, ``public_key``, ``tokenizer``).
"""

from __future__ import annotations

import functools
import re

STRONG = "strong"
WEAK = "weak"

_CAMEL_1 = re.compile(r"([a-z0-9])([A-Z])")
_CAMEL_2 = re.compile(r"([A-Z]+)([A-Z][a-z])")
_SPLIT = re.compile(r"[^A-Za-z0-9]+")

# words that, as the LAST word, make a name a strong secret label
_STRONG_LAST = {
    "password": "password",
    "passwd": "password",
    "passphrase": "password",
    "pwd": "password",
    "pass": "password",
    "passwort": "password",
    "secret": "secret",
    "secrets": None,  # "secrets" is usually a list/ref (secrets: [...]); decided below
    "token": "token",
    "apikey": "api_key",
    "credential": "credential",
    "credentials": "credential",
    "creds": "credential",
    "cred": "credential",
    "authorization": "auth",
    "cookie": "cookie",
    "cookies": "cookie",
    "sessionid": "session",
    "privatekey": "private_key",
    "secretkey": "secret",
    "accesskey": "api_key",
    "authtoken": "token",
    "accesstoken": "token",
    "refreshtoken": "token",
    "idtoken": "token",
    "apitoken": "token",
    "bearer": "token",
    "jwt": "token",
    "dockercfg": "docker_auth",
    "dockerconfigjson": "docker_auth",
    "dsn": None,  # DSNs are URLs: the URL userinfo rule handles the password part
}

# qualifiers that make "<q> key" a strong secret label
KEY_STRONG_PREV = {
    "api", "access", "secret", "private", "signing", "sign", "encryption", "encrypt", "master",
    "account", "client", "auth", "ssh", "license", "licence", "service", "app", "application",
    "webhook", "subscription", "storage", "shared", "admin", "deploy", "session", "crypto", "hmac",
    "jwt", "ingest", "ingestion", "write", "sas", "gpg", "pgp", "consumer", "developer", "dev",
    "server", "user", "root", "cipher", "aes", "rsa", "ecdsa", "ed25519", "decryption", "primary_access",
    "openai", "anthropic", "wandb", "hf", "huggingface", "ngc", "nvidia", "mistral", "cohere",
    "groq", "gemini", "google", "azure", "stripe", "sendgrid", "mailgun", "twilio", "slack",
    "github", "gitlab", "comet", "neptune", "clearml", "mlflow", "pinecone", "langsmith",
    "langchain", "tavily", "serpapi", "replicate", "together", "fireworks", "deepseek", "xai",
}
# qualifiers that make "<q> key" NOT a secret (identifiers, selectors, schema words)
_KEY_NOT_PREV = {
    "public", "primary", "foreign", "sort", "cache", "partition", "label", "node", "group",
    "shard", "routing", "idempotency", "dedup", "dedupe", "object", "bucket", "map", "dict",
    "lookup", "hash", "index", "row", "column", "config", "configmap", "tag", "selector",
    "topology", "metric", "metrics", "taint", "toleration", "match", "field", "sharding",
    "composite", "unique", "secondary", "natural", "surrogate", "json", "yaml", "dataset",
    "data", "feature", "input", "output", "target", "result", "state", "checkpoint", "ref",
}
# words that, if last, say "this is about a secret but is not the secret itself"
_NOT_SECRET_LAST = {
    "file", "files", "path", "paths", "dir", "directory", "name", "names", "ref", "refs", "id",
    "ids", "type", "types", "expiry", "expires", "expiration", "exp", "ttl", "lifetime", "length",
    "len", "size", "count", "url", "uri", "endpoint", "host", "version", "format", "mode",
    "policy", "algorithm", "alg", "kind", "enabled", "enable", "disabled", "required", "header",
    "field", "hash", "env", "prefix", "suffix", "label", "source", "timeout", "interval",
    "provider", "scope", "scopes", "config", "template", "mount", "volume", "store", "role",
    "user", "username", "method", "location", "uid", "sha", "sha256", "digest", "at", "time",
    "timestamp", "created", "updated", "rotation", "hint", "usage", "limit", "limits", "max",
    "min", "budget", "rate", "ratio", "index", "idx", "position", "pos", "str", "strategy",
    "count", "number", "num", "status", "state", "valid", "validity", "check", "checks",
    "manager", "mgr", "client", "server", "service", "handler", "store", "vault", "backend",
    "selector",
    "request", "response", "error", "errors", "required", "missing", "present", "set",
    "generator", "encoder", "decoder", "parser", "reader", "writer", "dim", "dims",
    "embedding", "embeddings", "logits", "loss", "weight", "weights", "prob", "probs",
    "secretref", "keyref", "namespace",
}
# first/previous words that make "<w> token(s)" an ML/pagination term, not a credential
_TOKEN_NOT_PREV = {
    "pad", "eos", "bos", "unk", "mask", "cls", "sep", "max", "num", "min", "total", "input",
    "output", "prompt", "completion", "special", "new", "start", "end", "next", "page",
    "continue", "continuation", "cancel", "cancellation", "image", "vision", "audio", "text",
    "first", "last", "stop", "eot", "sot", "additional", "added", "decoder", "encoder",
    "pagination", "sync", "resume", "continuation", "bpe", "word", "sentence", "cached",
    "reasoning", "generated", "generation", "context", "per", "avg", "mean", "padding", "im",
    "fim", "tool", "user", "assistant", "system", "role", "chat", "bot", "eom", "eof",
    "csrf_exempt",
}
_WEAK_LAST = {
    "key": "key",
    "keys": "key",
    "auth": "auth",
    "signature": "signature",
    "sig": "signature",
    "pat": "token",
    "session": "session",
    "hmac": "signature",
    "salt": "secret",
    "nonce": None,
}


_ENCODING_SUFFIX = {"b64", "base64", "hex", "enc", "encoded", "value", "val", "raw", "plain", "plaintext"}


def split_words(name: str) -> list[str]:
    """``DB_PASSWORD`` → ['db','password']; ``clientSecret`` → ['client','secret']; ``--api-key`` → ['api','key']."""
    s = name
    if s != s.lower():  # both camel-case rules need an upper-case letter
        s = _CAMEL_2.sub(r"\1_\2", s)
        s = _CAMEL_1.sub(r"\1_\2", s)
    return [w for w in _SPLIT.split(s.lower()) if w]


@functools.lru_cache(maxsize=4096)
def classify_name(name: str) -> tuple[str | None, str]:
    """Return (strength, kind): strength is STRONG, WEAK or None."""
    words = split_words(name)
    while len(words) > 1 and words[-1] in _ENCODING_SUFFIX:
        words = words[:-1]  # PASSWORD_B64, SECRET_VALUE, TOKEN_BASE64
    if not words:
        return None, ""
    # glue common compounds written as one word or split: api key, access key, secret key
    last = words[-1]
    prev = words[-2] if len(words) >= 2 else ""
    joined = "".join(words)

    if joined == "privatekeyid":
        # GCP service-account JSON: the id of the account's key (with the client email it names the key)
        return STRONG, "private_key_id"
    if joined in ("clientkeydata", "clientkey"):
        # kubeconfig client-key-data (base64 PEM private key)
        return STRONG, "private_key"
    if last == "data" and prev == "key" and len(words) >= 3 and words[-3] in ("client", "private", "tls"):
        return STRONG, "private_key"
    if last in _NOT_SECRET_LAST:
        return None, ""
    if joined in ("awssecretaccesskey", "secretaccesskey", "awssecretkey"):
        return STRONG, "aws_secret_key"
    if last == "key":
        if prev in KEY_STRONG_PREV or prev in ("secret",):
            kind = "private_key" if prev == "private" else ("ssh_key" if prev == "ssh" else "api_key")
            if "aws" in words and ("secret" in words or "access" in words) and prev in ("access", "secret"):
                kind = "aws_secret_key" if "secret" in words else "api_key"
            return STRONG, kind
        if prev in _KEY_NOT_PREV:
            return None, ""
        if prev in ("id",):  # e.g. "key id"
            return None, ""
        return WEAK, "key"
    if last in ("token", "tokens"):
        if last == "tokens":
            return None, ""
        if prev in _TOKEN_NOT_PREV:
            return None, ""
        return STRONG, "token"
    if last == "secret":
        # bare "secret" is often a Secret *name* (secretVolume: {secret: db-creds}); decided by value
        return (STRONG, "secret") if len(words) > 1 else (WEAK, "secret")
    if last in _STRONG_LAST:
        kind = _STRONG_LAST[last]
        if kind is None:
            return None, ""
        if last == "pass" and prev in ("by", "bypass", "first", "second", "single", "multi", "one", "two"):
            return None, ""
        return STRONG, kind
    if last in _WEAK_LAST:
        kind = _WEAK_LAST[last]
        if kind is None:
            return None, ""
        if last == "auth" and len(words) == 1:
            return WEAK, "auth"
        if last == "auth" and prev in ("basic", "proxy", "http", "registry", "docker"):
            return STRONG, "auth"
        return WEAK, kind
    # compounds written without separators: "apikey", "secretkey", "authtoken", "accesstoken" handled
    # above; "xapikey" / "hfapikey":
    for tail, kind in (("apikey", "api_key"), ("authtoken", "token"), ("accesstoken", "token"),
                       ("secretkey", "secret"), ("password", "password"), ("passwd", "password")):
        if last.endswith(tail) and len(last) > len(tail):
            return STRONG, kind
    return None, ""
