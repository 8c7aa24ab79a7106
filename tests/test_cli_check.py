"""`claimscope check FILE|-`: the report on a text, the claims file a person edits, Ctrl-C and
--resume, and a one-line error for bad input."""

from __future__ import annotations

import io
import json
import sys

import pytest

from tests.conftest import run_main
from tests.investigation_fixtures import make_services

TEXT = ("Vitamin D supplementation prevents respiratory infections. We believe it is wonderful.\n\n"
        "Monthly high-dose vitamin D does not reduce infections in adults.\n")
RUN = ("-c", "fixture", "--sources", "local", "--depth", "1", "--top-docs", "4")


@pytest.fixture
def services(tmp_path, monkeypatch):
    svc = make_services(tmp_path)
    monkeypatch.setattr("claimscope.agent.investigation.Services", lambda *a, **k: svc)
    monkeypatch.setattr("claimscope.agent.services.Services", lambda *a, **k: svc)
    return svc


def _file(tmp_path, text=TEXT, name="release.md"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_check_a_file_writes_the_report_on_the_text(tmp_path, monkeypatch, capsys, services):
    out = tmp_path / "report.json"
    code, printed = run_main(monkeypatch, capsys, "check", str(_file(tmp_path)), *RUN, "-f", "json", "-o", str(out))
    assert code == 0, printed
    data = json.loads(out.read_text())
    assert data["source"] == "release.md" and [c["id"] for c in data["claims"]] == ["c1", "c3"]
    assert all(c["report"] for c in data["claims"])
    assert "claim 1 of 2: gather" in printed and "claim 2 of 2: report" in printed
    assert "2 check-worthy claims, 1 part not check-worthy" in printed


def test_check_standard_input_prints_markdown(tmp_path, monkeypatch, capsys, services):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(TEXT.encode())))
    code, printed = run_main(monkeypatch, capsys, "check", "-", *RUN, "-q")
    assert code == 0, printed
    assert "# Checked text" in printed and "](#claim-c3)" in printed and "claim 1 of 2" not in printed


def test_claims_only_then_the_edited_claims_file(tmp_path, monkeypatch, capsys, services):
    src = _file(tmp_path)
    claims = tmp_path / "claims.json"
    code, printed = run_main(monkeypatch, capsys, "check", str(src), "--claims-only", "-o", str(claims))
    assert code == 0, printed
    data = json.loads(claims.read_text())
    assert [c["check_worthy"] for c in data["claims"]] == [True, False, True] and "--claims" in data["how_to"]
    assert services.llm.scripted.calls == []  # nothing investigated
    data["claims"][0]["check_worthy"] = False
    data["claims"][2]["text"] = "High-dose vitamin D does not reduce infections in adults."
    claims.write_text(json.dumps(data))
    out = tmp_path / "r.json"
    code, printed = run_main(monkeypatch, capsys, "check", str(src), *RUN, "--claims", str(claims), "-f", "json",
                             "-o", str(out))
    assert code == 0, printed
    report = json.loads(out.read_text())
    assert [(c["id"], c["text"]) for c in report["claims"]] == [
        ("c3", "High-dose vitamin D does not reduce infections in adults.")]
    # A claims file of another text is refused.
    other = _file(tmp_path, "Coffee lowers the risk of diabetes. It is tasty.", "other.txt")
    code, printed = run_main(monkeypatch, capsys, "check", str(other), *RUN, "--claims", str(claims))
    assert code == 2 and "written for another text" in printed


def test_ctrl_c_keeps_the_finished_claims_and_resume_finishes(tmp_path, monkeypatch, capsys, services):
    import claimscope.agent.cli.check as cli_check

    shown = cli_check._print_progress

    def interrupt_second(ev):
        if ev.index == 2:
            raise KeyboardInterrupt
        shown(ev)

    monkeypatch.setattr(cli_check, "_print_progress", interrupt_second)
    code, printed = run_main(monkeypatch, capsys, "check", str(_file(tmp_path)), *RUN)
    assert code == 130
    check_id = printed.split("interrupted: check ")[1].split()[0]
    assert "keeps its 1 finished claim" in printed and f"claimscope check --resume {check_id}" in printed
    monkeypatch.setattr(cli_check, "_print_progress", shown)
    code, printed = run_main(monkeypatch, capsys, "check", "--list")
    assert f"{check_id}  interrupted  1/2 claims  release.md" in printed
    code, printed = run_main(monkeypatch, capsys, "check", "--resume", check_id, "-f", "json")
    assert code == 0, printed
    assert "claim 1 of 2" not in printed and "claim 2 of 2: report" in printed
    report, _ = json.JSONDecoder().raw_decode(printed[printed.index("{"):])
    assert report["status"] == "complete" and all(c["report"] for c in report["claims"])


@pytest.mark.parametrize(("content", "name", "words"), [
    (b"", "empty.txt", "the text is empty"),
    (b"   \n\n", "blank.md", "the text is empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR", "picture.txt", "binary file"),
    (b"\xff\xfe\xfdnot utf8", "latin.txt", "not UTF-8"),
    (b"<html><body>hello</body></html>", "page.pdf", "not a PDF"),
    (None, "missing.txt", "is not a file"),
])
def test_bad_input_is_one_line(tmp_path, monkeypatch, capsys, services, content, name, words):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    code, printed = run_main(monkeypatch, capsys, "check", str(path), *RUN)
    assert code == 2
    lines = [line for line in printed.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], printed
    assert "Traceback" not in printed


def test_bad_arguments_are_one_line(tmp_path, monkeypatch, capsys, services):
    code, printed = run_main(monkeypatch, capsys, "check")
    assert code == 2 and "give the text to check" in printed
    code, printed = run_main(monkeypatch, capsys, "check", str(_file(tmp_path)), "--resume", "abc")
    assert code == 2 and "--resume continues a saved check" in printed
    code, printed = run_main(monkeypatch, capsys, "check", "--resume", "nope")
    assert code == 2 and "no check with id 'nope'" in printed
    code, printed = run_main(monkeypatch, capsys, "check", str(_file(tmp_path)), "-c", "nope")
    assert code == 2 and "unknown corpus 'nope'" in printed
