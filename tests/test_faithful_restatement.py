"""The attribution check against what readers found in explanations: a restatement whose direction,
number or people differ from its cited sentence, one that turns a proposal or a recommendation into
a finding, or one that adds facts, fails whatever a stance model says; and the explanation offers
findings, never a study's aims or methods."""

from __future__ import annotations

from collections.abc import Sequence

from claimscope.tools.explain import (
    Explanation,
    ExplanationSentence,
    check_attribution,
    extractive_explanation,
    sentence_lookup,
)
from claimscope.tools.explain.labels import LocalAssessment
from claimscope.tools.explain.wording import (
    added_terms,
    contradiction,
    overstated,
)
from claimscope.tools.models import Document, Stance, StanceResult
from claimscope.tools.read.claim_worthiness import is_finding
from claimscope.tools.weigh.verdict import LocalLabel

SUPPORT = StanceResult(label=Stance.SUPPORT, support=0.95, neutral=0.03, refute=0.02)


class Credulous:
    """A stance model fooled by shared words: every pair reads as support."""

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[StanceResult]:
        return [SUPPORT for _ in pairs]


MSC = Document(id="msc", title="Mesenchymal stem cells in renal transplantation", sentences=[
    # one clause goes down (rejection), another up (filtration): the sentence as a whole reads no one way
    "Among patients undergoing renal transplant, autologous mesenchymal stem cells compared with induction "
    "therapy were associated with a lower incidence of acute rejection and a higher estimated glomerular "
    "filtration rate at 1 year.",
    "Mesenchymal stem cell induction was associated with a reduced incidence of acute rejection.",
    "The incidence was 70 to 100 per 100,000 people per year.",
    "We propose that Ly49Q is pivotal in switching neutrophils to their polarized morphology.",
    "Thereby, service teams caring for bariatric patients should include at least one mental health provider.",
    "As in the mouse model, human obesity was associated with increased autophagy, and body mass reduction led "
    "to an attenuation of autophagy in the adipose tissue.",
])
GET = sentence_lookup([MSC])


def test_a_term_moved_the_other_way_fails_even_when_the_citation_has_mixed_directions():
    higher = "Autologous mesenchymal stem cells had higher rates of rejection compared to induction therapy."
    assert contradiction(higher, [MSC.sentences[0]]) == "it moves 'reject' the other way from its citation"
    assert contradiction("Mesenchymal stem cells increased the incidence of rejection.", [MSC.sentences[1]])
    # the same term moved the same way, or another term moved, is no contradiction
    assert contradiction("Mesenchymal stem cells gave a lower incidence of acute rejection.", [MSC.sentences[0]]) is None
    assert contradiction("Rejection was lower with mesenchymal stem cells than with induction therapy.",
                         [MSC.sentences[1]]) is None


def test_people_the_citation_does_not_name_fail():
    assert contradiction("Among women, the burden was 70-100 individuals per 100,000 people per year.",
                         [MSC.sentences[2]]) == "it speaks of women, whom its citation does not name"
    assert contradiction("The burden was 70-100 per 100,000 people per year.", [MSC.sentences[2]]) is None


def test_a_proposal_or_a_recommendation_is_not_a_finding():
    found = "The study found that Ly49Q is pivotal in switching neutrophils to their polarized morphology."
    assert overstated(found, [MSC.sentences[3]]) == "it states as found what its citation only proposes"
    assert overstated("The authors propose that Ly49Q is pivotal in switching neutrophils.", [MSC.sentences[3]]) is None
    assert overstated("The study found that bariatric service teams should include a mental health provider.",
                      [MSC.sentences[4]]) == "it reports as found what its citation recommends"


def test_a_restatement_adding_facts_fails():
    added = ("The study found that defective regulation of adipose tissue autophagy in obesity led to increased "
             "autophagy in the adipose tissue.")
    assert added_terms(added, [MSC.sentences[5]]) == ["defect", "regul"]
    assert "it adds defect, regul" in (contradiction(added, [MSC.sentences[5]]) or "")
    assert contradiction("Obesity went with increased autophagy in adipose tissue.", [MSC.sentences[5]]) is None


def test_the_attribution_check_fails_what_readers_found_wrong():
    wrong = [
        ("Autologous mesenchymal stem cells had higher rates of rejection compared to induction therapy.", "msc#0"),
        ("Among women, the burden was 70-100 individuals per 100,000 people per year.", "msc#2"),
        ("The study found that Ly49Q is pivotal in switching neutrophils to their polarized morphology.", "msc#3"),
        ("The study found that defective regulation of adipose tissue autophagy in obesity led to increased "
         "autophagy in the adipose tissue.", "msc#5"),
    ]
    right = ExplanationSentence(text="Mesenchymal stem cells gave a lower incidence of acute rejection.",
                                citations=["msc#0"])
    draft = Explanation(sentences=[*(ExplanationSentence(text=t, citations=[k]) for t, k in wrong), right])
    checked = check_attribution(draft, GET, Credulous(), threshold=0.5, min_overlap=0.5)
    assert [s.status for s in checked.sentences] == ["interpretation"] * 4 + ["supported"]
    assert any("proposes" in w for w in checked.warnings) and any("women" in w for w in checked.warnings)


TRIAL = Document(id="eeg", title="Audiovisual speech and cortical entrainment", sentences=[
    "Here, using MEG we directly investigated how these visual signals interact with rhythmic brain activity.",
    "To determine whether congruence matters, we recorded EEG in 20 listeners.",
    "Neural entrainment to the speech envelope was inhibited when the auditory and visual streams were incongruent.",
])


def test_aims_and_methods_are_not_findings():
    assert not is_finding(TRIAL.sentences[0], strict=True) and not is_finding(TRIAL.sentences[1], strict=True)
    assert not is_finding("OBJECTIVE To explore the association between partnership and survival.", strict=True)
    assert not is_finding("Whether glycemic control can be improved by treating sleep apnea remains unknown.", strict=True)
    assert is_finding(TRIAL.sentences[2], strict=True)
    assert is_finding("RESULTS We found that heavier birth weights went with more breast cancer.", strict=True)


def test_the_explanation_quotes_findings_before_aims_or_methods():
    la = LocalAssessment(doc_id="eeg", label=LocalLabel.MOSTLY_TRUE, explanation="x", score=0.8,
                         cited_sentences=[0, 1, 2])
    ex = extractive_explanation("Seeing congruent speech strengthens auditory entrainment", [la],
                                sentence_lookup([TRIAL]), per_document=2)
    assert [s.citations for s in ex.sentences] == [["eeg#2"]]
    # a document that states only aims still gives the reader something to check
    only = la.model_copy(update={"cited_sentences": [0]})
    assert [s.citations for s in extractive_explanation("x", [only], sentence_lookup([TRIAL])).sentences] == [["eeg#0"]]
