"""Explain: from evidence to what a user reads. Owns the perspective summaries per aspect and
stance, the per-document takeaways and local labels, the global explanation and its attribution
check.

Method: "Faithful reasoning over scientific claims" (Tan et al.; docs/methods/explanations.md). Per
abstract a takeaway (unrelated abstracts are pruned), a local label on the 7-grade scale with a reason, then
a global explanation that summarises the local explanations (No Evidence excluded) in which every
sentence cites the source sentences it rests on, and a check that traces each sentence to them.

Citations are sentence keys "docid#idx" (idx = 0-based sentence index in Document.sentences, the
same key as tools.models.Segment.key for a one-sentence segment). A citation of a sentence that
is not in the evidence is impossible by construction: the LLM only sees the allowed sentences
numbered [S1]..[Sn] and its output schema only admits the integers 1..n (prompts/*.prompt_for),
and the mapping back to keys rejects anything else, so the model never writes a key itself.

Every LLM step has a documented fallback (tools.llm.LLMError never escapes): perspective ->
the top segment verbatim; takeaway -> the matched sentences (else the last sentence, where
abstracts state their conclusion); local label -> a label from the stance evidence alone;
global explanation -> an extractive explanation built from the strongest attributed sentences;
revision of a sentence that failed the attribution check -> the sentence stays, flagged.

One module per concern: common (lookups, index mapping, defaults), wording (what a sentence states),
perspectives, takeaways, labels (local labels), attribution (the explanation's sentences and their
check), explanation (the global explanation). Import from the package: its names are re-exported here.
"""

from claimscope.tools.explain.attribution import (
    RECITE_MAX_SENTENCES,
    Explanation,
    ExplanationSentence,
    check_attribution,
    check_perspective,
    drop_unsupported_echoes,
    revise_unsupported,
)
from claimscope.tools.explain.common import (
    DEFAULT_ATTRIBUTION_THRESHOLD,
    DEFAULT_CONFLICT_MARGIN,
    EXTRACTIVE_PER_DOCUMENT,
    EXTRACTIVE_SENTENCES,
    SentenceLookup,
    sentence_lookup,
)
from claimscope.tools.explain.explanation import (
    citable_evidence,
    copied_text_reason,
    extractive_explanation,
    findings_explanation,
    global_explanation,
    merge_repeated_sentences,
    sided_quotes,
)
from claimscope.tools.explain.labels import (
    ARGUMENT_FRAMING,
    STANCE_FRAMING,
    ConflictPolicy,
    LocalAssessment,
    assess_document,
    combine_labels,
    label_document,
    local_label,
    sign_check,
    stance_assessment,
    stance_only_label,
)
from claimscope.tools.explain.perspectives import (
    Perspective,
    perspective_summary,
)
from claimscope.tools.explain.takeaways import (
    Takeaway,
    takeaway,
)
from claimscope.tools.explain.wording import (
    CLAIM_ECHO_OVERLAP,
    SIDE_LABELS,
    contradiction,
    factual_part,
    is_claim_echo,
    lexical_support,
)

__all__ = [
    "ARGUMENT_FRAMING",
    "CLAIM_ECHO_OVERLAP",
    "ConflictPolicy",
    "DEFAULT_ATTRIBUTION_THRESHOLD",
    "DEFAULT_CONFLICT_MARGIN",
    "EXTRACTIVE_PER_DOCUMENT",
    "EXTRACTIVE_SENTENCES",
    "Explanation",
    "ExplanationSentence",
    "LocalAssessment",
    "Perspective",
    "RECITE_MAX_SENTENCES",
    "SIDE_LABELS",
    "STANCE_FRAMING",
    "SentenceLookup",
    "Takeaway",
    "assess_document",
    "check_attribution",
    "check_perspective",
    "citable_evidence",
    "combine_labels",
    "contradiction",
    "copied_text_reason",
    "drop_unsupported_echoes",
    "extractive_explanation",
    "factual_part",
    "findings_explanation",
    "global_explanation",
    "is_claim_echo",
    "label_document",
    "lexical_support",
    "local_label",
    "merge_repeated_sentences",
    "perspective_summary",
    "revise_unsupported",
    "sentence_lookup",
    "sided_quotes",
    "sign_check",
    "stance_assessment",
    "stance_only_label",
    "takeaway",
]
