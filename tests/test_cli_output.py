"""The one writer of a command's output (agent/cli/options.write_output): stdout, or a file with a
line saying so, or one clear line when the file cannot be written."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from claimscope.agent.cli.options import write_output
from claimscope.tools.errors import InputError


def _log() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=200), buf


def test_prints_to_stdout_with_or_without_newline(capsys: pytest.CaptureFixture[str]) -> None:
    log, buf = _log()
    write_output("report", None, log, what="the report", advice="-")
    write_output("claims\n", None, log, what="the claims", advice="-", nl=False)
    assert capsys.readouterr().out == "report\nclaims\n"
    assert buf.getvalue() == ""


def test_writes_the_file_in_a_new_folder_and_says_so(tmp_path: Path) -> None:
    log, buf = _log()
    out = tmp_path / "new" / "[r].md"
    write_output("é report", out, log, what="the report", advice="-")
    assert out.read_text(encoding="utf-8") == "é report"
    assert buf.getvalue() == f"the report written to {out}\n"
    write_output("x", out, log, what="", advice="-")
    assert buf.getvalue().endswith(f"\nwritten to {out}\n")


def test_a_failed_write_is_one_line_with_the_advice(tmp_path: Path) -> None:
    log, buf = _log()
    with pytest.raises(InputError, match=r"^could not write the report to .+ \(.+\); choose another --out\.$"):
        write_output("x", tmp_path, log, what="the report", advice="choose another --out.")
    with pytest.raises(InputError, match=rf"^could not write {tmp_path} \(.+\); export again\.$"):
        write_output("x", tmp_path, log, what="", advice="export again.")
    assert buf.getvalue() == ""
