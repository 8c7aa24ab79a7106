"""An abstaining report's explanation is true: it says no document is about the claim's subject only
when no document names it, Greek letters and longer spellings of the name included."""

from __future__ import annotations

from claimscope.agent.assemble import _evidence_gap
from claimscope.tools.models import Document

CLAIM = "aPKCz causes tumour suppression by affecting glutamine metabolism."


def _state(docs: dict[str, Document]) -> dict:
    # the screen found no document on the claim's subject
    return {
        "claim": CLAIM, "status": "no_evidence",
        "documents": {d: {"corpus": "c", "found_by": ["claim"], "score": 0.5} for d in docs},
        "screen": {"checked": len(docs), "evidence": [], "on_subject": [], "without_object": [],
                   "labels": {d: "NEI" for d in docs}},
        "options": {"corpora": ["c"], "sources": ["local"]},
    }


def test_none_is_about_the_subject_only_when_none_names_it():
    pkc = {"p": Document(id="p", title="Control of Nutrient Stress-Induced Metabolic Reprogramming by PKCζ in "
                                      "Tumorigenesis", sentences=["PKCζ loss enhances glutamine use."])}
    assert not any("None of them is about" in s for s in _evidence_gap(_state(pkc), pkc).summary)
    other = {"q": Document(id="q", title="Glutamine metabolism in pancreatic cancer",
                           sentences=["KRAS drives glutamine use."])}
    assert "None of them is about aPKCz." in _evidence_gap(_state(other), other).summary
