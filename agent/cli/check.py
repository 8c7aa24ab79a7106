"""`claimscope check`: check a whole text (a file, or '-' for standard input) claim by claim and
write the report on the text.

Choosing the claims first: `--claims-only` writes the extracted claims as JSON; a person sets
`check_worthy` or rewords `text` there, and `--claims FILE` checks the text with those choices.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

import claimscope.agent.cli.options as opt
from claimscope.agent.check import CheckProgress
from claimscope.agent.cli.root import app
from claimscope.tools.errors import InputError

console = Console(stderr=True, soft_wrap=True)
_ADVICE = "choose another --out."

CLAIMS_HOW_TO = ("Set check_worthy to false to drop a claim or true to check one the rules left out, and reword "
                 "text where it does not read alone; then run `claimscope check FILE --claims THIS_FILE`.")
_SHOWN = ("claim_started", "step_started", "claim_finished", "warning")


def _print_progress(ev: CheckProgress) -> None:
    if ev.kind in _SHOWN:
        style = "bold cyan" if ev.kind == "claim_started" else ("yellow" if ev.kind == "warning" else "")
        line = ev.line().replace("[", r"\[")
        console.print(f"[{style}]{line}[/]" if style else line, highlight=False)


def _read_text(source: str) -> tuple[str, str]:
    """(text, name) of FILE, or of standard input for '-'."""
    from claimscope.tools.find.ingest import read_text_file
    from claimscope.tools.text.text_guard import strip_control

    if source == "-":
        data = sys.stdin.buffer.read()
        if b"\x00" in data[:8192]:
            raise InputError("standard input is binary, not text: pipe in plain text or Markdown, or give a PDF file.")
        try:
            return strip_control(data.decode("utf-8-sig"), keep_newlines=True), ""
        except UnicodeDecodeError as exc:
            raise InputError(f"standard input is not UTF-8 text (byte {exc.start}).") from exc
    path = Path(source)
    return read_text_file(path), path.name


def _claim_edits(path: Path, extracted: list[Any]) -> list[dict[str, Any]]:
    """The person's choices from a claims file written by --claims-only, checked against the text."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read the claims file {path} ({exc}); write it with --claims-only.") from exc
    rows = data.get("claims") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "id" in r for r in rows):
        raise InputError(f"{path} is not a claims file: it needs a \"claims\" list of objects with an \"id\"; "
                         "write one with --claims-only.")
    quotes = {c.id: c.quote for c in extracted}
    for row in rows:
        if "quote" in row and quotes.get(row["id"]) != row["quote"]:
            raise InputError(f"claim {row['id']} of {path} quotes words this text does not have there: the claims "
                             "file was written for another text (run --claims-only on this one).")
    return [{k: row[k] for k in ("id", "text", "check_worthy") if k in row} for row in rows]


@app.command()
@opt.run_option_flags("tools")
def check(
    source: Annotated[str | None, typer.Argument(help="The text to check: a .txt, .md or .pdf file, or - for "
                                                      "standard input.")] = None,
    given: opt.GivenOptions = opt.FROM_FLAGS,
    claims_only: Annotated[bool, typer.Option("--claims-only", help="Only extract the claims and write them as "
                                              "JSON to edit, for --claims.")] = False,
    claims: Annotated[Path | None, typer.Option("--claims", help="A claims file written by --claims-only (and "
                                                "edited): check only the claims it keeps, as worded there.")] = None,
    resume: Annotated[str | None, typer.Option("--resume", help="Continue an interrupted check by its id.")] = None,
    list_checks: Annotated[bool, typer.Option("--list", help="List saved checks and exit.")] = False,
    fmt: opt.Format = "md",
    out: opt.Out = None,
    quiet: opt.Quiet = False,
) -> None:
    """Check every check-worthy claim of a text (press release, abstract, draft answer) against the
    literature and write a report on the text: each claim's span marked by its verdict."""
    from claimscope.agent.check import CheckStore, TextChecker, prepare_check
    from claimscope.agent.cli.interrupt import stoppable
    from claimscope.agent.datadir import open_store
    from claimscope.agent.investigation import Investigator
    from claimscope.agent.report import report_format
    from claimscope.agent.report.text_render import render_text_report
    from claimscope.tools.read.claim_extraction import extract_claims

    report_format(fmt)
    if list_checks:
        from claimscope.agent.services import Services

        for rec in CheckStore(Services().settings).list():
            typer.echo(f"{rec.id}  {rec.status:<11}  {rec.done()}/{len(rec.to_check())} claims  {rec.source or '-'}  "
                       f"{rec.created_at}")
        return
    if resume is None and source is None:
        raise InputError("give the text to check (a .txt, .md or .pdf file, or - for standard input), or "
                         "--resume ID to continue a check.")
    if resume is not None and (source is not None or claims is not None or claims_only):
        raise InputError("--resume continues a saved check with its own text and claims: give no FILE, --claims "
                         "or --claims-only with it.")

    if claims_only:
        text, name = _read_text(source or "-")
        from claimscope.agent.services import Services

        services = Services()
        extraction = extract_claims(text, llm=services.llm, max_chars=services.settings.check.max_text_chars)
        for w in extraction.warnings:
            console.print(f"[yellow]! {w}[/]", highlight=False)
        payload = {"source": name, "how_to": CLAIMS_HOW_TO,
                   "claims": [c.model_dump(mode="json") for c in extraction.claims]}
        opt.write_output(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", out, console, what="the claims", advice=_ADVICE, nl=False)
        return

    inv = Investigator()
    open_store(inv.services)
    checker = TextChecker(inv)
    if resume is not None:
        record = checker.store.load(resume)
    else:
        text, name = _read_text(source or "-")
        opts = given.to_options(inv.services.settings)
        edits = _claim_edits(claims, extract_claims(text, max_chars=inv.services.settings.check.max_text_chars).claims) \
            if claims is not None else None
        record = prepare_check(text, inv.services, opts, source=name, edits=edits)
        for w in record.warnings:
            console.print(f"[yellow]! {w}[/]", highlight=False)
        n = len(record.to_check())
        rest = len(record.claims) - n
        console.print(f"check {record.id}: {n} check-worthy claim{'s' if n != 1 else ''}, "
                      f"{rest} part{'s' if rest != 1 else ''} not check-worthy", highlight=False)
    try:
        with stoppable():
            report = checker.run(record, on_event=None if quiet else _print_progress)
    except KeyboardInterrupt:
        done = len(record.outcomes)
        console.print(f"interrupted: check {record.id} keeps its {done} finished claim{'s' if done != 1 else ''}; "
                      f"continue it with `claimscope check --resume {record.id}`.", markup=False, highlight=False)
        raise typer.Exit(130) from None
    console.print(f"check {record.id}: {report.status}", highlight=False)
    opt.write_output(render_text_report(report, fmt), out, console, what="the report", advice=_ADVICE, nl=False)
