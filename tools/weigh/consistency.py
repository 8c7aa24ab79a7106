"""The parts of one report read together: the verdict, the direction of the explanation, the root
aspect's consensus and the documents' local labels must not contradict each other.

The verdict weighs documents (their local labels); the aspect tree counts the segments the assess
step classified under it, retrieved by a search of their own. A document can therefore be evidence
for the verdict while none of its sentences was retrieved or classified, and a root built from
classified segments alone then reads "no evidence" beside a "leaning supported" verdict. The root
also counts the sentences the verdict's labels rest on (`verdict_evidence`), and `inconsistencies`
names any contradiction left between the parts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from claimscope.tools.models import SentenceKey, Stance
from claimscope.tools.weigh.verdict import Consensus, GlobalLabel, LocalLabel

_SUPPORTING = {GlobalLabel.GENERALLY_SUPPORTED, GlobalLabel.LEANING_SUPPORTED}
_REFUTING = {GlobalLabel.GENERALLY_REFUTED, GlobalLabel.LEANING_REFUTED}


def label_sign(label: GlobalLabel) -> int:
    """+1 for a supported label, -1 for a refuted one, 0 for controversial or insufficient."""
    return 1 if label in _SUPPORTING else -1 if label in _REFUTING else 0


def verdict_evidence(labels: Mapping[str, tuple[LocalLabel, Sequence[int]]]) -> dict[str, Stance]:
    """Sentence key -> stance of every sentence a document's local label rests on (doc id ->
    (label, cited sentence indices)), for the labels other than No Evidence: the evidence the
    global verdict counts, each sentence with the sign of the label it carries (a stance read for
    the sentence itself could take the other side of its own document's label)."""
    return {str(SentenceKey.sentence(doc_id, i)): Stance.SUPPORT if label.score > 0 else Stance.REFUTE
            for doc_id, (label, cited) in labels.items() if label.score != 0 for i in cited}


def inconsistencies(verdict: GlobalLabel, document_labels: Sequence[LocalLabel], root: Consensus | None,
                    explanation_direction: int | None = None) -> list[str]:
    """What contradicts what among the parts of one report, in plain sentences ([] when they agree).

    `explanation_direction`: the sign of the local labels of the documents the explanation cites
    (+1 supporting, -1 opposing, 0 mixed, None when it cites none)."""
    problems: list[str] = []
    sign = label_sign(verdict)
    polar = [lab for lab in document_labels if lab.score != 0]
    if verdict is not GlobalLabel.INSUFFICIENT and not polar:
        problems.append(f'the verdict is "{verdict}" but no document is labelled as evidence')
    if sign and polar and all(lab.score * sign < 0 for lab in polar):
        problems.append(f'the verdict is "{verdict}" but every document label points the other way')
    if root is not None:
        counted = root.support + root.oppose
        if verdict is not GlobalLabel.INSUFFICIENT and polar and counted == 0:
            problems.append(f'the verdict is "{verdict}" on {len(polar)} labelled document(s) but the root '
                            "aspect counts no supporting or opposing segment")
        root_sign = label_sign(root.label)
        if sign and root_sign and root_sign != sign:
            problems.append(f'the verdict is "{verdict}" but the root aspect reads "{root.label}"')
    if sign and explanation_direction and explanation_direction != sign:
        problems.append(f'the verdict is "{verdict}" but the explanation cites mostly '
                        f"{'supporting' if explanation_direction > 0 else 'opposing'} documents")
    return problems
