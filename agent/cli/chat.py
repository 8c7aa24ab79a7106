"""`claimscope chat`: a terminal conversation around investigations."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

import claimscope.agent.cli.options as opt
from claimscope.agent.cli.investigate import _print_event
from claimscope.agent.cli.root import app

console = Console()

HELP = (
    "State a claim to investigate it. Then ask, e.g.: 'which sources oppose the claim?', 'what does the "
    "study say about daily dosing?', 'why is aspect 2 disputed?', 'go deeper on aspect 1', 'ignore source "
    "123 and recompute', 'what does the anti-claim search add?', or any other question. 'continue' resumes "
    "an interrupted step; 'new' starts over with a new claim; 'quit' leaves (the session is kept: "
    "claimscope chat --session ID)."
)


@app.command()
@opt.run_option_flags("sessions")
def chat(
    session: Annotated[str | None, typer.Option(help="Continue this chat session.")] = None,
    given: opt.GivenOptions = opt.FROM_FLAGS,
) -> None:
    """Chat with claimscope: investigate claims and ask follow-ups answered from the evidence."""
    from claimscope.agent.chat import ChatEngine
    from claimscope.agent.investigation import Investigator
    from claimscope.tools.errors import ClaimscopeError

    engine = ChatEngine(Investigator(), session, given.given())
    console.print(f"[bold]claimscope chat[/] — session {engine.session.id}. {HELP}")
    for m in engine.session.messages[-6:]:
        console.print(f"[dim]{m.role}> {m.text[:500]}[/]", markup=True, highlight=False)
    while True:
        try:
            text = console.input("[bold green]you> [/]")
        except EOFError:
            break
        except KeyboardInterrupt:
            console.print("\n(type 'quit' to leave)")
            continue
        low = text.strip().lower()
        if low in ("quit", "exit", ":q"):
            break
        if low in ("help", "?"):
            console.print(HELP)
            continue
        if low == "new":
            engine.expect_claim = True
            console.print("State the new claim.")
            continue
        try:
            reply = engine.handle(text, on_event=_print_event)
        except KeyboardInterrupt:
            # The interrupted step is abandoned; finished steps are checkpointed.
            console.print("[yellow]step cancelled; the session is kept. Type 'continue' to resume it.[/]")
            continue
        except ClaimscopeError as exc:
            console.print(str(exc), style="red", markup=False, highlight=False, soft_wrap=True)
            continue
        console.print(reply.text, markup=False, highlight=False)
    engine.save()
    console.print(f"session saved: claimscope chat --session {engine.session.id}")
