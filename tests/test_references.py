"""Code and docs name files that exist: a path to a module or a page (agent/..., tools/...,
prompts/..., docs/... ending in .py or .md, or a top-level NAME.md) must resolve in the repository.
Markdown links are checked by tests/test_docs_links.py; this covers the paths written in prose,
docstrings and comments, where a moved or never-written file otherwise goes unnoticed."""

from __future__ import annotations

import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PATH = re.compile(r"(?<![\w./-])((?:agent|tools|prompts|docs)/[\w./-]*?\.(?:py|md)|[A-Z][A-Z_]+\.md)(?![\w/])")


def missing_references(repo: Path = REPO) -> list[str]:
    sources = [*repo.glob("*.md")]
    for top in ("agent", "tools", "prompts", "evals", "docs"):
        for folder, dirs, files in os.walk(repo / top):
            # evals/work holds benchmark data, evals/results the records of past runs.
            dirs[:] = [d for d in dirs if d != "__pycache__" and Path(folder, d) not in
                       {repo / "evals" / "work", repo / "evals" / "results"}]
            sources += [Path(folder, f) for f in files if f.endswith((".py", ".md"))]
    # A bare NAME.md names a page wherever one of that name lives (README.md, a MODEL_CARD.md).
    pages = {p.name for p in sources}
    found = []
    for path in sorted(sources):
        rel = path.relative_to(repo)
        if rel.name == "CHANGELOG.md":  # history: it names files as they were
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for ref in PATH.findall(line):
                if not (repo / ref).exists() and not (path.parent / ref).exists() \
                        and not ("/" not in ref and ref in pages):
                    found.append(f"{rel}:{n}: {ref}")
    return found


def test_the_check_finds_a_missing_file(tmp_path):
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "a.py").write_text('"""See DESIGN.md and tools/a.py, not tools/gone.py."""\n')
    assert missing_references(tmp_path) == ["tools/a.py:1: DESIGN.md", "tools/a.py:1: tools/gone.py"]


def test_named_files_exist():
    found = missing_references()
    assert not found, f"references to files that do not exist (point at the file that holds it now): {found}"
