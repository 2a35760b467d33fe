"""No product file outside ``agent/taxonomy/`` names a category: every other list derives from the registry.

Every string literal (regular expressions included) of every product module (``agent/``, ``tools/``,
``guardrails/``) is searched for every category name as a word, case-sensitively."""
from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from workload_diagnose.agent.taxonomy import NAMES

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("agent", "tools", "guardrails")
ALLOWED = ROOT / "agent" / "taxonomy"
NAME_RX = re.compile(r"(?<![A-Za-z0-9])(?:" + "|".join(map(re.escape, NAMES)) + r")(?![A-Za-z0-9])")


def literals(path: Path):
    src = path.read_text(encoding="utf-8")
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.STRING or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            yield tok.start[0], tok.string


def hits(files, root: Path = ROOT) -> list[str]:
    return [f"{f.relative_to(root)}:{line}: {m.group(0)}" for f in files for line, s in literals(f)
            for m in NAME_RX.finditer(s)]


def product_files():
    for top in PRODUCT:
        for f in sorted((ROOT / top).rglob("*.py")):
            if ALLOWED not in f.parents:
                yield f


def test_no_category_name_outside_the_taxonomy():
    assert hits(product_files()) == []


def test_the_check_finds_a_name(tmp_path):
    # not vacuous: a plain literal, an f-string and a regex naming a category are each found; lower case is not
    name = NAMES[0]
    probe = tmp_path / "probe.py"
    probe.write_text(f'A = "{name}"\nB = f"x {{A}} {name}"\nC = r"\\b(?:{name}|X)\\b"\nD = "{name.lower()}"\n')
    assert [h.rsplit(": ", 1)[-1] for h in hits([probe], root=tmp_path)] == [name, name, name]
