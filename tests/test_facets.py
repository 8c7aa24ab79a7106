"""Facets of a claim by rules: drawn from the claim's structure and from what the on-claim evidence
varies on, and named by the rules."""

from __future__ import annotations

from claimscope.tools.models import Segment
from claimscope.tools.read.claim_worthiness import is_finding
from claimscope.tools.read.hierarchy import AspectDraft, AspectTree
from claimscope.tools.read.hierarchy.facets import (
    belongs,
    claim_parts,
    facet_drafts,
    find_facets,
    mentions,
    sub_facets,
)
from claimscope.tools.read.relevance import RelationTest, classify_segments
from tests.fakes import HashEmbedder

CLAIM = "Women with a lower birth weight are more likely to develop breast cancer later in life."
SEGMENTS = [
    "Lower birth weight was associated with a higher risk of breast cancer in premenopausal women.",
    "Among postmenopausal women, birth weight was not associated with breast cancer risk.",
    "Birth weight obtained from birth records was inversely associated with breast cancer, whereas "
    "self-reported birth weight based on maternal recall showed no association.",
    "High birth weight was associated with increased breast cancer risk after adjustment for gestational age.",
    "Adjuvant treatment with tamoxifen improved survival of women with breast cancer.",
    "OBJECTIVE We investigated whether birth weight in premenopausal women is associated with breast cancer.",
]


def _on_claim(texts: list[str]) -> list[str]:
    return [t for t, ok in zip(texts, RelationTest(CLAIM).addresses(texts), strict=True) if ok]


def test_claim_parts_split_population_exposure_and_outcome():
    parts = claim_parts(CLAIM)
    assert (parts.population, parts.exposure, parts.outcome) == ("Women", "birth weight", "breast cancer")


def test_birth_weight_facets_come_from_the_evidence_not_from_topics():
    on_claim = _on_claim(SEGMENTS)
    assert SEGMENTS[4] not in on_claim  # treatment of breast cancer does not address the claim
    facets = find_facets(CLAIM, [t for t in on_claim if is_finding(t)], k=5)
    names = [f.name for f in facets]
    assert "menopausal status" in names
    assert "how birth weight was measured" in names
    measured = next(f for f in facets if f.name == "how birth weight was measured")
    assert {"records", "recall", "self-reported"} <= set(measured.terms)
    assert not any("treatment" in n for n in names)
    # Every facet is used by an on-claim segment; none is defined by the claim's own words.
    for f in facets:
        assert f.segments and not any(t in CLAIM.lower() for t in f.terms)


def test_aims_methods_and_background_are_not_findings():
    assert not is_finding(SEGMENTS[5])
    assert not is_finding("Here we examined birth weight and breast cancer in 10000 women.")
    assert not is_finding("BACKGROUND Birth weight has been linked to several adult diseases.")
    assert is_finding(SEGMENTS[0])
    assert is_finding("RESULTS Birth weight was inversely associated with breast cancer in premenopausal women.")


def test_mentions_matches_whole_words_and_variants():
    assert mentions("birth weight from birth records", ["record"])
    assert mentions("self reported weight", ["self-reported"])
    assert not mentions("postmenopausal women", ["menopausal"])


def test_here_we_show_that_states_a_finding():
    # "Here we ..." opens an aim or a method, unless a finding follows: "Here we show that ...".
    assert is_finding("Here, we show that lower birth weight is linked to breast cancer in premenopausal women.")
    assert is_finding("In this study, we found that birth weight was inversely associated with breast cancer.")
    assert not is_finding("Here we report a cohort of 10000 women with birth weight records.")
    assert not is_finding("In this study, we examined birth weight and breast cancer.")


def test_sub_facets_split_a_facet_by_the_values_the_evidence_states():
    drafts = sub_facets(["premenopausal", "postmenopausal"], SEGMENTS[:4], k=3, kind="contrast", claim=CLAIM)
    assert [d.name for d in drafts] == ["premenopausal", "postmenopausal"]
    assert sub_facets(["premenopausal", "perimenopausal"], SEGMENTS[:4], k=3, kind="contrast", claim=CLAIM) == []


def test_an_aims_sentence_is_not_classified_under_a_facet():
    tree = AspectTree.new(CLAIM)
    facets = find_facets(CLAIM, [t for t in _on_claim(SEGMENTS) if is_finding(t)], k=3)
    tree.add_children(tree.ROOT, facet_drafts(facets))
    menopausal = next(n for n in tree.children(tree.ROOT) if n.name == "menopausal status")
    segs = [Segment(doc_id="d1", start=i, end=i + 1, text=t, embed_text=t) for i, t in enumerate(SEGMENTS)]
    assigned = classify_segments(tree, segs, HashEmbedder(dim=64), min_similarity=-1.0)
    assert assigned[segs[0].key] == menopausal.id
    assert assigned[segs[5].key] != menopausal.id  # "OBJECTIVE We investigated ... premenopausal women"
    # a segment that does not use a facet's terms is never under it
    assert all(mentions(s.text, tree.node(assigned[s.key]).terms) for s in segs if assigned[s.key] != tree.ROOT)


def test_the_aspects_setting_chooses_facets_or_proposed_aspects_in_the_graph(tmp_path):
    """hierarchy.aspects: 'proposed' keeps the model's aspects; 'facets' builds the top level from the
    claim's structure, every facet defined by terms and holding at least one segment."""
    from claimscope.agent.graph.state import InvestigationOptions
    from claimscope.agent.investigation import Investigator
    from claimscope.tools.read.hierarchy import AspectTree
    from tests.investigation_fixtures import CLAIM as VITD
    from tests.investigation_fixtures import make_services

    opts = InvestigationOptions(corpora=["fixture"], sources=["local"], depth=1, top_k_aspects=3, top_documents=6)
    tops = {}
    for mode in ("proposed", "facets"):
        services = make_services(tmp_path / mode, hierarchy={"aspects": mode})
        inv = Investigator(services, persistent=False)
        result = inv.run(VITD, opts)
        assert result.status == "complete", result.warnings
        tree = AspectTree.model_validate(inv.state(result.thread_id)["tree"])
        tops[mode] = tree.children("root")
    assert [n.name for n in tops["proposed"]] == ["dosing regimen", "baseline deficiency", "infection type"]
    assert all(not n.terms for n in tops["proposed"])
    assert tops["facets"] and all(n.terms and n.segment_keys for n in tops["facets"])
    assert "population studied" in [n.name for n in tops["facets"]]


# What readers found wrong with facets: a word that only looks like a facet, a facet word about
# something else in the sentence, a generic modifier, synonyms split as subgroups, background quoted.

def test_a_word_that_starts_with_pre_is_not_a_contrast():
    claim = "Bariatric surgery has a deleterious impact on mental health."
    findings = ["The prevalence of depression after bariatric surgery was 19%, and mental health worsened in "
                "10% of patients.",
                "Mental health after bariatric surgery was worse in patients with a high prevalence of anxiety."]
    assert not [f.name for f in find_facets(claim, findings, k=5) if f.kind == "contrast"]


def test_a_measurement_word_far_from_the_exposure_defines_no_facet():
    far = ("Hospital records of 500 mothers were reviewed, and women with a lower birth weight had a higher "
           "breast cancer risk.")
    assert not [f for f in find_facets(CLAIM, [far], k=5) if f.kind == "exposure_measure"]
    near = "Breast cancer risk was higher in women whose lower birth weight came from birth records."
    assert [f.terms for f in find_facets(CLAIM, [near], k=5) if f.kind == "exposure_measure"] == [["records"]]


def test_a_generic_modifier_names_no_type_of_outcome():
    claim = "Obesity increases the risk of breast cancer."
    findings = ["Obesity was associated with common breast cancer subtypes and with invasive breast cancer."]
    types = [f.terms for f in find_facets(claim, findings, k=5) if f.kind == "outcome_type"]
    assert types == [["invasive"]]


def test_background_open_questions_and_advice_are_not_findings():
    assert not is_finding("Mental health conditions may be common among patients seeking bariatric surgery; "
                          "however, whether they are associated with postoperative outcomes remains unknown.")
    assert not is_finding("Thereby, service teams caring for bariatric patients should include at least one "
                          "mental health provider.")
    assert not is_finding("Eligibility criteria for selecting studies Eligible studies examined diagnosis of "
                          "hypertension in adults of all ages.")


def test_sub_facets_split_only_distinct_values_never_wordings_of_one_thing():
    segs = ["High birth weight was associated with breast cancer risk.",
            "Women with higher birth weight had more breast cancer.",
            "Low birth weight was associated with less breast cancer, adjusted for confounders."]
    levels = sub_facets(["high birth weight", "higher birth weight", "low birth weight"], segs, k=3,
                        kind="exposure_level", claim=CLAIM)
    assert [d.name for d in levels] == ["high birth weight", "low birth weight"]
    assert sub_facets(["adjusted", "confounders"], segs, k=3, kind="adjustment", claim=CLAIM) == []


def test_a_facet_word_used_about_something_else_is_not_quoted_under_the_facet():
    tree = AspectTree.new(CLAIM)
    [facet] = tree.add_children(tree.ROOT, [AspectDraft(name="peripheral status", terms=["peripheral"],
                                                        facet="contrast")])
    about = Segment(doc_id="d1", start=0, end=1, text="Birth weight was linked to peripheral breast cancer.",
                    embed_text="x")
    word_only = Segment(doc_id="d2", start=0, end=1, text="Neutrophils are peripheral blood leukocytes that "
                        "defend against infection.", embed_text="y")
    tree.set_segments(facet.id, [(about.key, 1.0)])  # the tree step found only `about` to be about it
    assigned = classify_segments(tree, [about, word_only], HashEmbedder(dim=64), min_similarity=-1.0)
    assert assigned == {about.key: facet.id, word_only.key: tree.ROOT}


def test_a_finding_belongs_to_a_facet_only_when_it_names_the_claims_exposure():
    other = ("Premenopausal women with an interval of 16 years between menarche and first birth had a higher "
             "breast cancer risk than postmenopausal women.")
    about = "Lower birthweight was linked to premenopausal, but not postmenopausal, breast cancer."
    assert not belongs(other, "contrast", ["premenopausal"], CLAIM)  # "first birth" is not birth weight
    assert belongs(about, "contrast", ["premenopausal"], CLAIM)
    levels = [f.terms for f in find_facets(CLAIM, ["High birthweight and higher birth weight were associated with "
                                                   "breast cancer risk."], k=5) if f.kind == "exposure_level"]
    assert levels and len(levels[0]) >= 1
    assert [d.name for d in sub_facets([*levels[0], "low birthweight"], [
        "High birthweight was associated with breast cancer.", "Low birthweight was associated with breast cancer.",
        "Higher birth weight was associated with breast cancer."], k=3, kind="exposure_level", claim=CLAIM)] == [
        "high birthweight", "low birthweight"]
