"""The Slack adapter: ``POST /v1/slack/commands`` (a slash command, e.g. ``/diagnose``) and ``POST
/v1/slack/events`` (the Events API: ``url_verification`` and ``app_mention``). Needs the ``slack`` extra (the
official ``slack_sdk``) and ``WD_SLACK_SIGNING_SECRET``; otherwise both answer 404 (with the setting to make).

Every request is verified before its body is read for anything else: ``X-Slack-Signature`` must be the v0
HMAC-SHA256 of ``v0:{X-Slack-Request-Timestamp}:{body}`` with the app's signing secret, and the timestamp within
5 minutes of now (``slack_sdk.signature.SignatureVerifier``): a replayed or forged request is 401, and nothing it
says is used.

What to diagnose is said as ``key=value`` words, each value checked with the CLI's rules (``build_request``)::

    /diagnose workload=<workload-uuid> [cluster=<cluster-uuid>]
    /diagnose name=train-42 project=ml-team [cluster=<cluster-uuid>] [intent=active] [lookback=3d]
    @workload-diagnose name=train-42 project=ml-team

``cluster`` defaults to ``WD_SLACK_CLUSTER_ID``. Slack expects an answer within 3 s, so the request is acknowledged
at once (a slash command with a private "diagnosing…" line) and the diagnosis runs in the background
(``agent.service.jobs``); its reply is Block Kit built from the same result object ``POST /v1/diagnoses``
returns (:func:`blocks`): to the command's ``response_url`` (in the channel), or to the mention's thread
(``chat.postMessage`` with ``WD_SLACK_BOT_TOKEN``). Slack requests carry no caller credential: they read within
the scope of the API token ``WD_SLACK_SCOPE`` names (all of Run:ai without auth, on loopback). Evidence is shown
as plain text (no mention, link or formatting it contains takes effect); a ``response_url`` is used only on
``hooks.slack.com`` (or the origin of ``WD_SLACK_API_URL``). An event Slack delivers again (a retry) is answered
once: its ``event_id`` is remembered for an hour in the integrations' store.
"""
from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse, Response

from workload_diagnose.agent.model.request import build_request, names_workload
from workload_diagnose.agent.model.result import DiagnosisResult
from workload_diagnose.agent.service import jobs
from workload_diagnose.agent.service.access import set_caller
from workload_diagnose.agent.service.auth import Principal, ScopeDenied
from workload_diagnose.agent.service.config import ServiceConfig
from workload_diagnose.agent.service.errors import one_line, status_and_detail
from workload_diagnose.agent.service.models import ErrorBody
from workload_diagnose.tools.runai import InvalidInput

ORDER = 50
log = logging.getLogger("workload_diagnose.service")
USAGE = ("usage: workload=WORKLOAD_ID, or name=NAME project=PROJECT; optional cluster=CLUSTER_ID, intent=active, "
         "lookback=3d")
KEYS = {"workload": "workload_id", "name": "workload_name", "project": "project", "cluster": "cluster_id",
        "intent": "intent", "lookback": "lookback"}
EVENTS = "slack-events"  # the records' namespace in agent.service.results
EVENT_TTL_MINUTES = 60
HOOKS = "https://hooks.slack.com"
_MENTION = re.compile(r"<[@!#][^>]{0,64}>")
_EVENT_ID = re.compile(r"^[A-Za-z0-9]{1,64}$")
_CHANNEL = re.compile(r"^[A-Z0-9]{1,32}$")
_TS = re.compile(r"^[0-9]{1,12}\.[0-9]{1,8}$")
RESPONSES = {401: {"model": ErrorBody, "description": "The Slack signature is missing, wrong or too old"},
             404: {"model": ErrorBody, "description": "Slack is not configured on this service"}}


def parse(text: str, default_cluster: str | None) -> Any:
    """The request a command's words make (``key=value``; a mention's ``<@U…>`` dropped); InvalidInput (one line,
    never echoing a value) when they do not name one workload."""
    fields: dict[str, str] = {}
    for word in _MENTION.sub(" ", text).split():
        key, eq, value = word.partition("=")
        if not eq or key.lower() not in KEYS or not value:
            raise InvalidInput(f"not understood: words are key=value ({', '.join(KEYS)}). {USAGE}")
        fields[KEYS[key.lower()]] = value
    if not names_workload(fields.get("workload_id"), fields.get("workload_name"), fields.get("project")):
        raise InvalidInput(f"which workload? {USAGE}")
    fields.setdefault("cluster_id", default_cluster or "")
    if not fields["cluster_id"]:
        raise InvalidInput(f"which cluster? add cluster=CLUSTER_ID. {USAGE}")
    for key, field in KEYS.items():  # which word is wrong, by the CLI's rule for that one field
        if field in fields:
            try:
                build_request(**{field: fields[field]})
            except InvalidInput:
                raise InvalidInput(f"{key}= is not valid here. {USAGE}") from None
    try:
        return build_request(**fields)
    except InvalidInput:
        raise InvalidInput(f"give workload=ID, or name= and project=, not both. {USAGE}") from None


def _escape(text: str) -> str:
    """Slack's mrkdwn escaping: no ``<…>`` link, mention or command, no entity."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cut(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def blocks(result: DiagnosisResult) -> list[dict]:
    """The reply in Block Kit, from the ``failed --json`` result object: a header (workload and verdict), the
    verdict's fields, the cited evidence, the next steps or the question, the limitations. Text that came from
    evidence is plain text (never mrkdwn); values in mrkdwn fields are escaped."""
    from slack_sdk.models.blocks import (ContextBlock, DividerBlock, HeaderBlock, MarkdownTextObject,
                                         PlainTextObject, SectionBlock)

    w = result.workload
    out: list[Any] = [HeaderBlock(text=PlainTextObject(text=fallback(result)))]
    facts = [("Outcome", result.outcome), ("Category", result.category), ("Route", result.route),
             ("Project", w.project if w else None), ("Phase", w.phase if w else None),
             ("Cluster", w.cluster_id if w else None)]
    if result.recurrence is not None:
        facts.append(("Recurrence", f"{result.recurrence.count} in {result.recurrence.lookback}"))
    out.append(SectionBlock(fields=[MarkdownTextObject(text=f"*{k}*\n{_escape(_cut(v, 200))}")
                                    for k, v in facts if v][:10]))
    if result.evidence:
        lines = [f"• {_cut(e.text, 300)} ({e.source})" for e in result.evidence[:8]]
        if len(result.evidence) > 8:
            lines.append(f"… and {len(result.evidence) - 8} more in the report")
        out += [DividerBlock(), SectionBlock(text=PlainTextObject(text="Evidence\n" + "\n".join(lines), emoji=False))]
    if result.question:
        out.append(SectionBlock(text=PlainTextObject(text=_cut(result.question, 2900), emoji=False)))
    if result.recommendations:
        steps = "\n".join(f"• {_cut(r, 400)}" for r in result.recommendations[:4])
        out.append(SectionBlock(text=PlainTextObject(text="Next\n" + steps, emoji=False)))
    notes = [PlainTextObject(text=_cut(f"Limitation: {x}", 300), emoji=False) for x in result.limitations[:3]]
    notes.append(PlainTextObject(text=f"Read-only diagnosis by workload-diagnose, {len(result.tool_calls)} reads",
                                 emoji=False))
    out.append(ContextBlock(elements=notes[:10]))
    return [b.to_dict() for b in out]


def fallback(result: DiagnosisResult) -> str:
    """The workload and its verdict in one line: the header, and the notification text beside the blocks."""
    w = result.workload
    who = (w.name or w.id) if w is not None else None
    verdict = result.category or (f"routed: {result.route}" if result.route else result.outcome.replace("_", " "))
    return _cut(f"{who}: {verdict}" if who else verdict, 150)


def _ready(config: ServiceConfig) -> None:
    if not config.slack_signing_secret:
        raise HTTPException(404, "Slack is not configured on this service (WD_SLACK_SIGNING_SECRET)")


def _verified(config: ServiceConfig, request: Request, body: bytes) -> None:
    from slack_sdk.signature import SignatureVerifier

    ts, sig = request.headers.get("x-slack-request-timestamp"), request.headers.get("x-slack-signature")
    try:
        ok = SignatureVerifier(config.slack_signing_secret or "").is_valid(body=body, timestamp=ts, signature=sig)
    except (ValueError, TypeError):  # a timestamp that is not a number
        ok = False
    if not ok:
        raise HTTPException(401, "the Slack request signature is missing, wrong or too old")


def _principal(config: ServiceConfig, request: Request) -> Principal:
    """Who a Slack request reads as: the scope of the API token WD_SLACK_SCOPE names (none without auth)."""
    token = next((t for t in config.tokens if t.name == config.slack_scope), None)
    principal = Principal("tokens", token=token) if token is not None else Principal("none")
    set_caller(request.scope, f"slack:{principal.name}")
    return principal


def _hook_allowed(config: ServiceConfig, url: str) -> bool:
    def origin(u: str) -> str:
        p = urlsplit(u)
        return f"{p.scheme}://{p.netloc}".lower()

    return origin(url) in (HOOKS, origin(config.slack_api_url))


async def _diagnosis(svc: Any, principal: Principal, req: Any) -> tuple[list[dict] | None, str]:
    """(blocks, text) of the diagnosis, or (None, a one-line error) when it failed."""
    try:
        res = await jobs.diagnose(svc.runner, principal, req)
    except Exception as e:  # noqa: BLE001  (the product's failures, in the words the HTTP API uses)
        return None, f"The diagnosis failed: {one_line(status_and_detail(e)[1], 300)}"
    return blocks(res), fallback(res)


def build(caller: Callable[..., Any]) -> APIRouter:
    router = APIRouter(tags=["integrations"])

    @router.post("/v1/slack/commands", summary="A Slack slash command (form-encoded, signed by Slack)",
                 responses=RESPONSES)
    async def command(request: Request) -> Any:
        svc = request.app.state.service
        config: ServiceConfig = svc.config
        _ready(config)
        body = await request.body()
        _verified(config, request, body)
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace"), max_num_fields=50).items()}
        principal = _principal(config, request)
        text = form.get("text", "").strip()
        if text.lower() in ("", "help"):
            return _ephemeral(USAGE)
        try:
            req = parse(text, config.slack_cluster_id)
            principal.check_request(req)
        except InvalidInput as e:
            return _ephemeral(str(e))
        except ScopeDenied as e:
            return _ephemeral(str(e))
        url = form.get("response_url", "")
        if not _hook_allowed(config, url):
            return _ephemeral("this command came without a Slack response URL to answer on")

        async def job() -> None:
            got, text_ = await _diagnosis(svc, principal, req)
            await asyncio.to_thread(_respond, url, got, text_)

        if not svc.jobs.submit(job):
            return _ephemeral("too many diagnoses are waiting: try again in a minute")
        return _ephemeral("Diagnosing (read-only)… the answer follows here.")

    @router.post("/v1/slack/events", summary="Slack's Events API: url_verification and app_mention (signed by "
                                             "Slack)", responses=RESPONSES)
    async def events(request: Request) -> Any:
        svc = request.app.state.service
        config: ServiceConfig = svc.config
        _ready(config)
        body = await request.body()
        _verified(config, request, body)
        principal = _principal(config, request)
        try:
            doc = json.loads(body)
        except ValueError:
            raise HTTPException(400, "the Slack event is not JSON") from None
        if not isinstance(doc, dict):
            raise HTTPException(400, "the Slack event is not a JSON object")
        if doc.get("type") == "url_verification":
            return JSONResponse({"challenge": str(doc.get("challenge", ""))[:200]})
        event = doc.get("event") if doc.get("type") == "event_callback" else None
        if not isinstance(event, dict) or event.get("type") != "app_mention":
            return Response(status_code=200)
        event_id, channel = str(doc.get("event_id", "")), str(event.get("channel", ""))
        ts = str(event.get("thread_ts") or event.get("ts") or "")
        if not (_EVENT_ID.match(event_id) and _CHANNEL.match(channel) and _TS.match(ts)):
            return Response(status_code=200)
        if await asyncio.to_thread(svc.results.get, EVENTS, "slack", event_id) is not None:
            return Response(status_code=200)  # a delivery Slack repeated: answered once
        await asyncio.to_thread(svc.results.put, EVENTS, "slack", event_id, {"channel": channel},
                                EVENT_TTL_MINUTES)
        try:
            req = parse(str(event.get("text", ""))[:2000], config.slack_cluster_id)
            principal.check_request(req)
        except (InvalidInput, ScopeDenied) as e:
            said = str(e)
            svc.jobs.submit(lambda: asyncio.to_thread(_post, config, channel, ts, None, said))
            return Response(status_code=200)

        async def job() -> None:
            got, text_ = await _diagnosis(svc, principal, req)
            await asyncio.to_thread(_post, config, channel, ts, got, text_)

        svc.jobs.submit(job)
        return Response(status_code=200)

    return router


def _ephemeral(text: str) -> JSONResponse:
    return JSONResponse({"response_type": "ephemeral", "text": text})


def _respond(url: str, got: list[dict] | None, text: str) -> None:
    """The command's answer, through its response_url (in the channel; an error only to its author)."""
    from slack_sdk.webhook import WebhookClient

    try:
        r = WebhookClient(url, timeout=10).send(text=text, blocks=got, response_type="in_channel" if got else
                                                "ephemeral", replace_original=False)
        if r.status_code >= 300:
            log.warning("slack: the response URL answered HTTP %d", r.status_code)
    except Exception as e:  # noqa: BLE001  (Slack unreachable: logged, in one line, without the URL)
        log.warning("slack: the response URL could not be reached (%s)", type(e).__name__)


def _post(config: ServiceConfig, channel: str, ts: str, got: list[dict] | None, text: str) -> None:
    """A mention's answer, in its thread (chat.postMessage with the bot token)."""
    if not config.slack_bot_token:
        log.warning("slack: an app mention cannot be answered: WD_SLACK_BOT_TOKEN is not set")
        return
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    client = WebClient(token=config.slack_bot_token, base_url=config.slack_api_url, timeout=10)
    try:
        client.chat_postMessage(channel=channel, thread_ts=ts, text=text, blocks=got)
    except SlackApiError as e:
        log.warning("slack: chat.postMessage failed: %s", one_line(e.response.get("error", "error"), 100))
    except Exception as e:  # noqa: BLE001
        log.warning("slack: chat.postMessage could not be sent (%s)", type(e).__name__)
