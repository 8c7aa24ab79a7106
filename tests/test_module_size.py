"""House rule (docs/contributing.md): a module over 600 lines becomes a package of single-concern
modules, or says at its top why it is not, in a line that starts "Over 600 lines:"."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LIMIT = 600
# The reason sits in the module's opening lines, where a reader meets the module.
TOP = 12


def long_modules_without_a_reason(repo: Path = REPO) -> list[str]:
    found = []
    for top in ("agent", "tools", "prompts", "evals", "tests"):
        for path in sorted((repo / top).rglob("*.py")):
            rel = path.relative_to(repo)
            if "__pycache__" in rel.parts or rel.parts[:2] == ("evals", "work"):
                continue
            lines = path.read_text(encoding="utf-8").splitlines()
            if len(lines) > LIMIT and not any("Over 600 lines:" in line for line in lines[:TOP]):
                found.append(f"{rel} ({len(lines)} lines)")
    return found


def test_the_check_finds_a_long_module_and_accepts_its_reason(tmp_path):
    (tmp_path / "tools").mkdir()
    body = "x = 1\n" * (LIMIT + 1)
    (tmp_path / "tools" / "long.py").write_text('"""A module."""\n' + body)
    (tmp_path / "tools" / "said.py").write_text('"""A module.\n\nOver 600 lines: one table."""\n' + body)
    (tmp_path / "tools" / "short.py").write_text(body[: 6 * LIMIT])
    assert long_modules_without_a_reason(tmp_path) == [f"tools/long.py ({LIMIT + 2} lines)"]


def test_long_modules_say_why():
    found = long_modules_without_a_reason()
    assert not found, ("modules over 600 lines: split them by concern, or say why not at the top in a line "
                       f"starting 'Over 600 lines:': {found}")
