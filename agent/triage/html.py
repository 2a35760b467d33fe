"""The triage as ONE self-contained HTML page: category chart (inline SVG), patterns, actions, the workload table.

Nothing is loaded from anywhere: no script, no external style, font or image; a Content-Security-Policy meta
(``default-src 'none'``) makes a browser refuse any that slipped in. Evidence is hostile text (it comes from
workloads and their logs), so every string is escaped with :func:`html.escape` (quotes included) exactly once, in
:func:`_e`; nothing else writes text into the page.
"""
from __future__ import annotations

from html import escape

from workload_diagnose.agent.triage.report import TriageResult

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
_COLORS = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f")
_STYLE = """body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}table{border-collapse:collapse;width:100%}
th,td{border:1px solid #ccc;padding:4px 6px;text-align:left;vertical-align:top}th{background:#f3f3f3}
.muted{color:#666}.ev{font-size:12px;color:#444}code{font-size:12px}"""


def _e(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


def _chart(counts: dict[str, int], routed: dict[str, int]) -> str:
    bars = list(counts.items()) + [(f"routed: {k}", v) for k, v in routed.items()]
    if not bars:
        return '<p class="muted">No failed workload in the window.</p>'
    top = max(v for _, v in bars)
    row_h, label_w, width = 24, 260, 420
    parts = [f'<svg role="img" aria-label="workloads per category" '
             f'width="{label_w + width + 60}" height="{row_h * len(bars) + 8}">']
    for i, (name, n) in enumerate(bars):
        y = 4 + i * row_h
        w = max(2, round(width * n / top))
        parts.append(f'<text x="{label_w - 6}" y="{y + 16}" text-anchor="end" font-size="12">{_e(name)}</text>'
                     f'<rect x="{label_w}" y="{y + 3}" width="{w}" height="{row_h - 6}" '
                     f'fill="{_COLORS[i % len(_COLORS)]}"><title>{_e(name)}: {n}</title></rect>'
                     f'<text x="{label_w + w + 6}" y="{y + 16}" font-size="12">{n}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _table(head: list[str], rows: list[list[str]]) -> str:
    """``rows`` hold already escaped cells."""
    out = ["<table><thead><tr>", *(f"<th>{_e(h)}</th>" for h in head), "</tr></thead><tbody>"]
    out += ["<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows]
    return "".join(out) + "</tbody></table>"


def render_html(t: TriageResult) -> str:
    w = t.window
    body = [f"<h1>Fleet triage of cluster <code>{_e(t.cluster_id)}</code></h1>",
            f'<p class="muted">{len(t.workloads)} failed workload(s), {_e(w.get("since"))} to {_e(w.get("until"))} '
            f'({_e(w.get("duration"))}). Read-only; every verdict from the same procedure as '
            "<code>workload-diagnose failed</code>.</p>",
            "<h2>Categories</h2>", _chart(t.counts, t.routed)]
    body.append("<h2>Patterns</h2>")
    if t.clusters:
        body.append(_table(["pattern", "workloads", "categories", "evidence"], [
            [f"<b>{_e(c['kind'])}</b> {_e(c['key'])}", str(len(c["workloads"])),
             _e(", ".join(f"{k}: {v}" for k, v in c["categories"].items())),
             "<br>".join(f'<span class="ev">{_e(e["text"])} <i>({_e(e["source"])})</i></span>'
                         for e in c.get("evidence", []))] for c in t.clusters]))
    else:
        body.append('<p class="muted">No cause is shared by two or more workloads.</p>')
    body.append("<h2>Top actions</h2>")
    body.append(_table(["fixes", "action", "category"], [[str(a["fixes"]), _e(a["action"]), _e(a["category"])]
                                                         for a in t.actions[:20]]) if t.actions
                else '<p class="muted">None.</p>')
    body.append("<h2>Workloads</h2>")
    body.append(_table(["workload", "project", "phase", "verdict", "recurrence", "headline"], [
        [f"{_e(v.workload.name)}<br><code>{_e(v.workload.id)}</code>", _e(v.workload.project), _e(v.workload.phase),
         _e(v.category if v.outcome == "diagnosed" else f"{v.outcome}: {v.route}"),
         _e(f"{v.recurrence.count} in {v.recurrence.lookback}" if v.recurrence else "n/a"),
         f'<span class="ev">{_e(v.headline)}</span>'] for v in t.workloads]))
    if t.limitations:
        body.append("<h2>Limitations</h2><ul>" + "".join(f"<li>{_e(x)}</li>" for x in t.limitations) + "</ul>")
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">'
            '<meta name="referrer" content="no-referrer">'
            f"<title>Triage {_e(t.cluster_id)}</title><style>{_STYLE}</style></head><body>"
            + "".join(body) + "</body></html>\n")
