"""What the investigation knows about each evidence document beyond its text: editorial notices
(the imported Retraction Watch index, offline; Crossref by DOI when a scholarly source is in use),
its study design and sample size (the model asked about undecided abstracts when trust.design_llm
is on), and the reputation settings that weigh them.
"""

from __future__ import annotations

from collections.abc import Sequence

from claimscope.agent.services import Services
from claimscope.agent.settings import Settings
from claimscope.tools.appraise.retractions import with_notices
from claimscope.tools.appraise.study_design import tagged
from claimscope.tools.appraise.trust import ReputationConfig
from claimscope.tools.errors import InputError, SourceUnavailableError
from claimscope.tools.models import Document


def reputation_config(settings: Settings) -> ReputationConfig:
    """The reputation prior's knobs from the trust.* settings."""
    t = settings.trust
    weights = {**ReputationConfig().weights, "design": t.design_weight}
    return ReputationConfig(prior=t.prior, citation_ref=t.citation_ref, influential_ref=t.influential_ref,
                            half_life_years=t.half_life_years, top_venues=list(t.top_venues), weights=weights,
                            design_scores=dict(t.design_scores))


def enrich_documents(
    docs: dict[str, Document], services: Services, sources: Sequence[str]
) -> tuple[dict[str, Document], list[str]]:
    """`docs` with notices merged (retracted flag set) and design / sample size tagged, and the
    warnings of the lookups that failed (an unreachable Crossref is named once, then not asked)."""
    settings = services.settings
    warnings: list[str] = []
    index = services.retractions
    try:
        size = len(index)
    except InputError as exc:
        warnings.append(str(exc))
        size = 0
    online = settings.search.crossref and any(s != "local" for s in sources)
    out: dict[str, Document] = {}
    for doc_id, doc in docs.items():
        if doc.doi and size:
            doc = with_notices(doc, index.lookup(doc.doi))
        if doc.doi and online:
            try:
                record = services.scholarly.crossref_work(doc.doi)
            except SourceUnavailableError as exc:
                warnings.append(f"crossref: {exc}; retractions and corrections were not checked online")
                online = False
                record = None
            if record is not None:
                doc = with_notices(doc, record.notices)
                if doc.venue is None and record.venue:
                    doc = doc.model_copy(update={"venue": record.venue})
                if record.type and record.type not in doc.publication_types:
                    doc = doc.model_copy(update={"publication_types": [*doc.publication_types, record.type]})
        out[doc_id] = tagged(doc, services.llm if settings.trust.design_llm else None)
    return out, warnings
