"""The explain step's work on a set of local labels: the global explanation, the attribution check
of its sentences, their revision and the handling of restatements of the claim, as configured in
`verdict.*`. The step (`steps.py`) and the explanation benchmarks call it alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from claimscope.agent.services import Services
from claimscope.tools.explain import (
    check_attribution,
    citable_evidence,
    drop_unsupported_echoes,
    extractive_explanation,
    findings_explanation,
    global_explanation,
    revise_unsupported,
    sided_quotes,
)
from claimscope.tools.models import StanceScorer


def explain_claim(claim: str, local: list[Any], get: Callable[[str], str | None], services: Services,
                  llm: Any = None, anti_claim: str | None = None,
                  titles: Callable[[str], str] | None = None, arguments: StanceScorer | None = None) -> Any:
    """Global explanation (LLM, extractive fallback inside), the attribution check of every
    sentence against the sentences it cites, the revision of failing ones when configured, and the
    removal of failing restatements of the claim or `anti_claim` (verdict.unsupported_claim_echoes):
    the explain step on these local labels (`llm` defaults to the services' model; the explanation
    benchmark passes a memo of it). With `arguments` (the argument model of a debate claim) the
    strongest arguments are quoted instead."""
    llm = llm if llm is not None else services.llm
    v = services.settings.verdict
    if arguments is not None:
        # A debate claim's evidence is arguments, each one sentence a reader weighs as written:
        # restating it ("The study found that ...") would only misname it, so they are quoted.
        expl = sided_quotes(extractive_explanation(claim, local, get, arguments), local)
        return check_attribution(expl, get, services.stance, threshold=v.attribution_threshold,
                                 mode=v.unsupported_sentences, min_overlap=v.attribution_overlap)
    if v.explanation_style == "findings":
        expl = findings_explanation(claim, local, llm, get_sentence=get, scorer=services.stance, titles=titles,
                                    threshold=v.attribution_threshold, min_overlap=v.attribution_overlap)
    else:
        expl = global_explanation(claim, local, llm, get_sentence=get, scorer=services.stance)
    expl = check_attribution(expl, get, services.stance, threshold=v.attribution_threshold,
                             mode=v.unsupported_sentences, min_overlap=v.attribution_overlap,
                             recite_from=citable_evidence(local, get),
                             recite_within_documents=v.recite_within_documents)
    if v.revise_unsupported and any(s.status != "supported" for s in expl.sentences):
        expl = revise_unsupported(claim, expl, get, llm, services.stance,
                                  threshold=v.attribution_threshold, min_overlap=v.attribution_overlap)
    return handle_claim_echoes(expl, claim, anti_claim, local, get, services)


def handle_claim_echoes(expl: Any, claim: str, anti_claim: str | None, local: list[Any],
                        get: Callable[[str], str | None], services: Services) -> Any:
    """verdict.unsupported_claim_echoes on a checked explanation: "drop" drops the sentences that
    only restate the claim (or `anti_claim`) without support; when nothing is left to read, the
    extractive explanation of `local` is shown instead. "flag" leaves them as interpretation."""
    v = services.settings.verdict
    if v.unsupported_claim_echoes != "drop":
        return expl
    kept = drop_unsupported_echoes(expl, [claim, *([anti_claim] if anti_claim else [])])
    if expl.visible and not kept.visible:
        # All the LLM said was the claim itself, unsupported: treated as a failed LLM explanation.
        fallback = check_attribution(extractive_explanation(claim, local, get, services.stance), get,
                                     services.stance, threshold=v.attribution_threshold,
                                     mode=v.unsupported_sentences, min_overlap=v.attribution_overlap)
        fallback.warnings[:0] = [*kept.warnings, "The LLM explanation only restated the claim; an extractive "
                                 "explanation is shown."]
        # the dropped wording stays in the record (and in the attribution rate, as failures)
        return fallback.model_copy(update={"sentences": [*kept.sentences, *fallback.sentences]})
    return kept
