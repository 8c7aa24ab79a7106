"""The follow-up benchmark runner on the scripted fixture investigation: every advertised kind asked
and answered by the tool of its kind, the pool rows readers judge, and the arithmetic of `score`."""

from __future__ import annotations

import json

import pytest

from claimscope.agent.chat import ChatEngine
from claimscope.agent.investigation import Investigator
from evals.followups import (
    KINDS,
    Judgment,
    PoolRow,
    ask,
    main,
    questions_for,
    read_judgments,
    score,
)
from tests.investigation_fixtures import CLAIM, make_services


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> tuple[list[PoolRow], object]:
    tmp = tmp_path_factory.mktemp("followups")
    inv = Investigator(make_services(tmp), persistent=True)
    engine = ChatEngine(inv, None, {"corpora": ["fixture"], "sources": ["local"], "depth": 1})
    engine.handle(CLAIM)
    ticks = iter(range(1000))
    return ask(engine, "fixture", CLAIM, 0, code="test", reports=tmp / "reports",
               clock=lambda: float(next(ticks))), tmp / "reports"


def test_every_kind_is_asked_and_answered_by_its_tool(rows) -> None:
    pool, reports = rows
    assert {r.kind for r in pool} == set(KINDS)
    for r in pool:
        if r.kind != "free":
            assert r.tool == r.kind, (r.question, r.tool)
        assert r.answer and r.seconds == 1.0 and r.code == "test"
        assert not r.unresolved_citations and set(r.cited_sentences) == set(r.citations)
        assert "[]" not in r.answer
        assert (reports / f"{r.report_id}.md").is_file()
    # the questions that re-run steps come last and name the report they produced
    assert [r.kind for r in pool[-2:]] == ["go_deeper", "exclude_source"]
    assert all(r.report_id_after for r in pool[-2:]) and pool[-1].report_id_after != pool[-1].report_id
    assert [r.question_id for r in pool] == [f"fixture:{i}" for i in range(len(pool))]


def test_wordings_rotate_between_investigations(rows) -> None:
    pool, _ = rows
    report = {"documents": [], "hierarchy": {"nodes": []}}
    first, second = questions_for(report, 0), questions_for(report, 1)
    assert [q.text for q in first if q.kind == "show_sources"] != [q.text for q in second if q.kind == "show_sources"]
    assert pool[1].question.startswith("Which sources oppose")


def _j(qid: str, reader: str, correct: str, cites: str = "yes", grammar: str = "yes") -> Judgment:
    return Judgment(question_id=qid, reader=reader, answer_correct=correct, citations_support_answer=cites,
                    grammar_ok=grammar)


def test_score_counts_shares_slips_agreement_and_times(rows) -> None:
    pool, _ = rows
    ids = [r.question_id for r in pool[:4]]
    judgments = [
        _j(ids[0], "ann", "yes"), _j(ids[0], "bob", "yes"),
        _j(ids[1], "ann", "yes"), _j(ids[1], "bob", "no", cites="no"),
        _j(ids[2], "ann", "no", grammar="no"), _j(ids[2], "bob", "no"),
        _j(ids[3], "ann", "yes"),
        _j("elsewhere:0", "ann", "yes"),
    ]
    out = score(pool, judgments)
    assert out["judgments"] == 7 and out["judged_questions"] == 4 and out["readers"] == ["ann", "bob"]
    assert out["answer_correct"] == round(4 / 7, 3)
    assert out["citations_support_answer"] == round(6 / 7, 3)
    assert out["grammar_slips"] == {"count": 1, "share": round(1 / 7, 3), "questions": [ids[2]]}
    agree = out["agreement"]
    assert agree["questions"] == 3 and agree["answer_correct"]["percent"] == round(2 / 3, 3)
    # ann yes,yes,no / bob yes,no,no: observed 2/3, chance 2/3*1/3 + 1/3*2/3 = 4/9 -> kappa 0.4
    assert agree["answer_correct"]["kappa"] == 0.4
    assert agree["grammar_ok"]["percent"] == round(2 / 3, 3)
    assert out["median_seconds_per_kind"]["show_sources"] == 1.0
    assert out["unknown_question_ids"] == ["elsewhere:0"] and out["routed_as_asked"] == 1.0


def test_score_command_reads_files_and_refuses_a_malformed_judgment(rows, tmp_path, capsys) -> None:
    pool, _ = rows
    pool_path, judgments, out = tmp_path / "pool.jsonl", tmp_path / "j.jsonl", tmp_path / "out.json"
    pool_path.write_text("".join(r.model_dump_json() + "\n" for r in pool))
    judgments.write_text(_j(pool[0].question_id, "ann", "yes").model_dump_json() + "\n")
    main(["score", "--pool", str(pool_path), "--judgments", str(judgments), "--out", str(out)])
    result = json.loads(out.read_text())
    assert result["questions"] == len(pool) and result["answer_correct"] == 1.0
    assert result["load_average_at_scoring"] is not None
    judgments.write_text(json.dumps({"question_id": "x", "reader": "ann", "answer_correct": "maybe",
                                     "citations_support_answer": "yes", "grammar_ok": "yes"}) + "\n")
    with pytest.raises(SystemExit, match=r"j.jsonl:1: answer_correct"):
        read_judgments(judgments)


def test_packets_are_blind_deal_whole_investigations_and_carry_the_code(rows, tmp_path) -> None:
    from evals.followups import packets

    pool, reports = rows
    twice = [r.model_copy(update={"investigation": "other", "question_id": f"other:{i}"}) for i, r in enumerate(pool)]
    made = packets(pool + twice, readers=2, second=5, seed=1, folder=tmp_path, reports=reports)
    assert sorted(made) == ["reader-a", "reader-b", "reader-c"]
    assert {i.question_id.split(":")[0] for i in made["reader-a"]} == {"fixture"}
    assert {i.question_id.split(":")[0] for i in made["reader-b"]} == {"other"}
    assert len(made["reader-c"]) == 5
    written = (tmp_path / "test" / "reader-a.jsonl").read_text().splitlines()
    item = json.loads(written[0])
    assert set(item) == {"question_id", "report", "report_after", "question", "answer", "cited_sentences", "judgment"}
    assert "kind" not in written[0] and '"tool"' not in written[0]
    assert item["judgment"]["code"] == "test" and item["judgment"]["reader"] == "reader-a"
    assert (reports / item["report"].rsplit("/", 1)[1]).is_file()


def test_a_judgment_of_another_codes_answer_is_not_counted(rows) -> None:
    pool, _ = rows
    qid = pool[0].question_id
    out = score(pool, [Judgment(question_id=qid, code="older", reader="ann", answer_correct="no",
                                citations_support_answer="no", grammar_ok="no"),
                       Judgment(question_id=qid, code="test", reader="bob", answer_correct="yes",
                                citations_support_answer="yes", grammar_ok="yes")])
    assert out["judgments"] == 1 and out["answer_correct"] == 1.0 and out["judgments_of_other_code"] == [qid]


def test_score_reads_a_folder_of_one_file_per_reader(rows, tmp_path) -> None:
    pool, _ = rows
    folder = tmp_path / "judgments"
    folder.mkdir()
    (folder / "ann.jsonl").write_text(_j(pool[0].question_id, "ann", "yes").model_dump_json() + "\n")
    (folder / "bob.jsonl").write_text(_j(pool[0].question_id, "bob", "no").model_dump_json() + "\n")
    assert sorted(j.reader for j in read_judgments(folder)) == ["ann", "bob"]
