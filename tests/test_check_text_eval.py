"""evals.check_text on a tiny text with the scripted model: the texts builder, the run's outputs and
the measures' arithmetic against readers' marks."""

from __future__ import annotations

import json

from evals.check_text import (
    EvalText,
    GoldClaim,
    Judgement,
    ReaderClaim,
    RejectedSentence,
    build_texts,
    build_tune_texts,
    extract_texts,
    investigate_texts,
    read_outputs,
    run_texts,
    score,
    score_tune,
)
from tests.investigation_fixtures import make_services

TEXT = ("Vitamin D supplementation prevents respiratory infections. We believe it is wonderful. "
        "Monthly high-dose vitamin D does not reduce infections in adults.")


def test_the_builder_writes_abstracts_labelled_paragraphs_and_opinions(tmp_path):
    (tmp_path / "pubmedqa").mkdir()
    (tmp_path / "scifact").mkdir()
    (tmp_path / "pubmedqa" / "ori_pqal.json").write_text(json.dumps({
        str(i): {"CONTEXTS": [f"Background {i} is here.", "Results were clear."], "LONG_ANSWER": "It works."}
        for i in range(3)}))
    rows = [{"id": 1, "claim": "A reduces B.", "evidence": {"9": [{"label": "SUPPORT"}]}},
            {"id": 2, "claim": "C raises D.", "evidence": {"8": [{"label": "CONTRADICT"}]}},
            {"id": 3, "claim": "E causes F.", "evidence": {}},
            {"id": 4, "claim": "G mixed H.", "evidence": {"7": [{"label": "SUPPORT"}, {"label": "CONTRADICT"}]}}]
    (tmp_path / "scifact" / "claims_train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    texts = build_texts(n_press=2, n_frosc=2, shared=tmp_path)
    assert [t.kind for t in texts].count("press_release") == 2 and [t.kind for t in texts].count("opinion") == 3
    for t in (t for t in texts if t.kind == "frosc"):
        assert sorted(g.verdict for g in t.gold) == ["insufficient evidence", "refuted", "supported"]
        assert {t.text[g.start:g.end] for g in t.gold} <= {"A reduces B.", "C raises D.", "E causes F."}
        assert "G mixed H." not in t.text


def test_run_and_score_on_a_tiny_text(tmp_path):
    text = EvalText(id="frosc-01", kind="frosc", text=TEXT, gold=[
        GoldClaim(start=0, end=58, verdict="supported"),
        GoldClaim(start=TEXT.index("Monthly"), end=len(TEXT), verdict="refuted")])
    out = tmp_path / "outputs"
    services = make_services(tmp_path)
    run_texts([text], services, out, {"corpora": ["fixture"], "sources": ["local"], "depth": 1})
    outputs = read_outputs(out)
    claims = outputs["frosc-01"]["report"]["claims"]
    assert [c["id"] for c in claims] == ["c1", "c3"] and outputs["frosc-01"]["n_extracted"] == 3
    # A second run skips the text already checked.
    run_texts([text], services, out, {"corpora": ["fixture"], "sources": ["local"], "depth": 1})
    assert services.llm.scripted.calls.count("anti_claim") == 2

    readers = [ReaderClaim(text_id="frosc-01", reader="A", start=0, end=58),
               ReaderClaim(text_id="frosc-01", reader="A", start=59, end=86),  # the opinion: not found
               ReaderClaim(text_id="frosc-01", reader="A", start=TEXT.index("Monthly"), end=len(TEXT))]
    judged = [Judgement(text_id="frosc-01", claim_id="c1", reader="A", accept=True, span_correct=True),
              Judgement(text_id="frosc-01", claim_id="c3", reader="A", accept=False, span_correct=True)]
    result = score([text], outputs, readers, judged)
    assert result["n_texts"] == 1 and result["claim_recall"] == round(2 / 3, 4)
    assert result["claim_precision"] == 0.5 and result["span_correct"] == 1.0
    verdicts = [c["verdict"] for c in claims]
    hits = [v == g for v, g in zip(verdicts, ("supported", "refuted"), strict=True)]
    assert result["n_verdict_claims"] == 2 and (result["verdict_macro_f1"] == 1.0) == all(hits)
    assert result["seconds_per_claim"] is not None and result["seconds_per_claim"] >= 0
    # Without labels the reader measures are None, not zero.
    bare = score([text], outputs, [], [])
    assert bare["claim_recall"] is None and bare["claim_precision"] is None
    assert any("claim_precision and span_correct are null" in n for n in bare["notes"])
    assert not any("are null" in n for n in result["notes"])


def test_every_text_is_extracted_first_and_only_the_labelled_paragraphs_investigated(tmp_path):
    frosc = EvalText(id="frosc-01", kind="frosc", text=TEXT, gold=[GoldClaim(start=0, end=58, verdict="supported")])
    press = EvalText(id="pubmedqa-1", kind="press_release", text=TEXT)
    out, packets = tmp_path / "outputs", tmp_path / "judge"
    services = make_services(tmp_path)
    opts = {"corpora": ["fixture"], "sources": ["local"], "depth": 1}
    run_texts([press, frosc], services, out, opts, packets=packets)
    outputs = read_outputs(out)
    assert outputs["frosc-01"]["investigated"] and not outputs["pubmedqa-1"]["investigated"]
    assert {c["status"] for c in outputs["pubmedqa-1"]["report"]["claims"]} == {"pending"}
    assert len(outputs["pubmedqa-1"]["load_before"]) == 3 and outputs["pubmedqa-1"]["extraction_seconds"] >= 0
    # Two investigations (the paragraph's two claims), none for the abstract.
    assert services.llm.scripted.calls.count("anti_claim") == 2
    assert sorted(p.name for p in packets.iterdir()) == ["frosc-01.md", "pubmedqa-1.md"]
    result = score([press, frosc], outputs, [], [])
    assert result["n_texts"] == 2 and result["n_texts_investigated"] == 1 and result["n_verdict_claims"] == 1
    assert result["n_claims_investigated"] == 2 and result["seconds_per_claim"] is not None
    # The flag's kinds: the abstract's claims now, the paragraph left as it was.
    investigate_texts([press, frosc], services, out, kinds=("press_release", "frosc"))
    assert read_outputs(out)["pubmedqa-1"]["investigated"]
    assert services.llm.scripted.calls.count("anti_claim") == 4


def test_an_investigation_cut_short_resumes_with_its_finished_claims(tmp_path, monkeypatch):
    from claimscope.agent.check import TextChecker

    frosc = EvalText(id="frosc-01", kind="frosc", text=TEXT)
    out = tmp_path / "outputs"
    services = make_services(tmp_path)
    extract_texts([frosc], services, out, {"corpora": ["fixture"], "sources": ["local"], "depth": 1})
    real = TextChecker._investigate
    seen: list[str] = []

    def crash_on_second(self, record, claim, *args, **kwargs):
        seen.append(claim.id)
        if len(seen) == 2:
            raise KeyboardInterrupt
        return real(self, record, claim, *args, **kwargs)

    monkeypatch.setattr(TextChecker, "_investigate", crash_on_second)
    try:
        investigate_texts([frosc], services, out)
    except KeyboardInterrupt:
        pass
    assert not read_outputs(out)["frosc-01"]["investigated"]
    monkeypatch.setattr(TextChecker, "_investigate", real)
    investigate_texts([frosc], services, out)
    report = read_outputs(out)["frosc-01"]["report"]
    assert [c["status"] for c in report["claims"]] == ["complete", "complete"]
    # The first claim was not investigated again.
    assert services.llm.scripted.calls.count("anti_claim") == 2


def test_the_strict_tuning_precision_names_merged_cut_and_unresolved_claims():
    text = EvalText(id="t", kind="press_release", text="x" * 200)
    marked = [ReaderClaim(text_id="t", reader="D1", start=0, end=40),
              ReaderClaim(text_id="t", reader="D1", start=42, end=80, refs=["They"]),
              ReaderClaim(text_id="t", reader="D1", start=100, end=160)]
    rejects = [RejectedSentence(text_id="t", reader="D1", start=162, end=190, reason="opinion")]
    claims = {"t": [(0, 40, "Vitamin D prevents colds."),          # one whole reader claim
                    (42, 80, "They also reduce flu."),             # keeps the reader's reference
                    (0, 80, "Vitamin D prevents colds and flu."),  # two reader claims
                    (100, 120, "Zinc shortens colds."),           # a third of a reader claim
                    (100, 190, "Zinc shortens colds; great.")]}   # a claim and a rejected sentence
    out = score_tune([text], claims, marked, rejects)
    # Every span lies mostly inside reader claims: the span-only precision takes them all.
    assert out["claim_precision"] == 1.0
    assert out["claim_precision_strict"] == 0.2
    assert out["strict_faults"] == {"fragment": 1, "not atomic": 2, "not self-contained": 1}


def test_the_second_tuning_set_holds_none_of_the_evaluation_or_first_tuning_texts(tmp_path):
    (tmp_path / "pubmedqa").mkdir()
    (tmp_path / "scifact").mkdir()
    (tmp_path / "pubmedqa" / "ori_pqal.json").write_text(json.dumps({
        str(i): {"CONTEXTS": [f"Background {i} is here."], "LONG_ANSWER": "It works."} for i in range(400)}))
    rows = [{"id": 1, "claim": "A reduces B.", "evidence": {"9": [{"label": "SUPPORT"}]}},
            {"id": 2, "claim": "C raises D.", "evidence": {"8": [{"label": "CONTRADICT"}]}},
            {"id": 3, "claim": "E causes F.", "evidence": {}}]
    (tmp_path / "scifact" / "claims_train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    held_out = {t.id for t in build_texts(shared=tmp_path)} | {t.id for t in build_tune_texts(tmp_path, 1)}
    second = build_tune_texts(tmp_path, 2)
    abstracts = [t.id for t in second if t.id.startswith("pubmedqa-")]
    assert len(abstracts) == 16 and not set(abstracts) & held_out
    assert sum(t.id.startswith("written-") for t in second) == 4
