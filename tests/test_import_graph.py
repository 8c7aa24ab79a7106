"""The package's import graph read from the source: no module imports itself back through others,
and imports point down the layers (evals -> agent -> tools -> prompts) and, inside tools/, from a
stage to an earlier one (text -> find -> read -> appraise -> weigh -> explain).

Every import counts, those inside functions included (they only move a circle or an upward import
from import time to call time); imports under `if TYPE_CHECKING:` do not, since they never run.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TOPS = ("agent", "tools", "prompts")

# Circles not yet broken, each with what keeps it. Breaking one fails the test until it is removed.
KNOWN_CIRCLES: dict[frozenset[str], str] = {
    frozenset({"claimscope.agent.web.app", "claimscope.agent.web.routes"}):
        "the routes read the app's shared state and the app mounts the routes",
    frozenset({"claimscope.agent.cli", *(f"claimscope.agent.cli.{m}" for m in (
        "chat", "check", "corpus", "investigate", "llm", "retractions", "sessions", "web"))}):
        "the command modules register on the Typer app that cli/__init__.py builds from them",
}


def _modules(tops: tuple[str, ...] = TOPS) -> dict[str, Path]:
    """Module name -> file; the package's folders under `claimscope.`, evals/ under its own name."""
    found = {}
    for top in tops:
        for path in (REPO / top).rglob("*.py"):
            rel = path.relative_to(REPO)
            if "__pycache__" in rel.parts or rel.parts[:2] == ("evals", "work"):
                continue
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[("" if top == "evals" else "claimscope.") + ".".join(parts)] = path
    return found


def _imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that `name` imports when it runs."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    targets: set[str] = set()

    class Visitor(ast.NodeVisitor):
        def visit_If(self, node: ast.If) -> None:
            test = node.test
            if getattr(test, "id", getattr(test, "attr", None)) == "TYPE_CHECKING":
                for stmt in node.orelse:
                    self.visit(stmt)
                return
            self.generic_visit(node)

        def visit_Import(self, node: ast.Import) -> None:
            targets.update(alias.name for alias in node.names)

        def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
            base = ".".join(package[:len(package) - node.level + 1] + [node.module or ""]).strip(".") \
                if node.level else node.module or ""
            targets.add(base)
            targets.update(f"{base}.{alias.name}" for alias in node.names)

    Visitor().visit(ast.parse(path.read_text(encoding="utf-8")))
    out = set()
    for target in targets:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name:
            out.add(target)
    return out


def import_circles() -> list[frozenset[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm)."""
    known = _modules()
    graph = {name: _imported(name, path, known) for name, path in known.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                circles.append(frozenset(group))

    for v in graph:
        if v not in index:
            visit(v)
    return circles


def test_the_reader_sees_a_circle():
    """The graph reader follows relative, function-level and `from package import module` imports."""
    known = _modules()
    runs = _imported("claimscope.agent.runs", known["claimscope.agent.runs"], known)
    assert {"claimscope.agent.investigation", "claimscope.agent.sessions.index"} <= runs
    routes = _imported("claimscope.agent.web.routes", known["claimscope.agent.web.routes"], known)
    assert "claimscope.agent.web.app" in routes


def test_no_import_circles():
    circles = import_circles()
    new = [sorted(c) for c in circles if c not in KNOWN_CIRCLES]
    assert not new, f"modules that import each other: {new}"
    gone = [sorted(c) for c in KNOWN_CIRCLES if c not in circles]
    assert not gone, f"broken circles still listed in KNOWN_CIRCLES: {gone}"



# Highest first: a module may import its own layer and the layers after it, never one before.
LAYERS = ("evals", "claimscope.agent", "claimscope.tools", "claimscope.prompts")
# tools/ stage packages in the order of an investigation: a stage may import an earlier one (and
# tools/errors, llm, models), never a later one. text/ comes first: every stage splits sentences.
STAGES = ("text", "find", "read", "appraise", "weigh", "explain")


def _layer(module: str) -> int:
    return next(i for i, top in enumerate(LAYERS) if module == top or module.startswith(top + "."))


def _stage(module: str) -> int | None:
    parts = module.split(".")
    return STAGES.index(parts[2]) if parts[:2] == ["claimscope", "tools"] and len(parts) > 2 and parts[2] in STAGES else None


def upward_imports() -> list[str]:
    """'importer -> imported' for every import that points up a layer, or to a later tools stage."""
    known = _modules((*TOPS, "evals"))
    found = []
    for name, path in sorted(known.items()):
        for target in sorted(_imported(name, path, known)):
            if _layer(target) < _layer(name):
                found.append(f"{name} -> {target}")
            elif (to := _stage(target)) is not None and name.startswith("claimscope.tools.") \
                    and ((at := _stage(name)) is None or to > at):
                found.append(f"{name} -> {target} (a later stage)")
    return found


def test_the_layer_reader_sees_an_upward_import(tmp_path, monkeypatch):
    """A prompt that imports a tool, inside a function, and a store module that imports a reader are
    both found; the same import under `if TYPE_CHECKING:` is not."""
    for rel, text in {
        "prompts/p.py": "def f():\n    from claimscope.tools.t import x\n",
        "prompts/q.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from claimscope.tools.t import x\n",
        "tools/t.py": "",
        "tools/find/s.py": "from claimscope.tools.read import r\n",
        "tools/read/r.py": "from claimscope.tools.find import s\n",
        "agent/a.py": "", "evals/e.py": "from claimscope.agent import a\n",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    assert upward_imports() == ["claimscope.prompts.p -> claimscope.tools.t",
                                "claimscope.tools.find.s -> claimscope.tools.read.r (a later stage)"]


def test_imports_point_down_the_layers():
    found = upward_imports()
    assert not found, ("imports against evals -> agent -> tools -> prompts, or from a tools stage to a "
                       f"later one (move the code down, or pass it in as an argument): {found}")
