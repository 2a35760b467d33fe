"""The triage as ONE self-contained HTML page: category chart (inline SVG), patterns, grouped actions, and a sortable
table of the workloads, each coloured as its chart bar, with the ``failed`` command that explains it in full (and a
link to the Run:ai UI when its URL template is configured).

Nothing is loaded from anywhere: no external script, style, font or image. A Content-Security-Policy meta
(``default-src 'none'``) makes a browser refuse any that slipped in; the one inline script (the column sort) runs
only because the policy names its SHA-256, so a script injected anywhere else would not. Evidence is hostile text
(it comes from workloads and their logs), so every string is escaped with :func:`html.escape` (quotes included)
exactly once, in :func:`_e`; nothing else writes text into the page. A UI link is built from a template the
operator configured (``http(s)`` only) with URL-quoted identifiers, never from evidence.
"""
from __future__ import annotations

import base64
import hashlib
from html import escape
from urllib.parse import quote, urlsplit

from workload_diagnose.agent.model import phases
from workload_diagnose.agent.model.lines import decisive
from workload_diagnose.agent.taxonomy import NAMES
from workload_diagnose.agent.triage.report import (TriageResult, WorkloadVerdict, by_category, evidence_words,
                                                   group_actions, verdict_text)
from workload_diagnose.tools.runai import InvalidInput

# sorts the table whose header button was pressed: by data-sort (numbers) or the cell's text, toggling the order;
# marks each table it serves (data-sort-ready: a test sees that the policy let it run)
SORT_SCRIPT = """document.querySelectorAll('table.sortable').forEach(function(t){t.setAttribute('data-sort-ready','1');
t.querySelectorAll('th button').forEach(function(b,i){b.addEventListener('click',function(){
var th=b.parentNode,asc=th.getAttribute('aria-sort')!=='ascending',body=t.tBodies[0];
t.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});
th.setAttribute('aria-sort',asc?'ascending':'descending');
var key=function(r){var c=r.cells[i];return c.hasAttribute('data-sort')?c.getAttribute('data-sort'):c.textContent;};
var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){var x=key(a),y=key(b),nx=parseFloat(x),ny=parseFloat(y);
var d=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);return asc?d:-d;});
rows.forEach(function(r){body.appendChild(r);});});});});"""
_SCRIPT_HASH = base64.b64encode(hashlib.sha256(SORT_SCRIPT.encode()).digest()).decode()
CSP = (f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-{_SCRIPT_HASH}'; "
       "base-uri 'none'; form-action 'none'")
# one colour per category, in the taxonomy's order (the same in every triage); a route is grey
_COLORS = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
           "#86bcb6", "#d37295", "#a0cbe8")
_ROUTE_COLOR = "#bab0ac"
_STYLE = """body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}table{border-collapse:collapse;width:100%}
th,td{border:1px solid #ccc;padding:4px 6px;text-align:left;vertical-align:top}th{background:#f3f3f3}
th button{font:inherit;font-weight:bold;border:0;background:none;padding:0;cursor:pointer;color:inherit}
th[aria-sort=ascending] button::after{content:" \\25B2"}th[aria-sort=descending] button::after{content:" \\25BC"}
.muted{color:#666}.ev{font-size:12px;color:#444}code{font-size:12px}.nowrap{white-space:nowrap}
.cat{display:inline-block;white-space:nowrap;padding:1px 6px;border-radius:3px;color:#111;font-size:12px}
td.verdict{border-left:6px solid var(--c)}details summary{cursor:pointer}details code{white-space:nowrap}
details ul{margin:4px 0 0 18px;padding:0}"""
HEADLINE_CHARS = 220  # a headline longer than this is cut to its decisive part (the whole text is its tooltip)


def _e(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


def colour(key: str | None) -> str:
    """The chart's colour of a category (stable: by its place in the taxonomy); grey for a route."""
    if key in NAMES:
        return _COLORS[NAMES.index(key) % len(_COLORS)]
    return _ROUTE_COLOR


def ui_link_template(value: str | None) -> str | None:
    """A Run:ai UI URL template (``--ui-url`` / ``WD_RUNAI_UI_URL``) checked: http(s), with at least one of
    ``{workload_id}``, ``{cluster_id}``, ``{project}`` and no other placeholder; None when not configured."""
    if not value or not value.strip():
        return None
    url = value.strip()
    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
        raise InvalidInput(f"the Run:ai UI URL {url[:120]!r} is not an http(s) URL")
    try:
        url.format(workload_id="w", cluster_id="c", project="p")
    except (KeyError, IndexError, ValueError) as e:
        raise InvalidInput(f"the Run:ai UI URL may only name {{workload_id}}, {{cluster_id}} and {{project}} "
                           f"({type(e).__name__}: {e})") from None
    if not any(f"{{{k}}}" in url for k in ("workload_id", "cluster_id", "project")):
        raise InvalidInput("the Run:ai UI URL names none of {workload_id}, {cluster_id}, {project}")
    return url


def _chart(counts: dict[str, int], routed: dict[str, int]) -> str:
    bars = [(k, k, v) for k, v in counts.items()] + [(f"routed: {k}", None, v) for k, v in routed.items()]
    if not bars:
        return '<p class="muted">No failed workload in the window.</p>'
    top = max(v for _, _, v in bars)
    row_h, label_w, width = 24, 260, 420
    parts = [f'<svg role="img" aria-label="workloads per category" '
             f'width="{label_w + width + 60}" height="{row_h * len(bars) + 8}">']
    for i, (name, key, n) in enumerate(bars):
        y = 4 + i * row_h
        w = max(2, round(width * n / top))
        parts.append(f'<text x="{label_w - 6}" y="{y + 16}" text-anchor="end" font-size="12">{_e(name)}</text>'
                     f'<rect x="{label_w}" y="{y + 3}" width="{w}" height="{row_h - 6}" '
                     f'fill="{colour(key)}"><title>{_e(name)}: {n}</title></rect>'
                     f'<text x="{label_w + w + 6}" y="{y + 16}" font-size="12">{n}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _table(head: list[str], rows: list[list[str]], *, sortable: bool = False) -> str:
    """``rows`` hold already escaped cells (a cell may be a whole ``<td ...>...</td>``)."""
    th = (f'<th><button type="button">{_e(h)}</button></th>' if sortable else f"<th>{_e(h)}</th>" for h in head)
    cls = ' class="sortable"' if sortable else ""
    out = [f"<table{cls}><thead><tr>", *th, "</tr></thead><tbody>"]
    out += ["<tr>" + "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in r) + "</tr>" for r in rows]
    return "".join(out) + "</tbody></table>"


def _badge(v: WorkloadVerdict) -> str:
    key = v.category if v.outcome == "diagnosed" else None
    return (f'<td class="verdict" style="--c:{colour(key)}"><span class="cat" style="background:{colour(key)}">'
            f"{_e(verdict_text(v))}</span></td>")


def failed_command(t: TriageResult, v: WorkloadVerdict) -> str:
    """The ``failed`` command that gives this workload's whole report (an active candidate with its intent)."""
    active = " --intent active" if phases.norm(v.workload.phase) in phases.ACTIVE else ""
    return f"workload-diagnose failed --cluster-id {t.cluster_id} --workload-id {v.workload.id}{active}"


def _diagnose_cell(t: TriageResult, v: WorkloadVerdict, ui_url: str | None) -> str:
    if not v.workload.id:
        return '<span class="muted">no id</span>'
    out = [f"<details><summary>failed</summary><code>{_e(failed_command(t, v))}</code></details>"]
    if ui_url:
        href = ui_url.format(workload_id=quote(v.workload.id, safe=""), cluster_id=quote(t.cluster_id, safe=""),
                             project=quote(v.workload.project or "", safe=""))
        out.append(f'<a href="{_e(href)}" rel="noopener noreferrer" target="_blank">Run:ai UI</a>')
    return "".join(out)


def _actions(t: TriageResult) -> str:
    if not t.actions:
        return '<p class="muted">None.</p>'
    rows = []
    for g in group_actions(t.actions)[:20]:
        cell = _e(g["action"])
        if len(g["variants"]) > 1:
            items = "".join(f"<li>[{a['fixes']}] {_e(a['action'])}</li>" for a in g["variants"])
            cell = (f"<details><summary>{_e(g['action'])} <i>({len(g['variants'])} similar actions)</i></summary>"
                    f"<ul>{items}</ul></details>")
        cats = g["category"].split(",")
        rows.append([f'<td data-sort="{g["fixes"]}">{g["fixes"]}</td>', cell,
                     " ".join(f'<span class="cat" style="background:{colour(c)}">{_e(c)}</span>' for c in cats)])
    return _table(["fixes", "action", "category"], rows, sortable=True)


def render_html(t: TriageResult, ui_url: str | None = None) -> str:
    """The page; ``ui_url``: a checked template (``ui_link_template``) to link each workload to the Run:ai UI."""
    w = t.window
    body = [f"<h1>Fleet triage of cluster <code>{_e(t.cluster_id)}</code></h1>",
            f'<p class="muted">{len(t.workloads)} failed workload(s), {_e(w.get("since"))} to {_e(w.get("until"))} '
            f'({_e(w.get("duration"))}). Read-only; every verdict from the same procedure as '
            "<code>workload-diagnose failed</code>: open <i>failed</i> in a row for its command. Click a column "
            "heading to sort.</p>",
            "<h2>Categories</h2>", _chart(t.counts, t.routed)]
    body.append("<h2>Patterns</h2>")
    if t.clusters:
        body.append(_table(["pattern", "workloads", "categories", "evidence"], [
            [f"<b>{_e(c['kind'])}</b> {_e(c['key'])}", str(len(c["workloads"])),
             " ".join(f'<span class="cat" style="background:{colour(k)}">{_e(k)}: {v}</span>'
                      for k, v in c["categories"].items()),
             "<br>".join(f'<span class="ev" title="{_e(e["text"])}">{_e(decisive(e["text"], HEADLINE_CHARS))} '
                         f'<i>({_e(e["source"])})</i></span>' for e in c.get("evidence", []))] for c in t.clusters]))
    else:
        body.append('<p class="muted">No cause is shared by two or more workloads.</p>')
    body += ["<h2>Top actions</h2>", _actions(t), "<h2>Workloads</h2>"]
    rows = []
    for v in by_category(t):
        words = evidence_words(v.headline) or "-"
        rows.append([f'<td class="nowrap">{_e(v.workload.name or v.workload.id)}</td>',
                     f'<td class="nowrap">{_e(v.workload.project)}</td>', _e(v.workload.phase), _badge(v),
                     f'<td data-sort="{v.recurrence.count if v.recurrence else -1}">'
                     f'{_e(f"{v.recurrence.count} in {v.recurrence.lookback}" if v.recurrence else "n/a")}</td>',
                     f'<span class="ev" title="{_e(words)}">{_e(decisive(words, HEADLINE_CHARS))}</span>',
                     _diagnose_cell(t, v, ui_url)])
    body.append(_table(["workload", "project", "phase", "verdict", "recurrence", "headline", "diagnose"], rows,
                       sortable=True))
    if t.limitations:
        body.append("<h2>Limitations</h2><ul>" + "".join(f"<li>{_e(x)}</li>" for x in t.limitations) + "</ul>")
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">'
            '<meta name="referrer" content="no-referrer">'
            f"<title>Triage {_e(t.cluster_id)}</title><style>{_STYLE}</style></head><body>"
            + "".join(body) + f"<script>{SORT_SCRIPT}</script></body></html>\n")
