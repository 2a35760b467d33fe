"""The HTML page: self-contained (no external resource, CSP with the sort script's hash), every string escaped,
colours per category as the chart's, sortable columns, grouped actions, a ``failed`` command (and a Run:ai UI link)
per workload; it renders in headless Chromium (the screenshot's path is printed), its script runs under the policy
and sorts. Skipped loudly without Chromium unless WD_REQUIRE_K8S=1 (CI)."""
from __future__ import annotations

import base64
import hashlib
import html
import os
import re
import shutil
import subprocess
import sys

import pytest

from workload_diagnose.agent.triage.html import SORT_SCRIPT, render_html, ui_link_template
from workload_diagnose.agent.triage.report import group_actions
from workload_diagnose.tools.runai import InvalidInput
from tests.triage.fleetrun import run_triage, small_fleet

HOSTILE = '</td><script>alert(1)</script><img src="http://evil.example/x.png"><a href="https://evil.example">x</a>'


def _fleet_with_hostile_evidence() -> dict:
    world = small_fleet(30)
    wl = next(w for w in world["workloads"] if w["phase"] == "Failed")
    for ev in world["events"].get(wl["id"]) or []:
        ev["message"] = (ev.get("message") or "") + " " + HOSTILE
    wl["phaseMessage"] = HOSTILE
    return world


UI = "https://acme.run.ai/workloads/{workload_id}?clusterId={cluster_id}"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    res, _, _ = run_triage(_fleet_with_hostile_evidence())
    text = render_html(res, ui_url=ui_link_template(UI))
    path = tmp_path_factory.mktemp("html") / "triage.html"
    path.write_text(text, encoding="utf-8")
    return res, text, path


class _Tags:
    """Every start tag and attribute of a page, and each script's text, as a browser's tokenizer sees them."""

    def __init__(self, text: str):
        from html.parser import HTMLParser

        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        outer = self

        class P(HTMLParser):
            inside = False

            def handle_starttag(self, tag, attrs):
                outer.tags.append((tag, dict(attrs)))
                self.inside = tag == "script"

            def handle_endtag(self, tag):
                self.inside = False

            def handle_data(self, data):
                if self.inside:
                    outer.scripts.append(data)

        P(convert_charrefs=True).feed(text)


def test_page_is_self_contained_and_escaped(page):
    res, text, _ = page
    t = _Tags(text)
    names = {n for n, _ in t.tags}
    assert not names & {"img", "link", "iframe", "object", "embed", "base", "form", "input"}
    attrs = [(n, k, v or "") for n, a in t.tags for k, v in a.items()]
    assert not [x for x in attrs if x[1] in ("src", "srcset", "action", "background", "xmlns")]
    assert not [x for x in attrs if x[1].startswith("on")]  # no event handler
    links = [a for n, a in t.tags if n == "a"]  # only the configured Run:ai UI, one per workload with an id
    assert len(links) == len([v for v in res.workloads if v.workload.id])
    assert all(a["href"].startswith("https://acme.run.ai/workloads/") and "noopener" in a["rel"] for a in links)
    assert not [x for x in attrs if re.search(r"https?:|url\(|//", x[2]) and x[1] not in ("content", "href", "title")]
    css = text[text.index("<style>"):text.index("</style>")]
    assert "url(" not in css and "@import" not in css
    csp = [a["content"] for n, a in t.tags if n == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and csp[0].startswith("default-src 'none'")
    # one inline script, allowed by its hash only (a script injected anywhere else would not run)
    assert [n for n, _ in t.tags].count("script") == 1 and len(t.scripts) == 1
    digest = base64.b64encode(hashlib.sha256(t.scripts[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp[0] and "unsafe-inline" not in csp[0].split("script-src")[1]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text  # the hostile evidence is shown, as text only
    assert "<svg" in text and text.count("<rect") == len(res.counts) + len(res.routed)
    for v in res.workloads:
        assert f"--workload-id {v.workload.id}" in text


def test_colours_sorting_commands_and_grouped_actions(page):
    res, text, _ = page
    chart = dict(re.findall(r'<text[^>]*>([^<]+)</text><rect[^>]*fill="(#[0-9a-f]{6})"', text))
    rows = re.findall(r'<tr><td class="nowrap">([^<]*)</td>.*?<span class="cat" style="background:(#[0-9a-f]{6})">'
                      r"([^<]+)</span>", text)
    assert len(rows) == len(res.workloads)
    for _, fill, verdict in rows:  # a category is its chart bar's colour
        assert chart[verdict if verdict in chart else verdict.replace("stopped: ", "routed: ")] == fill, verdict
    order = [verdict for _, _, verdict in rows]  # grouped by verdict, most frequent category first
    groups = list(dict.fromkeys(order))
    assert order == sorted(order, key=groups.index) and groups[:len(res.counts)] == list(res.counts)
    # a UUID is never a table column: only inside a row's "failed" command, which does not wrap
    cells = re.findall(r"<td[^>]*>(.*?)</td>", text.split("<h2>Workloads</h2>")[1])
    uuid = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
    assert all(c.startswith("<details>") for c in cells if uuid.search(c) and "<a " not in c[:3])
    assert "details code{white-space:nowrap}" in text
    for v in res.workloads:
        assert f"workload-diagnose failed --cluster-id {res.cluster_id} --workload-id {v.workload.id}" in text
    grouped = group_actions(res.actions)
    assert len(grouped) < len(res.actions), "the fleet has near-identical actions to group"
    assert all(html.escape(a["action"], quote=True) in text for a in res.actions[:20])
    assert "similar actions)" in text


def test_ui_links_only_from_a_checked_template():
    assert ui_link_template(None) is None and ui_link_template("  ") is None
    for bad in ("javascript:alert(1)//{workload_id}", "https://ui.example/{token}", "https://ui.example/plain",
                "ftp://ui.example/{workload_id}"):
        with pytest.raises(InvalidInput):
            ui_link_template(bad)


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name) or (f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}") else None)
        if found:
            return found
    return None


def _need_chromium() -> str:
    exe = _chromium()
    if exe is None:
        msg = ("CHROMIUM NOT INSTALLED: `./dev system` installs it (as root: apt-get install -y chromium, as CI does)"
               ": the HTML render test is skipped")
        if os.environ.get("WD_REQUIRE_K8S", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(msg + " (WD_REQUIRE_K8S is set, so this is a failure)", pytrace=False)
        sys.stderr.write(f"\n*** {msg} ***\n")
        pytest.skip(msg)
    return exe


def _headless(exe: str, tmp_path, *args: str) -> subprocess.CompletedProcess:
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-dev-shm-usage", "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
           f"--user-data-dir={tmp_path / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_page_renders_in_headless_chromium(page, tmp_path, capsys):
    exe = _need_chromium()
    _, _, html_path = page
    shot = tmp_path / "triage.png"
    p = _headless(exe, tmp_path, "--window-size=1280,2000", f"--screenshot={shot}", f"file://{html_path}")
    assert shot.exists(), p.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    assert len(set(_pixels(data))) > 16  # text, bars and table lines were drawn: not a blank page
    with capsys.disabled():
        print(f"\n[triage] headless Chromium screenshot: {shot} ({len(data):,} bytes)")
    dom = _headless(exe, tmp_path, "--dump-dom", f"file://{html_path}").stdout
    assert dom.count('data-sort-ready="1"') == 2, "the sort script did not run under the page's policy"


def test_columns_sort_in_headless_chromium(page, tmp_path):
    """The page's own script, in a page that clicks a heading: the rows come back in that column's order (numbers
    as numbers), and a second click reverses them."""
    exe = _need_chromium()
    res, text, _ = page
    table = text[text.index("<h2>Workloads</h2>") + len("<h2>Workloads</h2>"):]
    table = table[:table.index("</table>") + len("</table>")]
    heads = re.findall(r"<th><button[^>]*>([^<]+)</button></th>", table)

    def order(column: str, clicks: int) -> list[str]:
        click = "".join(f"document.querySelectorAll('th button')[{heads.index(column)}].click();"
                        for _ in range(clicks))
        f = tmp_path / f"sort-{column}-{clicks}.html"
        f.write_text(f"<!DOCTYPE html><html><body>{table}<script>{SORT_SCRIPT}</script><script>{click}</script>"
                     "</body></html>", encoding="utf-8")
        dom = _headless(exe, tmp_path, "--dump-dom", f"file://{f}").stdout
        return re.findall(r'<tr><td class="nowrap">([^<]*)</td>', dom)

    names = order("workload", 1)
    assert names == sorted(names, key=str) and len(names) == len(res.workloads)
    assert order("workload", 2) == names[::-1]
    counts = {v.workload.name: (v.recurrence.count if v.recurrence else -1) for v in res.workloads}
    by_recurrence = [counts[n] for n in order("recurrence", 1)]
    assert by_recurrence == sorted(by_recurrence) and len(set(by_recurrence)) > 1


def _pixels(png: bytes) -> bytes:
    """The decompressed image data of a PNG (its IDAT chunks): enough to tell a drawn page from a blank one."""
    import struct
    import zlib

    pos, idat = 8, b""
    while pos < len(png):
        n, kind = struct.unpack(">I4s", png[pos:pos + 8])
        if kind == b"IDAT":
            idat += png[pos + 8:pos + 8 + n]
        pos += 12 + n
    return zlib.decompress(idat)
