"""Scoreboard outputs: ``scoreboard.json`` (deterministic), ``timings.json``, ``junit.xml`` (for CI) and a
self-contained ``report.html`` (inline CSS and SVG; no script, no external resource)."""
from __future__ import annotations

import html
import json
import xml.etree.ElementTree as ET
from pathlib import Path

from workload_diagnose.evals.scoring import quantile


def write_outputs(out: Path, board: dict, timings: dict) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "scoreboard.json", out / "timings.json", out / "junit.xml", out / "report.html"]
    paths[0].write_text(scoreboard_json(board))
    paths[1].write_text(json.dumps(timings, indent=2, sort_keys=True) + "\n")
    paths[2].write_bytes(junit_xml(board, timings))
    paths[3].write_text(html_report(board, timings))
    return paths


def scoreboard_json(board: dict) -> str:
    return json.dumps(board, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------------------------------------ JUnit
def junit_xml(board: dict, timings: dict) -> bytes:
    rt = timings.get("replay", {})
    root = ET.Element("testsuites", name="workload-diagnose eval")
    by_suite: dict[str, list[dict]] = {}
    for r in board["results"]:
        by_suite.setdefault(r["suite"] or "(none)", []).append(r)
    for suite, recs in sorted(by_suite.items()):
        ts = ET.SubElement(root, "testsuite", name=f"replay.{suite}")
        for r in recs:
            name = r["id"].split("/", 1)[-1]
            tc = ET.SubElement(ts, "testcase", classname=f"evals.replay.{suite}", name=name,
                               time=f"{rt.get(r['id'], 0) / 1000:.3f}")
            if r["xfail"]:
                ET.SubElement(tc, "skipped", message=f"known defect: {r['known_defect']}")
            elif not r["pass"]:
                f = ET.SubElement(tc, "failure", type="scenario", message=r["problems"][0][:300])
                f.text = "\n".join(r["problems"])
            elif r["xpass"]:
                ET.SubElement(tc, "system-out").text = f"passes although marked known_defect: {r['known_defect']}"
        _counts(ts)
    if board["skipped"]:
        ts = ET.SubElement(root, "testsuite", name="replay.skipped")
        for s in board["skipped"]:
            tc = ET.SubElement(ts, "testcase", classname="evals.replay.skipped", name=s["id"], time="0.000")
            ET.SubElement(tc, "skipped", message=s["reason"])
        _counts(ts)
    f = board.get("faults")
    if f:
        ft = timings.get("faults", {}).get("runs", {})
        ts = ET.SubElement(root, "testsuite", name="fault-matrix")
        fails: dict[str, list[dict]] = {}
        for x in f["failures"]:
            fails.setdefault(x["id"], []).append(x)
        for sid, p in f["per_scenario"].items():
            secs = sum(v for k, v in ft.items() if k.split("|", 1)[0] == sid) / 1000
            tc = ET.SubElement(ts, "testcase", classname="workload_diagnose.evals.faults", name=sid, time=f"{secs:.3f}")
            if sid in fails:
                msgs = [f"{x['endpoint']}/{x['variant']}: {'; '.join(x['problems'])}" for x in fails[sid]]
                el = ET.SubElement(tc, "failure", type="fault-matrix",
                                   message=f"{len(msgs)} of {p['runs']} fault runs failed"[:300])
                el.text = "\n".join(msgs)
            else:
                ET.SubElement(tc, "system-out").text = (f"{p['passed']}/{p['runs']} fault runs passed; "
                                                        f"{p['fatal_expected']} fatal by design; {p.get('xfail', 0)} "
                                                        "show a known defect (xfail)")
        _counts(ts)
    if board.get("regressions"):
        ts = ET.SubElement(root, "testsuite", name="baseline")
        tc = ET.SubElement(ts, "testcase", classname="evals.baseline", name="no-regression", time="0.000")
        el = ET.SubElement(tc, "failure", type="regression", message=f"{len(board['regressions'])} regression(s)")
        el.text = "\n".join(board["regressions"])
        _counts(ts)
    for attr in ("tests", "failures", "errors", "skipped"):
        root.set(attr, str(sum(int(ts.get(attr, "0")) for ts in root)))
    root.set("time", f"{sum(float(ts.get('time', '0')) for ts in root):.3f}")
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8") + b"\n"


def _gates_html(g: dict, kpi) -> list[str]:
    """The release gates: one KPI each for the selection, then the per-suite table."""
    o, t = g["overall"], g["thresholds"]

    def r(x):
        return "n/a" if x is None else f"{x:.4f}"

    parts = ["<h2>Release gates</h2>",
             kpi(f"top-1 (≥ {t['top1']})", r(o["top1"]["ratio"]), (o["top1"]["ratio"] or 0) >= t["top1"]),
             kpi("evidence-link precision", r(o["link_precision"]["ratio"]),
                 o["link_precision"]["ratio"] in (None, 1.0)),
             kpi("abstention on undecidable", r(o["abstention"]["ratio"]), o["abstention"]["ratio"] in (None, 1.0)),
             kpi("groundless answers", o["groundless"]["count"], o["groundless"]["count"] == 0),
             kpi("writes", o["writes"]["count"], o["writes"]["count"] == 0),
             "<table><tr><th>suite</th><th>top-1</th><th>links found / cited</th><th>abstained / undecidable</th>"
             "<th>groundless</th><th>writes</th></tr>"]
    for s, f in list(g["suites"].items()) + [("overall", o)]:
        a, lp, ab = f["top1"], f["link_precision"], f["abstention"]
        parts.append(f"<tr><td>{_e(s)}</td><td class=\"num\">{a['correct']}/{a['total']}</td>"
                     f"<td class=\"num\">{lp['linked']}/{lp['cited']}</td><td class=\"num\">{ab['abstained']}/"
                     f"{ab['undecidable']}</td><td class=\"num\">{f['groundless']['count']}</td>"
                     f"<td class=\"num\">{f['writes']['count']}</td></tr>")
    parts.append("</table>")
    if g["missed"]:
        parts.append("<ul>" + "".join(f"<li class=\"bad\">{_e(x)}</li>" for x in g["missed"]) + "</ul>")
    return parts


def _counts(ts: ET.Element) -> None:
    cases = ts.findall("testcase")
    ts.set("tests", str(len(cases)))
    ts.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    ts.set("errors", "0")
    ts.set("skipped", str(sum(1 for c in cases if c.find("skipped") is not None)))
    ts.set("time", f"{sum(float(c.get('time', '0')) for c in cases):.3f}")


# ------------------------------------------------------------------------------------------------ HTML
_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1b1f24;max-width:1400px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
table{border-collapse:collapse;margin:6px 0} td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:left;
vertical-align:top} th{background:#f6f8fa} .ok{color:#1a7f37;font-weight:600} .bad{color:#cf222e;font-weight:600}
.warn{color:#9a6700;font-weight:600} .num{text-align:right;font-variant-numeric:tabular-nums} .small{font-size:12px;
color:#57606a} code{font-size:12px} .kpi{display:inline-block;border:1px solid #d0d7de;border-radius:6px;padding:8px 14px;
margin:4px 8px 4px 0} .kpi b{display:block;font-size:20px} details{margin:2px 0}
"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def html_report(board: dict, timings: dict) -> str:
    a = board["accuracy"]
    ok = board["ok"] and not board.get("regressions")
    rt = list(timings.get("replay", {}).values())

    def kpi(title, value, good=True):
        return f'<div class="kpi"><span class="small">{_e(title)}</span><b class="{"ok" if good else "bad"}">' \
               f"{_e(value)}</b></div>"

    def frac(x):
        return f"{x['correct']}/{x['total']}"

    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>workload-diagnose eval</title>"
             f"<style>{_CSS}</style></head><body>",
             f"<h1>workload-diagnose — evaluation report</h1><p class=\"small\">{board['scenarios']} scenarios · "
             f"selection {_e(', '.join(board['selection']))} · result: <span class=\"{'ok' if ok else 'bad'}\">"
             f"{'PASS' if ok else 'FAIL'}</span></p>",
             kpi("verdict accuracy", frac(a["verdict"]), a["verdict"]["correct"] == a["verdict"]["total"]),
             kpi("outcome", frac(a["outcome"]), a["outcome"]["correct"] == a["outcome"]["total"]),
             kpi("category", frac(a["category"]), a["category"]["correct"] == a["category"]["total"]),
             kpi("route", frac(a["route"]), a["route"]["correct"] == a["route"]["total"]),
             kpi("recurrence", frac(a["recurrence"]), a["recurrence"]["correct"] == a["recurrence"]["total"]),
             kpi("citation coverage", f"{board['citation_coverage']['cited']}/{board['citation_coverage']['total']}",
                 board["citation_coverage"]["cited"] == board["citation_coverage"]["total"]),
             kpi("invented values", board["invented_values"]["count"], board["invented_values"]["count"] == 0),
             kpi("secrets leaked", board["secrets_leaked"]["count"], board["secrets_leaked"]["count"] == 0),
             kpi("tool calls / minimum", f"{board['tool_calls']['observed']}/{board['tool_calls']['minimum']}",
                 not board["tool_calls"]["under_minimum"]),
             kpi("replay p50 / p95", f"{quantile(rt, .5):.0f} / {quantile(rt, .95):.0f} ms")]
    f = board.get("faults")
    if f:
        parts.append(kpi("fault runs passed", f"{f['passed']}/{f['runs']}", f["failed"] == 0))
    pk = board.get("llm_passk")
    if pk:
        parts.append(kpi(f"LLM Pass^{pk['k']} (phrasing × model)", f"{pk['passed']}/{pk['total']}", pk["ok"]))
    if board.get("gates"):
        parts += _gates_html(board["gates"], kpi)
    if board.get("regressions"):
        parts.append("<h2>Regressions against the baseline</h2><ul>" +
                     "".join(f"<li class=\"bad\">{_e(x)}</li>" for x in board["regressions"]) + "</ul>")
    parts.append("<h2>Confusion matrix</h2><p class=\"small\">Rows: expected verdict; columns: the diagnosis. "
                 "The diagonal is correct.</p>")
    parts.append(confusion_svg(board["confusion"]))
    parts.append("<h2>Suites</h2><table><tr><th>suite</th><th>scenarios</th><th>passed</th></tr>")
    per: dict[str, list[int]] = {}
    for r in board["results"]:
        c = per.setdefault(r["suite"], [0, 0])
        c[0] += 1
        c[1] += r["pass"] or r["xfail"]
    for s, (n, p) in sorted(per.items()):
        parts.append(f"<tr><td>{_e(s)}</td><td class=\"num\">{n}</td><td class=\"num {'ok' if p == n else 'bad'}\">"
                     f"{p}</td></tr>")
    parts.append("</table>")
    if board["xfail"] or board["xpass"] or board["unconfirmed"] or board["skipped"]:
        parts.append("<h2>Notes</h2><ul>")
        for x in board["xfail"]:
            parts.append(f"<li class=\"warn\">known defect (expected failure): {_e(x)}</li>")
        for x in board["xpass"]:
            parts.append(f"<li class=\"warn\">passes now — remove its known_defect marker: {_e(x)}</li>")
        for x in board["unconfirmed"]:
            parts.append(f"<li>captured verdict not yet confirmed by a human: {_e(x)}</li>")
        if board["skipped"]:
            parts.append(f"<li>{len(board['skipped'])} Tier-2 scenarios skipped (replayed by tests/k8s)</li>")
        parts.append("</ul>")
    t = board["tool_calls"]
    if t["over_minimum"] or t["under_minimum"]:
        parts.append("<h2>Tool calls against the skill's minimum</h2><ul>" +
                     "".join(f"<li class=\"bad\">below: {_e(x)}</li>" for x in t["under_minimum"]) +
                     "".join(f"<li>above: {_e(x)}</li>" for x in t["over_minimum"]) + "</ul>")
    if f:
        parts.append(fault_grid_html(f))
    parts.append("<h2>Scenarios</h2><table><tr><th>scenario</th><th>expected</th><th>diagnosis</th><th>recurrence"
                 "</th><th>calls / min</th><th>cited</th><th>faults</th><th>result</th></tr>")
    for r in board["results"]:
        e, g = r["expected"], r["got"]
        ev = f"{e['outcome']} · {e['category'] or e['route']}"
        gv = f"{g['outcome']} · {g['category'] or g['route']}"
        status = "ok" if r["pass"] else ("xfail" if r["xfail"] else "FAIL")
        cls = "ok" if r["pass"] else ("warn" if r["xfail"] else "bad")
        fr = r.get("faults") or {}
        faults = f"{fr.get('passed', 0)}/{fr.get('runs', 0)}" if fr else "—"
        tc = r["tool_calls"]
        detail = ""
        if r["problems"]:
            detail = "<details><summary>why</summary><ul>" + "".join(f"<li>{_e(p)}</li>" for p in r["problems"]) + \
                     "</ul></details>"
        parts.append(f"<tr><td><code>{_e(r['id'])}</code></td><td>{_e(ev)}</td><td>{_e(gv)}</td><td class=\"num\">"
                     f"{_e(g['recurrence'] if g['recurrence'] is not None else '—')}</td><td class=\"num\">"
                     f"{tc['observed']} / {tc['minimum'] if tc['minimum'] is not None else '—'}</td>"
                     f"<td class=\"num\">{r['citations'][0]}/{r['citations'][1]}</td><td class=\"num\">{faults}</td>"
                     f"<td class=\"{cls}\">{status}{detail}</td></tr>")
    parts.append("</table></body></html>\n")
    return "".join(parts)


def confusion_svg(conf: dict) -> str:
    labels, cols, m = conf["labels"], conf["columns"], conf["matrix"]
    rows = [i for i, row in enumerate(m) if any(row)]
    used_cols = sorted({j for i in rows for j, v in enumerate(m[i]) if v} | {j for j in rows})
    cell, left, top = 34, 280, 200  # room for the row labels, and for the column labels slanted up and right
    w, h = left + cell * len(used_cols) + 160, top + cell * len(rows) + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" '
           f'aria-label="confusion matrix" font-family="system-ui,sans-serif" font-size="12">']
    peak = max([max(r) for r in m] + [1])
    for k, j in enumerate(used_cols):
        x = left + k * cell + cell / 2
        out.append(f'<text x="{x:.0f}" y="{top - 8}" transform="rotate(-55 {x:.0f} {top - 8})">{_e(cols[j])}</text>')
    for r_i, i in enumerate(rows):
        y = top + r_i * cell
        out.append(f'<text x="{left - 8}" y="{y + cell / 2 + 4:.0f}" text-anchor="end">{_e(labels[i])}</text>')
        for k, j in enumerate(used_cols):
            v = m[i][j]
            x = left + k * cell
            diag = cols[j] == labels[i]
            if v:
                alpha = 0.25 + 0.75 * v / peak
                fill = f"rgba(26,127,55,{alpha:.2f})" if diag else f"rgba(207,34,46,{alpha:.2f})"
            else:
                fill = "#f6f8fa"
            out.append(f'<rect x="{x}" y="{y}" width="{cell - 2}" height="{cell - 2}" fill="{fill}" stroke="#d0d7de">'
                       f'<title>expected {_e(labels[i])}, got {_e(cols[j])}: {v}</title></rect>')
            if v:
                out.append(f'<text x="{x + (cell - 2) / 2:.0f}" y="{y + cell / 2 + 3:.0f}" text-anchor="middle" '
                           f'fill="{"#fff" if v / peak > 0.5 else "#1b1f24"}">{v}</text>')
    out.append("</svg>")
    return "".join(out)


def fault_grid_html(f: dict) -> str:
    eps = [e for e in ("token", "list", "workload", "events", "spec", "pods", "history", "metrics")
           if any(e in row for row in f["grid"].values())]
    parts = ["<h2>Fault matrix</h2>",
             f"<p class=\"small\">{f['runs']} runs, {f['passed']} passed; {f['fatal_as_designed']} ended in the "
             "documented fatal 'API unavailable' (exit 3) because the token, the workload's own status or the "
             "workload list failed persistently. Cells: passed/runs per injected fault and endpoint.</p>",
             "<table><tr><th>fault</th>" + "".join(f"<th>{_e(e)}</th>" for e in eps) + "</tr>"]
    for v in f["variants"]:
        row = f["grid"].get(v["name"], {})
        cells = []
        for e in eps:
            c = row.get(e)
            if not c:
                cells.append("<td class=\"num small\">·</td>")
            else:
                cells.append(f"<td class=\"num {'ok' if c[0] == c[1] else 'warn'}\">{c[1]}/{c[0]}</td>")
        kind = "transient" if v["transient"] else "persistent"
        parts.append(f"<tr><th>{_e(v['name'])} <span class=\"small\">({kind})</span></th>{''.join(cells)}</tr>")
    parts.append("</table>")
    if f["xfail"]["runs"]:
        parts.append(f"<p class=\"warn\">{f['xfail']['runs']} runs show known defect(s), reported and not yet "
                     "fixed (expected failures):</p><ul>" + "".join(f"<li>{_e(d)}</li>" for d in f["xfail"]["defects"])
                     + "</ul><details><summary>runs</summary><ul>" +
                     "".join(f"<li><code>{_e(x)}</code></li>" for x in f["xfail"]["items"]) + "</ul></details>")
    if f["failures"]:
        parts.append("<ul>" + "".join(f"<li class=\"bad\"><code>{_e(x['id'])}</code> {_e(x['endpoint'])}/"
                                      f"{_e(x['variant'])}: {_e('; '.join(x['problems']))}</li>"
                                      for x in f["failures"][:500]) + "</ul>")
    return "".join(parts)
