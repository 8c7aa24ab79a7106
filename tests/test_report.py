"""Report model and renderers: snapshots (UPDATE_SNAPSHOTS=1 rewrites them), escaping of user
text, citations that resolve to anchors, schema versioning."""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser
from pathlib import Path

import pytest

from claimscope.agent.report import (
    Citation,
    Decision,
    DocumentView,
    ExplanationSentenceView,
    ExplanationView,
    GlobalVerdicts,
    Hierarchy,
    HierarchyNode,
    LLMUsageView,
    NodeConsensus,
    PerspectiveView,
    Report,
    SegmentView,
    SourceUsed,
    TrustSummary,
    cited_sentences,
    load_report,
    md_escape,
    render,
    render_html,
    render_json,
    render_markdown,
)
from claimscope.tools.errors import InputError
from claimscope.tools.models import Stance
from claimscope.tools.weigh.verdict import LocalItem, LocalLabel, aspect_consensus, global_verdict

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"


def fixture_report() -> Report:
    s1 = "Vitamin D supplementation reduced hip fractures by 20% in adults over 65."
    s2 = "No effect of vitamin D on fracture risk was found in community-dwelling adults."
    s3 = "Combined calcium and vitamin D lowered fracture incidence in nursing home residents."
    root_c = aspect_consensus(
        [(Stance.SUPPORT, 0.6), (Stance.SUPPORT, 0.5), (Stance.REFUTE, 0.3), (Stance.NEUTRAL, 0.4)]
    )
    pop_c = aspect_consensus([(Stance.SUPPORT, 0.6), (Stance.REFUTE, 0.3)])
    dose_c = aspect_consensus([])
    verdict = global_verdict(
        [
            LocalItem(doc_id="d1", label=LocalLabel.MOSTLY_TRUE, reputation=0.8, trust=0.7),
            LocalItem(doc_id="d2", label=LocalLabel.SOMEWHAT_FALSE, reputation=0.5, trust=0.4),
            LocalItem(doc_id="10.1000/x#y", label=LocalLabel.TRUE, reputation=0.6, trust=0.6),
            LocalItem(doc_id="d4", label=LocalLabel.NO_EVIDENCE, reputation=0.5, trust=0.5),
        ]
    )
    return Report(
        claim="Vitamin D <b>prevents</b> fractures in older adults & *everyone*",
        anti_claim="Vitamin D does not prevent fractures in older adults",
        sub_claims=["there exists information about vitamin D and fractures"],
        claim_type="causal",
        hierarchy=Hierarchy(
            root="root",
            nodes=[
                HierarchyNode(
                    id="root",
                    name="Vitamin D and fractures",
                    description="The claim as a whole.",
                    children=["n1", "n2"],
                    consensus=NodeConsensus.from_consensus(root_c),
                ),
                HierarchyNode(
                    id="n1",
                    name="Population",
                    description="Who was studied <script>alert(1)</script>.",
                    keywords=["elderly", "nursing home"],
                    consensus=NodeConsensus.from_consensus(pop_c),
                    designs="1 RCT supports; 1 cohort study opposes",
                    perspectives=[
                        PerspectiveView(
                            stance=Stance.SUPPORT,
                            summary="Trials in the elderly found fewer fractures.",
                            citations=[Citation(doc_id="d1", sentence=2, text=s1)],
                        ),
                    ],
                    top_segments=[
                        SegmentView(
                            doc_id="d1", sentence=2, text=s1, stance=Stance.SUPPORT, score=0.91
                        ),
                        SegmentView(
                            doc_id="d2", sentence=0, text=s2, stance=Stance.REFUTE, score=0.75
                        ),
                    ],
                ),
                HierarchyNode(
                    id="n2",
                    name="Dose",
                    description="How much.",
                    children=["n2.1"],
                    consensus=NodeConsensus.from_consensus(dose_c),
                ),
                HierarchyNode(id="n2.1", name="Daily <dose>", consensus=NodeConsensus.from_consensus(dose_c)),
            ],
        ),
        documents=[
            DocumentView(
                id="d1",
                title="Vitamin D and hip fracture: a trial",
                year=2012,
                venue="NEJM",
                url="https://example.org/d1",
                reputation=0.8,
                reputation_components={"citations": 0.9, "venue": 0.7},
                trust=0.7,
                local_label=LocalLabel.MOSTLY_TRUE,
                label_explanation="Large trial, fewer fractures.",
                takeaway="Supplementation reduced hip fractures.",
                design="rct",
                sample_size=2686,
                population="women aged 65 & over",
                intervention="cholecalciferol 800 IU",
                comparator="placebo & calcium",
                outcome="hip fracture incidence",
                finding=Citation(doc_id="d1", sentence=2, text=s1),
                direction="supports",
                notices=["correction (Crossref, 2013-05-04; 10.1000/corr)"],
            ),
            DocumentView(
                id="d2",
                title="A null result",
                year=2019,
                url="javascript:alert(1)",
                reputation=0.5,
                trust=0.4,
                local_label=LocalLabel.SOMEWHAT_FALSE,
                sign_conflict=True,
                takeaway="No effect found.",
                design="cohort",
                population="community-dwelling adults",
                direction="opposes",
            ),
            DocumentView(
                id="10.1000/x#y",
                title="Calcium plus D",
                doi="10.1000/x",
                reputation=0.0,
                trust=0.0,
                local_label=LocalLabel.TRUE,
                retracted=True,
                notices=["retraction (Retraction Watch, 2023-09-27; 10.1000/retr): Paper Mill <b>"],
                finding=Citation(doc_id="10.1000/x#y", sentence=1, text=s3),
                direction="supports",
            ),
        ],
        designs="1 RCT and 1 study of unknown design support; 1 cohort study opposes",
        verdict=GlobalVerdicts.from_verdict(verdict),
        trust=TrustSummary(converged=True, iterations=17, edges=4),
        explanation=ExplanationView(
            sentences=[
                ExplanationSentenceView(
                    text="Most trials in older adults report fewer fractures.",
                    citations=[
                        Citation(doc_id="d1", sentence=2, text=s1),
                        Citation.from_key("10.1000/x#y#1", s3),
                    ],
                    status="supported",
                    support=0.88,
                ),
                ExplanationSentenceView(
                    text="Community cohorts disagree.",
                    citations=[Citation(doc_id="d2", sentence=0, text=s2)],
                    status="interpretation",
                    support=0.31,
                ),
                ExplanationSentenceView(
                    text="This sentence was dropped.",
                    status="dropped",
                    support=0.05,
                    citations=[Citation(doc_id="d2", sentence=0, text=s2)],
                ),
            ],
        ),
        sources=[
            SourceUsed(name="local:scifact", documents=3),
            SourceUsed(name="semantic_scholar", status="failed", detail="offline"),
        ],
        warnings=["trust propagation used 17 iterations"],
        decisions=[Decision(step="hierarchy", question="Keep these aspects?", choice="yes")],
        usage=LLMUsageView(model="embedded", calls=12, prompt_tokens=9000, completion_tokens=1200),
        timings={"analyse": 1.5, "gather": 3.25, "explain": 10.0},
    )


def _check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("UPDATE_SNAPSHOTS") == "1" or not path.exists():
        if not path.exists() and os.environ.get("UPDATE_SNAPSHOTS") != "1":
            pytest.fail(f"snapshot {path} missing; run with UPDATE_SNAPSHOTS=1 to create it")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} differs; UPDATE_SNAPSHOTS=1 rewrites it"
    )


@pytest.mark.parametrize(
    ("name", "fn"),
    [("report.json", render_json), ("report.md", render_markdown), ("report.html", render_html)],
)
def test_snapshots(name, fn):
    _check_snapshot(name, fn(fixture_report()))


def test_json_round_trip_and_dispatch():
    rep = fixture_report()
    text = render_json(rep)
    back = load_report(text)
    assert back == rep
    assert json.loads(text)["schema_version"] == "1"
    assert render(rep.model_dump(mode="json"), "md") == render_markdown(rep)
    assert render(text, "html") == render_html(rep)


def test_schema_version_and_bad_input_are_clear_errors():
    data = fixture_report().model_dump(mode="json")
    data["schema_version"] = "2"
    with pytest.raises(InputError, match="schema version"):
        load_report(data)
    with pytest.raises(InputError, match="not valid JSON"):
        load_report("{nope")
    with pytest.raises(InputError, match="not a claimscope report"):
        load_report({"hierarchy": []})
    with pytest.raises(InputError):
        render(fixture_report(), "pdf")  # type: ignore[arg-type]
    with pytest.raises(InputError):
        Citation.from_key("no-index")


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])


def test_html_escapes_user_text_and_links_resolve():
    page = render_html(fixture_report())
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "<b>prevents</b>" not in page and "&lt;b&gt;prevents&lt;/b&gt;" in page
    assert "javascript:" not in page
    assert "https://doi.org/10.1000/x" in page
    p = _Collect()
    p.feed(page)
    assert "script" not in p.tags and "link" not in p.tags and "img" not in p.tags  # self-contained
    internal = [h for h in p.hrefs if h.startswith("#")]
    assert internal, "citations should link to anchors"
    for h in internal:
        assert h[1:] in p.ids, f"dangling citation link {h}"
    for h in p.hrefs:
        assert h.startswith(("#", "https://"))


def test_every_cited_sentence_appears_in_sources():
    rep = fixture_report()
    cited = cited_sentences(rep)
    assert cited["10.1000/x#y"] == {1: rep.explanation.sentences[0].citations[1].text}
    page = render_html(rep)
    for sents in cited.values():
        for text in sents.values():
            assert text.replace("&", "&amp;") in page


def test_markdown_escapes_and_marks_statuses():
    md = render_markdown(fixture_report())
    assert "<b>" not in md and "\\<b\\>" in md
    assert "\\*everyone\\*" in md
    assert "(interpretation" in md
    assert "This sentence was dropped." not in md
    assert "javascript:" not in md
    assert md_escape("a\nb [x](y)") == "a b \\[x\\](y)"


def test_revised_sentences_are_marked_with_their_first_wording():
    rep = fixture_report()
    first = rep.explanation.sentences[0]
    rep.explanation.sentences[0] = first.model_copy(update={"revised_from": "Vitamin D <b>cures</b> colds."})
    md = render_markdown(rep)
    assert "(revised to what the cited sentences say)" in md and "cures" not in md
    page = render_html(rep)
    assert "first wording: Vitamin D &lt;b&gt;cures&lt;/b&gt; colds." in page and "<b>cures" not in page


def test_empty_report_renders():
    rep = Report(claim="x")
    for fmt in ("md", "json", "html"):
        assert "x" in render(rep, fmt)
    assert "insufficient evidence" in render_markdown(rep)


class _Balance(HTMLParser):
    VOID = frozenset({"meta", "br", "img", "link", "input", "hr"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()
        else:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")


@pytest.mark.parametrize("rep", [fixture_report(), Report(claim="x")], ids=["full", "empty"])
def test_html_is_well_formed(rep):
    p = _Balance()
    p.feed(render_html(rep))
    assert p.errors == [] and p.stack == []


@pytest.mark.parametrize("fn", [render_json, render_markdown, render_html])
def test_retraction_and_evidence_table_reach_every_format(fn):
    rep = fixture_report()
    text = fn(rep)
    # The retracted document is flagged with its notice, and the evidence table shows design,
    # population and size, intervention / comparator / outcome and the quoted finding with its cite key.
    assert "RETRACTED" in text or '"retracted": true' in text
    assert "Paper Mill" in text
    assert "2686" in text
    # Population beside the size, escaped per format; a population without a stated size stands alone.
    assert {render_html: "women aged 65 &amp; over (n = 2686)", render_markdown: "women aged 65 & over (n = 2686)",
            render_json: '"population": "women aged 65 & over"'}[fn] in text
    assert "community-dwelling adults" in text
    assert "lowered fracture incidence" in text
    # What the finding compares: intervention, comparator (escaped per format) and outcome.
    assert "cholecalciferol 800 IU" in text and "hip fracture incidence" in text
    assert {render_html: "placebo &amp; calcium", render_markdown: "placebo & calcium",
            render_json: '"comparator": "placebo & calcium"'}[fn] in text
    if fn is not render_json:
        assert "Evidence table" in text
        assert "[3:1]" in text
        assert "1 RCT supports; 1 cohort study opposes" in text
    else:
        loaded = load_report(text)
        assert loaded.documents[2].retracted and loaded.documents[0].design == "rct"


def test_unflagged_report_has_no_retraction_mark():
    rep = fixture_report()
    rep.documents[2] = rep.documents[2].model_copy(update={"retracted": False, "notices": []})
    for fn in (render_markdown, render_html):
        assert "RETRACTED" not in fn(rep)


@pytest.mark.parametrize("fn", [render_markdown, render_html])
def test_aspects_without_evidence_are_named_once_not_drawn(fn):
    out = fn(fixture_report())
    assert "(no segments)" not in out and "+0 / =0 / -0" not in out
    assert out.count("How much.") == 0
    line = "Dose (Daily \\<dose\\>)" if fn is render_markdown else "Dose (Daily &lt;dose&gt;)"
    assert line in out


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_status_words_unnamed_sources_and_the_opposite_claims_finds_read_as_words(fmt):
    """A finished no-evidence session read 'Status: no_evidence'; a cited document the report does not
    list read '103 (103)'; the opposite claim's search showed no figure a reader could check."""
    from claimscope.agent.report import AntiClaimFound, Citation, ExplanationSentenceView

    rep = fixture_report()
    first = rep.documents[0].id
    rep = rep.model_copy(update={
        "status": "no_evidence",
        "anti_claim_found": AntiClaimFound(gathered=56, only=6, in_report=[first]),
        "explanation": rep.explanation.model_copy(update={"sentences": [
            *rep.explanation.sentences,
            ExplanationSentenceView(text="Another study agrees.", citations=[Citation(doc_id="103", sentence=0,
                                                                                      text="It agrees.")])]}),
    })
    text = render(rep, fmt)
    assert "no_evidence" not in text and "Status:" in text and "no evidence" in text
    assert "103 (103)" not in text and "103</strong>" not in text
    assert "a document not among those weighed" in text
    assert "6 of the 56 documents gathered; #1 of the documents below" in text


@pytest.mark.parametrize("fn", [render_markdown, render_html])
def test_a_sentence_a_perspective_quotes_is_not_listed_again(fn):
    rep = fixture_report()
    node = rep.hierarchy.by_id()["n1"]
    s1 = node.top_segments[0].text
    node.perspectives[0].summary = f'"{s1}"'  # the perspective quotes its finding whole
    out = fn(rep)
    aspect = out[out.index(">Population<" if fn is render_html else "**Population**"):out.index("Dose")]
    if fn is render_html:  # a citation previews its sentence, so look for the quote list's markup
        assert f"&ldquo;{s1[:40]}" not in aspect and f"&ldquo;{node.top_segments[1].text[:40]}" in aspect
    else:
        assert aspect.count(s1[:40]) == 1  # quoted once, by the perspective
        assert node.top_segments[1].text[:40] in aspect  # the other finding is still listed
