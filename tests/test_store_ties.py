"""Equal scores are ordered by point id, so a store reopened from disk ranks like the one that built it."""

from __future__ import annotations

import itertools

from claimscope.tools.find.store import EvidenceStore
from claimscope.tools.models import Document
from tests.fakes import HashEmbedder


def test_tied_results_are_ordered_the_same_after_reopening(tmp_path):
    # Word-order permutations: distinct documents whose dense and keyword scores are identical.
    words = ["vitamin", "d", "prevents", "colds"]
    docs = [Document(id=f"d{i}", title="Same title", sentences=[" ".join(p) + "."])
            for i, p in enumerate(itertools.islice(itertools.permutations(words), 12))]
    store = EvidenceStore(HashEmbedder(), path=tmp_path / "q")
    store.add_documents(reversed(docs), corpus="c")
    before = [h.segment.key for h in store.search_segments("vitamin d colds", k=5)]
    store.close()
    again = EvidenceStore(HashEmbedder(), path=tmp_path / "q")
    after = [h.segment.key for h in again.search_segments("vitamin d colds", k=5)]
    again.close()
    assert before == after and len(before) == 5
