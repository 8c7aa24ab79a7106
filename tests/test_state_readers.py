"""The report (agent/assemble.py) and the chat (agent/chat/) read the investigation state, and build
their changes to it, only through agent/graph/readers.py, the one module that knows the records'
shape: none of them indexes the state or calls `.get` on it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CHECKED = [REPO / "agent" / "assemble.py", *sorted((REPO / "agent" / "chat").glob("*.py"))]


def _state_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names a function holds the state in: `state`, any parameter typed InvestigationState, and
    any variable assigned the state (`self._state()`, `self.inv.state(...)`)."""
    names = {"state"}
    for arg in [*fn.args.args, *fn.args.kwonlyargs]:
        if arg.annotation is not None and "InvestigationState" in ast.unparse(arg.annotation):
            names.add(arg.arg)
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and _is_state_call(node.value):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _is_state_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("_state", "state"))


def raw_reads(source: str) -> list[str]:
    """`line: code` of every subscript of, or `.get` on, the state in `source`."""
    tree = ast.parse(source)
    found: list[str] = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        names = _state_names(fn)

        def is_state(node: ast.AST, names: set[str] = names) -> bool:
            return (isinstance(node, ast.Name) and node.id in names) or _is_state_call(node)

        for node in ast.walk(fn):
            target = None
            if isinstance(node, ast.Subscript) and is_state(node.value):
                target = node
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in ("get", "setdefault", "pop", "items", "keys", "values")
                  and is_state(node.func.value)):
                target = node
            if target is not None:
                found.append(f"{target.lineno}: {ast.unparse(target)}")
    return sorted(set(found), key=lambda s: int(s.split(":")[0]))


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: str(p.relative_to(REPO)))
def test_reads_the_state_only_through_the_readers(path):
    assert raw_reads(path.read_text(encoding="utf-8")) == [], (
        f"{path.relative_to(REPO)} reads the state's records itself; add or use a reader in "
        "agent/graph/readers.py")


def test_the_check_finds_raw_reads():
    source = '''
def f(state, other):
    a = state["claim"]
    b = state.get("tree") or {}
    c = other.get("x")
def g(self, s: InvestigationState):
    return s.get("documents"), self._state().get("report")
def h(self):
    st = self.inv.state("id")
    return st["verdict"]
'''
    assert [r.split(":")[0] for r in raw_reads(source)] == ["3", "4", "7", "7", "10"]
