"""The package's import graph read from the source: no module imports itself back through others.

Every import counts, those inside functions included (they only move a circle from import time to
call time); imports under `if TYPE_CHECKING:` do not, since they never run.
"""

from __future__ import annotations

import ast
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
    frozenset({"claimscope.prompts.decompose", "claimscope.tools.read.claim_analysis",
               "claimscope.tools.read.claim_analysis.analysis", "claimscope.tools.read.claim_analysis.decomposition"}):
        "a prompt imports the tools that call it (prompts sit below tools)",
}


def _modules() -> dict[str, Path]:
    found = {}
    for top in TOPS:
        for path in (REPO / top).rglob("*.py"):
            if "__pycache__" in path.parts:
                continue
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found["claimscope." + ".".join(parts)] = path
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

