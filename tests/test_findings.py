"""Whether a document's sentence states a finding: one rule set (tools/read/claim_worthiness.py) for
the claims of a text, the sentences shown under an aspect and the sentences an explanation quotes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from claimscope.tools.read.claim_worthiness import is_finding, judge

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("sentence", "finding", "strict"), [
    ("RESULTS Statins reduced fractures by 20%.", True, True),
    ("METHODS Patients were followed for 5 years.", False, False),
    ("This study examined 300 adults with asthma.", False, False),
    # Only the explanation refuses an opening that says what the study did after a lead-in phrase.
    ("Here, using MEG we directly investigated how attention shapes perception.", True, False),
    # A method sentence worded like a finding is a finding for none of them.
    ("Patients who underwent an appendectomy between 2010 and 2012 were retrospectively reviewed.", False, False),
    ("Each adult's claims data were linked with practice variables collected from the dentist.", False, False),
])
def test_the_aspect_step_and_the_explanation_share_the_claim_rules(sentence, finding, strict):
    assert is_finding(sentence) is finding
    assert is_finding(sentence, strict=True) is strict


def test_a_sentence_that_is_no_claim_of_a_text_is_no_finding_of_a_document():
    for sentence in ("Patients who underwent an appendectomy between 2010 and 2012 were retrospectively reviewed.",
                     "Year 10 students were asked to participate in focus groups.",
                     "Whether statins prevent fractures is unclear."):
        assert judge(sentence)[0] != "factual" and not is_finding(sentence) and not is_finding(sentence, strict=True)


def test_one_module_decides_what_states_a_finding():
    defined = [p.relative_to(REPO).as_posix() for folder in ("agent", "tools", "prompts") for p in (REPO / folder).rglob("*.py")
               if re.search(r"^def (?:is_finding|states_a_finding)\b", p.read_text(encoding="utf-8"), re.M)]
    assert defined == ["tools/read/claim_worthiness.py"]
