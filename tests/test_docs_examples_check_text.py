"""The check_text MCP example of docs/check-text.md, run as a reader copies it against a real
server over streamable HTTP with the pinned MCP SDK."""

from __future__ import annotations

import contextlib
import io
import re

from claimscope.agent.investigation import Investigator
from claimscope.agent.runs import RunManager
from tests.conftest import REPO
from tests.investigation_fixtures import make_services
from tests.mcp_http import http_server

DOC = REPO / "docs" / "check-text.md"


def test_the_check_text_mcp_example_runs_with_progress_per_claim(tmp_path):
    blocks = [b for b in re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
              if "call_tool(\"check_text\"" in b]
    assert len(blocks) == 1
    # The docs name the reader's corpus; the test's services hold the fixture corpus under another name.
    code = blocks[0].replace('"corpora": ["scifact"]', '"corpora": ["fixture"], "sources": ["local"], "depth": 1')
    manager = RunManager(Investigator(make_services(tmp_path)), max_workers=1)
    out = io.StringIO()
    try:
        with http_server(manager) as url, contextlib.redirect_stdout(out):
            exec(compile(code.replace("http://127.0.0.1:8765/mcp", url), "<example>", "exec"), {})
    finally:
        manager.shutdown(cancel=True, wait=True)
    printed = out.getvalue()
    assert re.search(r"^\d+(\.\d+)? claim 1 of 2: gather$", printed, re.M), printed
    assert "# Checked text" in printed and "[c1 " in printed
    assert "I hope this helps\\! — *opinion:*" in printed
