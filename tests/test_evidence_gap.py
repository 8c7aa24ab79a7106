"""The "insufficient evidence" section of a report: what the documents read share with the claim,
said truly (a document sharing "women" with a claim about women's birth weight is not about it)."""

from __future__ import annotations

from claimscope.agent.assemble import _evidence_gap
from claimscope.tools.appraise.ico import names_who_or_where
from claimscope.tools.models import Document

BIRTH = "Women with a lower birth weight are more likely to develop breast cancer later in life"
MALARIA = "Some countries have achieved the goal of eradicting malaria"


def _state(claim: str, docs: dict[str, Document], on_subject: list[str]) -> dict:
    return {
        "claim": claim, "status": "no_evidence",
        "documents": {d: {"corpus": "c", "found_by": ["claim"], "score": 0.5} for d in docs},
        "screen": {"checked": len(docs), "evidence": [], "on_subject": on_subject, "without_object": on_subject,
                   "labels": {d: "NEI" for d in docs}},
        "options": {"corpora": ["c"], "sources": ["local"]},
    }


def _doc(i: str, title: str, *sentences: str) -> Document:
    return Document(id=i, title=title, sentences=list(sentences) or ["We followed a cohort."])


def test_documents_sharing_only_who_the_claim_is_about_are_not_about_its_subject():
    docs = {
        "a": _doc("a", "Combined Impact of Lifestyle-Related Factors on Total and Cause-Specific Mortality among "
                  "Chinese Women", "Body weight, smoking and diet were recorded for 71,243 women."),
        "b": _doc("b", "Plasma vitamin D metabolites and risk of colorectal cancer in women",
                  "We studied 32,826 women in the Nurses' Health Study."),
    }
    gap = _evidence_gap(_state(BIRTH, docs, ["a", "b"]), docs)
    text = " ".join(gap.summary)
    assert "are about women with a lower birth weight" not in text
    assert "2 of them share only some words of its subject (women, weight), not women with a lower birth weight" in text
    assert gap.on_subject == []  # none is about the subject
    # only "women" shared: general terms, named as such
    only_women = {"b": docs["b"]}
    text = " ".join(_evidence_gap(_state(BIRTH, only_women, ["b"]), only_women).summary)
    assert "1 of them shares only general terms with the claim (women)" in text


def test_documents_on_every_specific_term_are_about_the_subject():
    docs = {
        "c": _doc("c", "Birth weight and adult disease", "Women of lower birth weight had more hypertension."),
        "d": _doc("d", "Malaria in Chinese women", "Women were treated for malaria."),
    }
    gap = _evidence_gap(_state(BIRTH, docs, ["c", "d"]), docs)
    text = " ".join(gap.summary)
    assert "1 of them is about women with a lower birth weight but not more likely to develop breast cancer" in text
    assert '"Birth weight and adult disease"' in text and "1 other shares only general terms" in text
    assert gap.on_subject == ["c"]


def test_a_claim_whose_subject_is_only_where_names_no_shared_subject():
    docs = {f"m{i}": _doc(f"m{i}", f"Health spending in {i + 3} countries", "Countries differ.") for i in range(3)}
    text = " ".join(_evidence_gap(_state(MALARIA, docs, list(docs)), docs).summary)
    assert "are about some countries" not in text
    assert "3 of them share only general terms with the claim (countries)" in text


def test_who_or_where_words():
    assert all(names_who_or_where(w) for w in ("women", "Countries", "elderly", "children", "adults"))
    assert not any(names_who_or_where(w) for w in ("weight", "birth", "malaria", "vitamin", "smoking"))
