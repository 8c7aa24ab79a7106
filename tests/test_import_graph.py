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

import pytest

REPO = Path(__file__).resolve().parents[1]
TOPS = ("agent", "tools", "prompts")

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


def _import_sites(name: str, path: Path) -> list[tuple[int, bool, set[str]]]:
    """(line, inside a function, what it names: the module and module.name) of every import that
    runs; those under `if TYPE_CHECKING:` never do."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    sites: list[tuple[int, bool, set[str]]] = []

    class Visitor(ast.NodeVisitor):
        depth = 0

        def visit_If(self, node: ast.If) -> None:
            test = node.test
            if getattr(test, "id", getattr(test, "attr", None)) == "TYPE_CHECKING":
                for stmt in node.orelse:
                    self.visit(stmt)
                return
            self.generic_visit(node)

        def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
            self.depth += 1
            self.generic_visit(node)
            self.depth -= 1

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_Import(self, node: ast.Import) -> None:
            sites.append((node.lineno, self.depth > 0, {alias.name for alias in node.names}))

        def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
            base = ".".join(package[:len(package) - node.level + 1] + [node.module or ""]).strip(".") \
                if node.level else node.module or ""
            sites.append((node.lineno, self.depth > 0, {base} | {f"{base}.{alias.name}" for alias in node.names}))

    Visitor().visit(ast.parse(path.read_text(encoding="utf-8")))
    return sites


def _resolve(target: str, known: dict[str, Path]) -> str | None:
    """The package's module that an imported name lives in, None for a name from outside."""
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def _imported(name: str, path: Path, known: dict[str, Path], *, functions: bool = True) -> set[str]:
    """The package's modules that `name` imports when it runs (at import time only, without
    `functions`)."""
    out = set()
    for _, in_function, targets in _import_sites(name, path):
        if in_function and not functions:
            continue
        out.update(m for t in targets if (m := _resolve(t, known)) and m != name)
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


def _repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> None:
    """A made-up repository of `files` (path -> source), read by the checks here instead of this one."""
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)


def test_the_reader_sees_a_circle(tmp_path, monkeypatch):
    """The graph reader follows relative, function-level and `from package import module` imports
    into a circle; an import under `if TYPE_CHECKING:` closes none."""
    _repository(tmp_path, monkeypatch, {
        "agent/web/app.py": "from . import routes\n",
        "agent/web/routes.py": "def f():\n    from claimscope.agent.web import app\n",
        "agent/cli/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from claimscope.agent.cli import b\n",
        "agent/cli/b.py": "from claimscope.agent.cli import a\n",
        "agent/web/__init__.py": "",
    })
    assert import_circles() == [frozenset({"claimscope.agent.web.app", "claimscope.agent.web.routes"})]


def test_no_import_circles():
    circles = [sorted(c) for c in import_circles()]
    assert not circles, f"modules that import each other (break the circle by moving code): {circles}"


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
    _repository(tmp_path, monkeypatch, {
        "prompts/p.py": "def f():\n    from claimscope.tools.t import x\n",
        "prompts/q.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from claimscope.tools.t import x\n",
        "tools/t.py": "",
        "tools/find/s.py": "from claimscope.tools.read import r\n",
        "tools/read/r.py": "from claimscope.tools.find import s\n",
        "agent/a.py": "", "evals/e.py": "from claimscope.agent import a\n",
    })
    assert upward_imports() == ["claimscope.prompts.p -> claimscope.tools.t",
                                "claimscope.tools.find.s -> claimscope.tools.read.r (a later stage)"]


def test_imports_point_down_the_layers():
    found = upward_imports()
    assert not found, ("imports against evals -> agent -> tools -> prompts, or from a tools stage to a "
                       f"later one (move the code down, or pass it in as an argument): {found}")


# Third-party packages worth importing inside the function that needs them, and why. Load times:
# `python -c "import X"` less a bare interpreter's start, second of two runs, on the 2-core
# development machine (load average about 1); anything under a fifth of a second goes at the top
# unless it may be missing or loads a model.
HEAVY_IMPORTS = {
    "torch": "about 1.5 s to load",
    "transformers": "about 0.8 s to load",
    "sentence_transformers": "about 6 s to load (torch and transformers with it)",
    "onnxruntime": "the model runtime, loaded only by a model that runs",
    "qdrant_client": "about 0.9 s to load; only the Qdrant-server engine and the one-time move need it",
    "langgraph": "the graph runtime, about 0.8 s; commands that never run a graph skip it",
    "litellm": "about 3.8 s to load, and it fetches a price list over the network on import",
    "mcp": "the MCP SDK, about 0.7 s; only the MCP server needs it",
    "xllamacpp": "the embedded model's native library",
    "psycopg": "the postgres extra, which may not be installed",
    "psycopg_pool": "the postgres extra, which may not be installed",
}


def _loads(known: dict[str, Path]) -> dict[str, set[str]]:
    """The HEAVY_IMPORTS packages each module brings in when it is imported (its module-level
    imports and its parent packages, followed through the package)."""
    direct: dict[str, set[str]] = {}
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        direct[name] = {t.split(".")[0] for _, in_function, targets in _import_sites(name, path) if not in_function
                        for t in targets if t.split(".")[0] in HEAVY_IMPORTS}
        parents = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        edges[name] = _imported(name, path, known, functions=False) | (parents & known.keys())
    out: dict[str, set[str]] = {}

    def visit(name: str, seen: set[str]) -> set[str]:
        if name in out:
            return out[name]
        found = set(direct[name])
        for dep in edges[name] - seen:
            found |= visit(dep, seen | {name})
        out[name] = found
        return found

    for name in known:
        visit(name, set())
    return out


def unexplained_function_imports() -> list[str]:
    """'module:line -> target' for each import inside a function that has no reason to be there:
    it brings in no heavy package the module does not already load, and is not in agent/cli/ (whose
    commands import what they run, so that `claimscope --help` loads none of it)."""
    known = _modules()
    loads = _loads(known)
    found = []
    for name, path in sorted(known.items()):
        if name == "claimscope.agent.cli" or name.startswith("claimscope.agent.cli."):
            continue
        for line, in_function, targets in _import_sites(name, path):
            if not in_function:
                continue
            heavy = {t.split(".")[0] for t in targets if t.split(".")[0] in HEAVY_IMPORTS}
            modules = {m for t in targets if (m := _resolve(t, known)) and m != name}
            for m in modules:
                heavy |= loads[m]
            if not heavy - loads[name]:
                found.append(f"{path.relative_to(REPO)}:{line} -> {', '.join(sorted(modules or targets))}")
    return found


def test_the_function_import_reader_needs_a_reason(tmp_path, monkeypatch):
    """A function's import of the standard library or of a light module is flagged, one that dodges a
    circle too; of torch, or of a module that imports torch at its top, it is not; nor is one inside
    agent/cli/."""
    _repository(tmp_path, monkeypatch, {
        "tools/light.py": "",
        "tools/model.py": "import torch\n",
        "tools/user.py": ("def f():\n    import json\n\ndef g():\n    import torch\n\n"
                          "def h():\n    from claimscope.tools import light\n\n"
                          "def i():\n    from claimscope.tools.model import x\n"),
        "agent/cli/c.py": "def f():\n    import json\n",
        "agent/web/app.py": "def f():\n    import json\n    from claimscope.agent.web import routes\n",
        "agent/web/routes.py": "from claimscope.agent.web import app\n",
    })
    assert unexplained_function_imports() == ["agent/web/app.py:2 -> json",
                                              "agent/web/app.py:3 -> claimscope.agent.web.routes",
                                              "tools/user.py:2 -> json", "tools/user.py:8 -> claimscope.tools.light"]


def test_imports_inside_functions_have_a_reason():
    """docs/contributing.md: an import goes at the top of its module unless it is heavy (HEAVY_IMPORTS,
    or a module that loads one) or in agent/cli/."""
    found = unexplained_function_imports()
    assert not found, f"imports inside functions with no reason to be there (move them to the top): {found}"
