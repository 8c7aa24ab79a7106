"""The report model: versioned, with its own nested models (its schema changes only when
SCHEMA_VERSION does), and load_report, which reads a report back from a model, dict or JSON text.
"""

from __future__ import annotations

import json
from typing import Any, Final, Literal

from pydantic import BaseModel, Field, ValidationError

from claimscope.tools.errors import InputError
from claimscope.tools.models import SentenceKey, Stance
from claimscope.tools.weigh.verdict import Consensus, GlobalLabel, LocalLabel, Verdict

SCHEMA_VERSION: Final = "1"
AttributionStatus = Literal["supported", "interpretation", "dropped"]
SourceStatus = Literal["ok", "cached", "failed", "skipped"]
Format = Literal["md", "json", "html"]


class Citation(BaseModel):
    """A pointer to one sentence of one document, with the sentence itself."""

    doc_id: str
    sentence: int = Field(ge=0, description="0-based sentence index in the document.")
    text: str = Field("", description="The cited sentence as stored in the evidence store.")

    @property
    def key(self) -> str:
        return str(SentenceKey.sentence(self.doc_id, self.sentence))

    @classmethod
    def from_key(cls, key: str, text: str = "") -> Citation:
        """From a sentence key 'docid#idx' (a span cites its first sentence)."""
        parsed = SentenceKey.parse(key)
        return cls(doc_id=parsed.doc_id, sentence=parsed.start, text=text)


class StanceRatios(BaseModel):
    support: float = 0.0
    neutral: float = 0.0
    oppose: float = 0.0


class NodeConsensus(BaseModel):
    """Counts, raw and weighted ratios, score and label of the segments under one aspect."""

    support: int = 0
    neutral: int = 0
    oppose: int = 0
    raw_ratios: StanceRatios = Field(default_factory=StanceRatios)
    weighted_ratios: StanceRatios = Field(default_factory=StanceRatios)
    score: float | None = None
    label: GlobalLabel = GlobalLabel.INSUFFICIENT
    thin: bool = Field(False, description="Fewer segments take a side than a settled consensus needs "
                       "(verdict.min_node_evidence): the label is at most 'leaning', drawn as resting on little.")

    @classmethod
    def from_consensus(cls, c: Consensus) -> NodeConsensus:
        return cls.model_validate(c.model_dump())


class SegmentView(BaseModel):
    """A top segment of an aspect, with its stance toward the claim."""

    doc_id: str
    sentence: int = Field(ge=0)
    text: str
    stance: Stance
    score: float | None = Field(None, description="Ranking score of the segment under the aspect.")


class PerspectiveView(BaseModel):
    """A short summary of what the segments of one stance say about an aspect."""

    stance: Stance
    summary: str
    citations: list[Citation] = Field(default_factory=list)


class HierarchyNode(BaseModel):
    id: str
    name: str
    description: str = ""
    keywords: list[str] = Field(default_factory=list)
    children: list[str] = Field(
        default_factory=list, description="Ids of the child nodes, in order."
    )
    consensus: NodeConsensus | None = None
    designs: str = Field("", description="Study designs by stance under this aspect, e.g. "
                         "'2 RCTs support; 1 cohort study opposes'.")
    perspectives: list[PerspectiveView] = Field(default_factory=list)
    top_segments: list[SegmentView] = Field(default_factory=list)


class Hierarchy(BaseModel):
    root: str = "root"
    nodes: list[HierarchyNode] = Field(default_factory=list)

    def by_id(self) -> dict[str, HierarchyNode]:
        return {n.id: n for n in self.nodes}


class DocumentView(BaseModel):
    """One document that contributed to the verdict."""

    id: str
    title: str = ""
    opening: str = Field("", description="An untitled document's first words, which name it (report.common.source_name).")
    year: int | None = None
    venue: str | None = None
    authors: list[str] = Field(default_factory=list)
    url: str | None = None
    doi: str | None = None
    source: str = "local"
    reputation: float | None = Field(None, ge=0, le=1)
    reputation_components: dict[str, float] = Field(default_factory=dict)
    trust: float | None = Field(None, ge=0, le=1)
    local_label: LocalLabel | None = None
    label_explanation: str = ""
    sign_conflict: bool = Field(
        False, description="The label disagrees in sign with its cited stance."
    )
    disagreement: str = Field("", description="Where two judges read the document differently, what each "
                              "said and which label stands.")
    takeaway: str = ""
    design: str | None = Field(None, description="Study design (tools.appraise.study_design.Design value), when tagged.")
    sample_size: int | None = Field(None, ge=0, description="Participants stated in the abstract.")
    population: str | None = Field(None, description="Who (or what) the study included, a short noun phrase from "
                                   "its title and abstract (tools.appraise.ico.extract_population).")
    intervention: str | None = Field(None, description="Intervention or exposure the finding names (tools.appraise.ico).")
    comparator: str | None = Field(None, description="What the intervention is compared with (tools.appraise.ico).")
    outcome: str | None = Field(None, description="What the finding measured (tools.appraise.ico).")
    retracted: bool = Field(False, description="Retracted (its trust is 0 and it is flagged).")
    notices: list[str] = Field(default_factory=list, description="Retractions, corrections, concerns, described.")
    finding: Citation | None = Field(None, description="The sentence the document's label rests on.")
    direction: Literal["supports", "opposes", "no evidence"] | None = Field(
        None, description="Which way the document's finding points, from its local label.")

    @property
    def link(self) -> str | None:
        """An http(s) link to the document: the URL, else the DOI resolver."""
        if self.url and _is_http(self.url):
            return self.url
        if self.doi:
            return "https://doi.org/" + self.doi.removeprefix("https://doi.org/")
        return None


class VerdictView(BaseModel):
    score: float | None = None
    label: GlobalLabel = GlobalLabel.INSUFFICIENT


class GlobalVerdicts(BaseModel):
    weighted: VerdictView = Field(
        default_factory=VerdictView, description="Weighted by reputation x trust."
    )
    unweighted: VerdictView = Field(default_factory=VerdictView)
    confidence: float = Field(0.0, ge=0, le=1)
    n_documents: int = 0
    n_evidence: int = Field(0, description="Documents whose label is not No Evidence.")

    @classmethod
    def from_verdict(cls, v: Verdict) -> GlobalVerdicts:
        return cls(
            weighted=VerdictView(score=v.weighted_score, label=v.weighted_label),
            unweighted=VerdictView(score=v.unweighted_score, label=v.unweighted_label),
            confidence=v.confidence,
            n_documents=v.n_documents,
            n_evidence=v.n_evidence,
        )


class ExplanationSentenceView(BaseModel):
    text: str
    citations: list[Citation] = Field(default_factory=list)
    status: AttributionStatus = "supported"
    support: float | None = Field(None, ge=0, le=1, description="Attribution support probability.")
    revised_from: str | None = Field(
        None, description="The first wording, when the sentence failed the attribution check and was "
        "revised to what its citations say (verdict.revise_unsupported)."
    )


class ExplanationView(BaseModel):
    sentences: list[ExplanationSentenceView] = Field(default_factory=list)
    mode: Literal["llm", "extractive"] = "llm"


class SourceUsed(BaseModel):
    name: str = Field(description="e.g. 'semantic_scholar' or 'local:scifact'.")
    status: SourceStatus = "ok"
    documents: int = Field(0, ge=0, description="Documents this source contributed.")
    detail: str = ""


class Decision(BaseModel):
    """A choice made by the user in a guided session."""

    step: str
    question: str = ""
    choice: str


class LLMUsageView(BaseModel):
    model: str = ""
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = Field(None, description="None when the provider's price is unknown.")


class TrustSummary(BaseModel):
    converged: bool = True
    oscillating: bool = False
    iterations: int = 0
    edges: int = Field(0, description="Support / refute relations in the document graph.")


class AntiClaimFound(BaseModel):
    """What the search for the opposite claim found that the claim's own searches did not."""

    gathered: int = Field(0, ge=0, description="Documents gathered by all the searches together.")
    only: int = Field(0, ge=0, description="Of those, the ones only the opposite claim's search found.")
    in_report: list[str] = Field(default_factory=list, description="Ids of the report's documents among `only`.")


class EvidenceGap(BaseModel):
    """Why a verdict is "insufficient evidence": what was searched, and what was found instead."""

    queries: list[str] = Field(default_factory=list, description="What was searched (claim, opposite, ...).")
    sources: list[str] = Field(default_factory=list, description="Where, e.g. 'local:scifact'.")
    documents_found: int = Field(0, ge=0, description="Documents the searches returned.")
    documents_read: int = Field(0, ge=0, description="Best-matching documents read for evidence.")
    subject: str = Field("", description="The claim's subject (what evidence must be about).")
    object: str = Field("", description="The claim's object or outcome (what evidence must speak to).")
    on_subject: list[str] = Field(default_factory=list,
                                  description="Ids of documents about the subject that do not address the claim.")
    summary: list[str] = Field(default_factory=list, description="The gap in plain sentences, for the reader.")


# What a reader of a debate claim's report must know before reading its verdict.
DEBATE_NOTE = ("a debate claim: the evidence is arguments for or against it, and the verdict weighs the "
               "arguments found in the sources, not a finding of fact")


class Report(BaseModel):
    """Everything an investigation found, in a stable, versioned shape."""

    schema_version: Literal["1"] = SCHEMA_VERSION
    claim: str
    anti_claim: str | None = None
    anti_claim_found: AntiClaimFound | None = Field(
        None, description="What the opposite claim's search alone found (absent when it was not searched).")
    sub_claims: list[str] = Field(default_factory=list)
    claim_type: str = ""
    claim_kind: str = Field("", description="empirical or debate: how the evidence was read.")
    status: str = "complete"
    hierarchy: Hierarchy = Field(default_factory=Hierarchy)
    documents: list[DocumentView] = Field(default_factory=list, description="The documents weighed for the verdict.")
    quoted_documents: list[DocumentView] = Field(
        default_factory=list, description="Documents an aspect or the explanation quotes that were not weighed for "
        "the verdict (no label); the documents table lists them after `documents`.")
    designs: str = Field("", description="Study designs of the evidence by direction, e.g. "
                         "'3 RCTs and 1 meta-analysis / systematic review support; 2 cohort studies oppose'.")
    verdict: GlobalVerdicts = Field(default_factory=GlobalVerdicts)
    trust: TrustSummary = Field(default_factory=TrustSummary)
    explanation: ExplanationView = Field(default_factory=ExplanationView)
    evidence_gap: EvidenceGap | None = Field(
        None, description="Set when the verdict is 'insufficient evidence': what was searched and not found.")
    sources: list[SourceUsed] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    usage: LLMUsageView = Field(default_factory=LLMUsageView)
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per step.")
    created_at: str | None = Field(None, description="ISO-8601 UTC time the report was assembled.")


def load_report(data: str | dict[str, Any] | Report) -> Report:
    """A Report from JSON text, a dict or a Report, with a readable error when it is not one."""
    if isinstance(data, Report):
        return data
    try:
        if isinstance(data, str):
            data = json.loads(data)
        if (
            isinstance(data, dict)
            and str(data.get("schema_version", SCHEMA_VERSION)) != SCHEMA_VERSION
        ):
            raise InputError(
                f"this report has schema version {data.get('schema_version')!r}; this claimscope "
                f"reads version {SCHEMA_VERSION!r}. Re-run the investigation with this version."
            )
        return Report.model_validate(data)
    except json.JSONDecodeError as exc:
        raise InputError(f"the report is not valid JSON ({exc}).") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"not a claimscope report: {where}: {first['msg']}.") from exc


def _is_http(url: str) -> bool:
    return url.lower().startswith(("http://", "https://"))
