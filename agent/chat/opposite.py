"""The chat's answer to "what does the anti-claim search add?": what the opposite claim's search
found that the claim's own searches did not, in the report's own figures (its "found only by the
opposite claim's search" line), and what those documents added to the verdict."""

from __future__ import annotations

from typing import Any

from claimscope.agent.assemble import anti_claim_found
from claimscope.agent.chat.questions import Direction, document_direction
from claimscope.agent.chat.wording import cite, count, document_keys, source_text, verb
from claimscope.agent.graph.readers import analysis_record
from claimscope.agent.graph.state import InvestigationState
from claimscope.agent.report.common import gathered_share


def anti_claim_answer(state: InvestigationState, report: dict[str, Any]) -> tuple[str, list[str]]:
    """The answer's text and the sentence keys it cites."""
    anti = str(report.get("anti_claim") or analysis_record(state).get("anti_claim") or "")
    if not anti:
        return "This investigation did not search for the opposite claim.", []
    found = report.get("anti_claim_found")
    if found is None:  # a report written before it said so: the same figures, as the report counts them
        found = anti_claim_found(state, [d["id"] for d in report.get("documents", [])]).model_dump()
    by_id = {d["id"]: d for d in report.get("documents", [])}
    shown = [by_id[d] for d in found["in_report"] if d in by_id]
    search = f'The search for the opposite claim ("{anti.strip().rstrip(".")}")'
    gathered, only = int(found["gathered"]), int(found["only"])
    if not only:
        among = ("the investigation gathered none" if not gathered else
                 "it was not the one document gathered" if gathered == 1 else
                 f"of the {gathered} documents gathered")
        return (f"{search} found no document that the claim's own searches had not found ({among}), "
                "so it added nothing to the verdict."), []
    # one document found, or all of them, is said as such ("1 of the 51 documents ...; none of
    # them is among" read as a slip)
    which = gathered_share(gathered, only) + (" that" if only < gathered else ", which")
    if not shown:
        tail = ("it is not" if only == 1 else "none of them is") + (" among the report's documents, so it "
                                                                     "added nothing to the verdict.")
    elif len(shown) == only:
        tail = ("it is" if only == 1 else "all of them are") + " among the report's documents:"
    else:
        tail = f"{len(shown)} of them {'is' if len(shown) == 1 else 'are'} among the report's documents:"
    lines = [f"{search} found {which} the claim's own searches did not; {tail}"]
    cites: list[str] = []
    for view in shown:
        keys = document_keys(state, view)
        lines.append(f"- {source_text(view)}: {view.get('local_label') or 'not labelled'}{cite(keys)}")
        cites += keys
    if shown:
        ways = [document_direction(v) for v in shown]
        if all(w == "neutral" for w in ways):
            lines.append("None of them gives evidence on the claim, so the search added nothing to the verdict."
                         if len(shown) > 1 else "It gives no evidence on the claim, so the search added "
                         "nothing to the verdict.")
        else:
            added: dict[Direction, int] = {w: ways.count(w) for w in ("oppose", "support") if ways.count(w)}
            lines.append("The verdict weighs what the search added: " + " and ".join(
                f"{count(n, 'source')} that {verb(w, n)}" for w, n in added.items()) + ".")
    return "\n".join(lines), list(dict.fromkeys(cites))
