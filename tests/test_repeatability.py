"""evals.repeatability compares stored run logs field by field."""

from evals._harness import ClaimRun
from evals.repeatability import compare


def _state(label: str, score: float, doc_label: str, text: str) -> dict:
    return {"verdict": {"weighted_label": label, "weighted_score": score},
            "assessments": {"d1": {"assessment": {"label": doc_label}}},
            "tree": {"aspect": "root", "children": []},
            "explanation": {"sentences": [{"text": text}]}}


def _log(path, runs):
    path.write_text("".join(ClaimRun(claim_id=c, claim="x", seconds=1.0, state=s).model_dump_json() + "\n"
                            for c, s in runs))
    return path


def test_identical_runs_agree_in_every_field(tmp_path):
    runs = [("1", _state("leaning supported", 0.5, "Mostly True", "A.")), ("2", _state("refuted", -0.6, "False", "B."))]
    out = compare([_log(tmp_path / "a.jsonl", runs), _log(tmp_path / "b.jsonl", runs)])
    assert out["claims"] == 2 and out["claims_identical_in_every_field"] == 2


def test_a_changed_local_label_or_sentence_is_counted_per_field(tmp_path):
    a = _log(tmp_path / "a.jsonl", [("1", _state("leaning supported", 0.5, "Mostly True", "A."))])
    b = _log(tmp_path / "b.jsonl", [("1", _state("leaning supported", 0.5, "No Evidence", "A, reworded."))])
    out = compare([a, b])
    assert out["claims_identical_in_every_field"] == 0
    assert out["same_across_runs"] == {"verdict": 1, "score": 1, "labels": 0, "tree": 1, "explanation": 0}


def test_only_claims_in_every_log_are_compared(tmp_path):
    a = _log(tmp_path / "a.jsonl", [("1", _state("x", 0.1, "True", "A.")), ("2", _state("y", 0.2, "True", "B."))])
    b = _log(tmp_path / "b.jsonl", [("2", _state("y", 0.2, "True", "B."))])
    assert list(compare([a, b])["per_claim"]) == ["2"]
