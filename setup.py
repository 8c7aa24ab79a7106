"""The package list, discovered: pyproject.toml maps the repository root onto `claimscope`
(agent/, tools/ and prompts/ stay at the top level, as the project's layout fixes them), and
setuptools' declarative discovery cannot name packages under such a mapping, so this file lists
every package below agent/, tools/ and prompts/ that has an __init__.py. Everything else about the
build is in pyproject.toml."""

from pathlib import Path

from setuptools import find_packages, setup

ROOT = Path(__file__).resolve().parent
setup(packages=["claimscope", *("claimscope." + p
                                for p in find_packages(where=str(ROOT), include=["agent*", "tools*", "prompts*"]))])
