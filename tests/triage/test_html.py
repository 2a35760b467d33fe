"""The HTML page: self-contained (no external resource, CSP), every string escaped, and it renders in headless
Chromium (the screenshot's path is printed). Skipped loudly without Chromium unless WD_REQUIRE_K8S=1 (CI)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from workload_diagnose.agent.triage.html import render_html
from tests.triage.fleetrun import run_triage, small_fleet

HOSTILE = '</td><script>alert(1)</script><img src="http://evil.example/x.png"><a href="https://evil.example">x</a>'


def _fleet_with_hostile_evidence() -> dict:
    world = small_fleet(30)
    wl = next(w for w in world["workloads"] if w["phase"] == "Failed")
    for ev in world["events"].get(wl["id"]) or []:
        ev["message"] = (ev.get("message") or "") + " " + HOSTILE
    wl["phaseMessage"] = HOSTILE
    return world


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    res, _, _ = run_triage(_fleet_with_hostile_evidence())
    text = render_html(res)
    path = tmp_path_factory.mktemp("html") / "triage.html"
    path.write_text(text, encoding="utf-8")
    return res, text, path


class _Tags:
    """Every start tag and attribute of a page, as a browser's tokenizer sees them (stdlib html.parser)."""

    def __init__(self, text: str):
        from html.parser import HTMLParser

        self.tags: list[tuple[str, dict]] = []
        outer = self

        class P(HTMLParser):
            def handle_starttag(self, tag, attrs):
                outer.tags.append((tag, dict(attrs)))

        P(convert_charrefs=True).feed(text)


def test_page_is_self_contained_and_escaped(page):
    res, text, _ = page
    tags = _Tags(text).tags
    names = {t for t, _ in tags}
    assert not names & {"script", "img", "a", "link", "iframe", "object", "embed", "base", "form", "input"}
    attrs = [(t, k, v or "") for t, a in tags for k, v in a.items()]
    assert not [x for x in attrs if x[1] in ("src", "href", "srcset", "action", "background", "xmlns")]
    assert not [x for x in attrs if x[1].startswith("on")]  # no event handler
    assert not [x for x in attrs if re.search(r"https?:|url\(|//", x[2]) and x[1] != "content"]
    css = text[text.index("<style>"):text.index("</style>")]
    assert "url(" not in css and "@import" not in css
    csp = [a["content"] for t, a in tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and csp[0].startswith("default-src 'none'")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text  # the hostile evidence is shown, as text only
    assert "<svg" in text and text.count("<rect") == len(res.counts) + len(res.routed)
    for v in res.workloads:
        assert v.workload.id in text


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name) or (f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}") else None)
        if found:
            return found
    return None


def test_page_renders_in_headless_chromium(page, tmp_path, capsys):
    exe = _chromium()
    if exe is None:
        msg = "CHROMIUM NOT INSTALLED (apt-get install -y chromium): the HTML render test is skipped"
        if os.environ.get("WD_REQUIRE_K8S", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(msg + " (WD_REQUIRE_K8S is set, so this is a failure)", pytrace=False)
        sys.stderr.write(f"\n*** {msg} ***\n")
        pytest.skip(msg)
    _, _, html_path = page
    shot = tmp_path / "triage.png"
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-dev-shm-usage", "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
           f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,2000", f"--screenshot={shot}",
           f"file://{html_path}"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert shot.exists(), p.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    assert len(set(_pixels(data))) > 16  # text, bars and table lines were drawn: not a blank page
    with capsys.disabled():
        print(f"\n[triage] headless Chromium screenshot: {shot} ({len(data):,} bytes)")


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
