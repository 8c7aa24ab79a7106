"""From the investigation's final state to the versioned Report (agent/report/)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Any, Literal

from claimscope.agent.graph.readers import (
    analysis_record,
    assessment_records,
    built_tree,
    claim_of,
    consensus_records,
    counted_perspectives,
    counted_stances,
    decisions_of,
    explanation_record,
    gathered_documents,
    load_documents,
    options_of,
    query_plan,
    reputation_records,
    retrieval_score,
    screen_of,
    source_reports,
    stance_records,
    status_of,
    timings_of,
    tree_of,
    trust_record,
    usage_of,
    verdict_of,
    warnings_of,
)
from claimscope.agent.graph.state import InvestigationState, SourceReportRecord
from claimscope.agent.report import (
    AntiClaimFound,
    Citation,
    Decision,
    DocumentView,
    EvidenceGap,
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
    SourceStatus,
    SourceUsed,
    TrustSummary,
)
from claimscope.agent.report.common import opening_words, source_name
from claimscope.agent.services import Services
from claimscope.tools.appraise.ico import document_ico, extract_population, names_who_or_where
from claimscope.tools.appraise.study_design import design_summary, tagged
from claimscope.tools.appraise.trust import rerank
from claimscope.tools.find.sparse import tokenize
from claimscope.tools.models import Document, Notice, SentenceKey, Stance
from claimscope.tools.read.claim_analysis import claim_components
from claimscope.tools.read.coverage import ComponentTerms, component_terms, coverage
from claimscope.tools.read.hierarchy import AspectTree
from claimscope.tools.text.segmenter import without_section_label
from claimscope.tools.weigh.consistency import inconsistencies
from claimscope.tools.weigh.verdict import Consensus, GlobalLabel, LocalLabel

TOP_SEGMENTS_PER_NODE = 5


def build_report(state: InvestigationState, services: Services) -> Report:
    analysis = analysis_record(state)
    meta = gathered_documents(state)
    assessments = assessment_records(state)
    # Documents shown: the assessed ones plus any cited anywhere in the tree or explanation.
    docs = load_documents(state, services, list(assessments) or list(meta)[:20])
    quoted = _cited_doc_ids(state)
    cited = (quoted | set(screen_of(state).get("on_subject", [])[:3])) - set(docs)
    if cited:
        docs.update(load_documents(state, services, cited))

    def text_of(key: str) -> str:
        parsed = SentenceKey.read(key)
        if parsed is None:
            return ""
        doc = docs.get(parsed.doc_id)
        if doc is None or parsed.start >= len(doc.sentences):
            return ""
        # quoted as the reader would read it, without a structured abstract's heading
        return without_section_label(doc.sentences[parsed.start])

    designs = _designs(state, docs)
    documents = _documents(state, docs, services.settings.trust.rerank_weight, text_of, designs)
    listed = {d.id for d in documents}
    unweighed = sorted((d for d in quoted - listed if d in docs), key=lambda d: (-retrieval_score(state, d), d))
    verdict = verdict_of(state)
    return Report(
        claim=claim_of(state),
        anti_claim=analysis.get("anti_claim"),
        anti_claim_found=anti_claim_found(state, [d.id for d in documents]) if analysis.get("anti_claim") else None,
        sub_claims=list(analysis.get("sub_claims", [])),
        claim_type=str(analysis.get("claim_type", "")),
        claim_kind=str(analysis.get("claim_kind", "")),
        status=str(status_of(state) or "complete"),
        hierarchy=_hierarchy(state, text_of, designs),
        documents=documents,
        quoted_documents=_documents(state, docs, 0.0, text_of, designs, only=unweighed) if unweighed else [],
        designs=design_summary((d.design, d.direction or "") for d in documents),
        verdict=GlobalVerdicts.from_verdict(verdict) if verdict is not None else GlobalVerdicts(),
        trust=_trust(state),
        explanation=_explanation(state, text_of),
        evidence_gap=_evidence_gap(state, _with_screened(state, services, docs)),
        sources=_sources(state),
        warnings=list(dict.fromkeys([*warnings_of(state), *_retraction_warnings(documents),
                                     *contradictions(state)])),
        decisions=[
            Decision(step=d["point"], question=f"{d['point']} review",
                     choice="; ".join(d.get("applied") or []) or "accepted")
            for d in decisions_of(state)
        ],
        usage=_usage(state, services),
        timings={k: round(v, 3) for k, v in timings_of(state).items()},
        created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    )


def anti_claim_found(state: InvestigationState, report_ids: Iterable[str]) -> AntiClaimFound:
    """The documents only the opposite claim's search found, and which of `report_ids` (the report's
    documents) they are, so the report shows what that search added."""
    gathered = gathered_documents(state)
    only = {d for d, rec in gathered.items() if list(rec.get("found_by") or []) == ["anti_claim"]}
    return AntiClaimFound(gathered=len(gathered), only=len(only), in_report=[d for d in report_ids if d in only])


def contradictions(state: InvestigationState) -> list[str]:
    """Where the parts of the report read from `state` contradict each other (the verdict, the
    documents' labels, the root aspect's consensus, the labels of the documents the explanation
    cites: tools.weigh.consistency.inconsistencies), as warnings."""
    verdict = verdict_of(state)
    if verdict is None:
        return []
    labels = {d: LocalLabel(a["assessment"]["label"]) for d, a in assessment_records(state).items()}
    root = consensus_records(state).get(AspectTree.ROOT)
    cited = {parsed.doc_id for s in explanation_record(state).get("sentences", [])
             if s.get("status") != "dropped" for k in s.get("citations", []) if (parsed := SentenceKey.read(k))}
    net = sum(labels[d].score for d in cited if d in labels)
    direction = (1 if net > 0 else -1 if net < 0 else 0) if cited & set(labels) else None
    return [f"the report's parts disagree: {p}" for p in inconsistencies(
        verdict.weighted_label, list(labels.values()), Consensus.model_validate(root) if root else None, direction)]


def _with_screened(state: InvestigationState, services: Services, docs: dict[str, Document]) -> dict[str, Document]:
    """`docs` and every document the screen found on the claim's subject: the evidence gap says
    what each of them shares with the claim."""
    missing = [d for d in screen_of(state).get("on_subject", []) if d not in docs]
    return {**load_documents(state, services, missing), **docs} if missing else docs


def _cited_doc_ids(state: InvestigationState) -> set[str]:
    keys: list[str] = []
    tree = tree_of(state)
    for nid in tree.nodes:
        keys += _node_keys(state, tree, nid)[:TOP_SEGMENTS_PER_NODE]
        keys += [k for p in counted_perspectives(state, tree, nid).values() for k in p.get("citations", [])]
    for s in explanation_record(state).get("sentences", []):
        keys += s.get("citations", [])
    return {parsed.doc_id for k in keys if (parsed := SentenceKey.read(k))}


def _citation(key: str, text_of: Any) -> Citation | None:
    parsed = SentenceKey.read(key)
    if parsed is None:
        return None
    return Citation(doc_id=parsed.doc_id, sentence=parsed.start, text=text_of(key))


def _designs(state: InvestigationState, docs: dict[str, Document]) -> dict[str, str | None]:
    """Study design per shown document: as weighed (the reputation record), else tagged now."""
    reputation = reputation_records(state)
    return {d: (reputation[d].get("design") if d in reputation else tagged(doc).study_design)
            for d, doc in docs.items()}


def _direction(label: str | None) -> Literal["supports", "opposes", "no evidence"] | None:
    if not label:
        return None
    score = LocalLabel(label).score
    return "supports" if score > 0 else "opposes" if score < 0 else "no evidence"


def _retraction_warnings(documents: list[DocumentView]) -> list[str]:
    return [f"{d.id} ({source_name(d, 'untitled')}) is retracted: its trust is 0 and it does not count toward the verdict "
            f"({'; '.join(d.notices) or 'flagged by its source'})" for d in documents if d.retracted]


def _node_keys(state: InvestigationState, tree: AspectTree, node_id: str) -> list[str]:
    """The segments an aspect's consensus counts (those classified to it or below it whose stance was
    read), best first: the aspect's own ranking, then the firmest stance. The report shows these, so
    its quotes and designs agree with its counts."""
    stances = stance_records(state)
    if node_id not in tree.nodes:
        return []
    keys = list(counted_stances(state, tree, node_id))
    rank = {k: i for i, k in enumerate(tree.nodes[node_id].segment_keys)}

    def firmness(k: str) -> float:
        # a sentence the verdict's label rests on but the tree did not classify has no read stance
        return abs(stances[k]["support"] - stances[k]["refute"]) if k in stances else 1.0

    return sorted(keys, key=lambda k: (rank.get(k, len(rank)), -firmness(k), k))


def _node_designs(keys: list[str], stances: dict[str, Stance], designs: dict[str, str | None]) -> str:
    """Designs of the documents under an aspect by the stance their segments there take (a document
    whose segments take both stances counts for the majority; ties and neutral ones are left out)."""
    net: dict[str, int] = {}
    for key in keys:
        parsed = SentenceKey.read(key)
        read = stances.get(key)
        if parsed is None or read is None:
            continue
        sign = {Stance.SUPPORT: 1, Stance.REFUTE: -1}.get(read, 0)
        net[parsed.doc_id] = net.get(parsed.doc_id, 0) + sign
    return design_summary((designs.get(d), "supports" if v > 0 else "opposes" if v < 0 else "") for d, v in net.items())


def _hierarchy(state: InvestigationState, text_of: Any, designs: dict[str, str | None]) -> Hierarchy:
    consensus = consensus_records(state)
    aspects = built_tree(state)
    if aspects is None:
        return Hierarchy(nodes=[])
    nodes = []
    for nid, n in aspects.nodes.items():
        scores = dict(zip(n.segment_keys, n.segment_scores, strict=False))
        keys = _node_keys(state, aspects, nid)
        stances = counted_stances(state, aspects, nid)
        segs = []
        for key in keys:
            parsed = SentenceKey.read(key)
            if parsed is None:
                continue
            segs.append(SegmentView(doc_id=parsed.doc_id, sentence=parsed.start, text=text_of(key),
                                    stance=stances[key], score=scores.get(key)))
            if len(segs) >= TOP_SEGMENTS_PER_NODE:
                break
        views = []
        # what the quote list below counts, so that one sentence never reads two ways in one aspect
        for stance, p in counted_perspectives(state, aspects, nid).items():
            views.append(PerspectiveView(
                stance=stance, summary=without_section_label(p["summary"]),
                citations=[c for k in p.get("citations", []) if (c := _citation(k, text_of))],
            ))
        nodes.append(HierarchyNode(
            id=nid, name=n.name, description=n.description, keywords=list(n.keywords),
            children=list(n.children),
            consensus=NodeConsensus.model_validate(consensus[nid]) if nid in consensus else None,
            designs=_node_designs(keys, stances, designs), perspectives=views, top_segments=segs,
        ))
    return Hierarchy(nodes=nodes)


def _documents(state: InvestigationState, docs: dict[str, Document], weight: float, text_of: Any,
               designs: dict[str, str | None], only: list[str] | None = None) -> list[DocumentView]:
    """The assessed documents, re-ranked by retrieval score combined with trust, with their design,
    population and size, editorial notices, the sentence their label rests on and what it compares (intervention,
    comparator, outcome from that sentence, else from the title, laid out along the claim's relation: the
    evidence table). With `only`, those documents in that order, each without a label (the documents an
    aspect or the explanation quotes that were not weighed: the report's table lists them too)."""
    assessments = assessment_records(state)
    reputation = reputation_records(state)
    trust = trust_record(state).get("scores") or {}
    # The table's columns follow the claim's relation (exposure -> outcome); a debate claim has none.
    oriented_by = None if analysis_record(state).get("claim_kind") == "debate" else claim_of(state)
    order = only if only is not None else [d for d, _ in rerank(
        [(d, retrieval_score(state, d)) for d in assessments], trust, weight=weight)] if assessments else list(docs)
    out = []
    for doc_id in order:
        doc = docs.get(doc_id)
        if doc is None:
            continue
        record = assessments.get(doc_id)
        # A quoted document left out of the weighing reads "not weighed", not the screen's reading of it.
        a = record["assessment"] if record else {} if only is not None else _screened(state, doc_id)
        tk = (record["takeaway"] if record else None) or {}
        rep = reputation.get(doc_id)
        cited = [i for i in a.get("cited_sentences") or [] if isinstance(i, int) and 0 <= i < len(doc.sentences)]
        key = str(SentenceKey.sentence(doc_id, cited[0])) if cited else None
        notices = [Notice.model_validate(n) for n in ((rep.get("notices") or []) if rep else [])] or list(doc.notices)
        out.append(DocumentView(
            id=doc.id, title=doc.title, opening="" if doc.title.strip() else opening_words(doc.sentences),
            year=doc.year, venue=doc.venue, authors=doc.authors[:10],
            url=doc.url, doi=doc.doi, source=str(doc.source),
            reputation=rep["score"] if rep else None, reputation_components=rep["components"] if rep else {},
            trust=trust.get(doc_id), local_label=a.get("label"), label_explanation=a.get("explanation", ""),
            sign_conflict=bool(a.get("sign_conflict", False)), disagreement=a.get("disagreement") or "",
            takeaway=without_section_label(tk.get("text", "")),
            design=designs.get(doc_id), sample_size=rep.get("sample_size", doc.sample_size) if rep else doc.sample_size,
            population=extract_population(doc.title, doc.sentences),
            retracted=bool(rep.get("retracted", doc.retracted) if rep else doc.retracted),
            notices=[n.describe() for n in notices],
            finding=Citation(doc_id=doc_id, sentence=cited[0], text=text_of(key)) if key and cited else None,
            direction=_direction(a.get("label")),
            **document_ico(text_of(key) if key else None, doc.sentences, claim=oriented_by,
                           title=doc.title).model_dump(),
        ))
    return out


def _screened(state: InvestigationState, doc_id: str) -> dict[str, Any]:
    """The screen's reading of a document no later step assessed (an investigation that ended at
    the screen): "No Evidence", and why, so the table does not read as unlabelled."""
    screen = screen_of(state)
    if (screen.get("labels") or {}).get(doc_id) != "NEI":
        return {}
    why = ("shares the claim's subject but does not report on its relation"
           if doc_id in (screen.get("on_subject") or []) else "does not address the claim")
    return {"label": "No Evidence", "explanation": f"Screened after gathering: {why}."}


def _trust(state: InvestigationState) -> TrustSummary:
    t = trust_record(state)
    return TrustSummary(converged=t.get("converged", True), oscillating=t.get("oscillating", False),
                        iterations=t.get("iterations", 0), edges=len(t.get("edges", [])))


def _explanation(state: InvestigationState, text_of: Any) -> ExplanationView:
    e = explanation_record(state)
    sentences = []
    for s in e.get("sentences", []):
        if s.get("status") == "dropped":
            continue
        sentences.append(ExplanationSentenceView(
            text=without_section_label(s["text"]), status=s.get("status", "supported"), support=s.get("support"),
            revised_from=s.get("revised_from"),
            citations=[c for k in s.get("citations", []) if (c := _citation(k, text_of))],
        ))
    return ExplanationView(sentences=sentences, mode=e.get("mode", "extractive"))


def _sources(state: InvestigationState) -> list[SourceUsed]:
    opts = options_of(state)
    meta = gathered_documents(state)
    out = []
    if "local" in opts.sources:
        for corpus in opts.corpora:
            n = sum(1 for d in meta.values() if d.get("corpus") == corpus)
            out.append(SourceUsed(name=f"local:{corpus}", documents=n))
    by_source: dict[str, list[SourceReportRecord]] = {}
    for r in source_reports(state):
        by_source.setdefault(str(r.get("source")), []).append(r)
    status_map: dict[str, SourceStatus] = {"ok": "ok", "cached": "cached", "unauthorised": "skipped"}
    for name, reports in by_source.items():
        statuses: list[SourceStatus] = [status_map.get(r.get("status", ""), "failed") for r in reports]
        status: SourceStatus = "ok" if "ok" in statuses else ("cached" if "cached" in statuses else statuses[0])
        problems = sorted({r.get("message", "") for r in reports if r.get("message")})
        out.append(SourceUsed(name=name, status=status, documents=sum(int(r.get("count", 0)) for r in reports),
                              detail="; ".join(problems)[:500]))
    return out


def _usage(state: InvestigationState, services: Services) -> LLMUsageView:
    usage = usage_of(state)
    cost = [float(c) for v in usage.values() if (c := v.get("cost_usd"))]
    return LLMUsageView(
        model=services.settings.llm.model,
        calls=int(sum(v.get("calls", 0) for v in usage.values())),
        prompt_tokens=int(sum(v.get("prompt_tokens", 0) for v in usage.values())),
        completion_tokens=int(sum(v.get("completion_tokens", 0) for v in usage.values())),
        cost_usd=float(sum(cost)) if cost else None,
    )


def _lower_first(text: str) -> str:
    """Sentence-internal form of a claim part: "Vitamin D" -> "vitamin D", acronyms kept ("COVID-19")."""
    head = text.split(" ", 1)[0]
    return text if len(head) > 1 and head[:2].isupper() else text[:1].lower() + text[1:]


def _evidence_gap(state: InvestigationState, docs: dict[str, Document]) -> EvidenceGap | None:
    """What was searched and not found, when the verdict is "insufficient evidence" (None otherwise).
    The sentences state facts of the run, so they cite nothing and are not attribution-checked."""
    verdict = verdict_of(state)
    if verdict is not None and verdict.weighted_label is not GlobalLabel.INSUFFICIENT:
        return None
    if verdict is None and status_of(state) not in ("no_evidence", "complete"):
        return None  # stopped early (budget, hierarchy only): no verdict was reached at all
    meta = gathered_documents(state)
    screen = screen_of(state)
    assessments = assessment_records(state)
    read = int(screen.get("checked") or len(assessments))
    claim = claim_of(state)
    parts = claim_components(claim)
    queries = [q for _, q in query_plan(state)]
    sources = [s.name for s in _sources(state)]
    on_subject = list(screen.get("on_subject", []))
    where = ", ".join(sources) or "the selected sources"
    relation = " ".join(x for x in (parts.subject, parts.relation, parts.object) if x)
    summary = []
    if not meta:
        summary.append(f"No document in {where} matched the claim or its opposite.")
    else:
        found = (f"the {len(meta)} documents found in {where}" if read >= len(meta)
                 else f"the {read} best-matching of the {len(meta)} documents found in {where}")
        # What the run decided, not a fact about the documents: readers found abstracts plainly on
        # the claim among those the evidence reader passed over, and "none reports on whether ..."
        # then contradicted the report's own documents table.
        summary.append(f"The evidence reader found nothing in {found} that it could read as evidence on "
                       f"whether {_lower_first(relation)}.")
    if len(queries) > 1:
        quoted = "; ".join(f'"{q.strip().rstrip(".")}"' for q in queries[:4])
        summary.append(f"Searched for the claim and for its opposite: {quoted}.")
    about, rest, shared = _subject_matches(claim, on_subject, docs)
    lacks_object = set(about) <= set(screen.get("without_object") or [])

    def titles(ids: list[str]) -> str:
        named = [f'"{docs[d].title}"' for d in ids[:3] if d in docs and docs[d].title]
        return f", e.g. {', '.join(named)}" if named else ""

    if about:
        # "but not <object>" only where it is true of every one of them: an abstract may name both
        # ends and still not report on the relation between them.
        phrase = _lower_first(parts.subject) + (f" but not {parts.object}" if parts.object and lacks_object else "")
        summary.append(f"{len(about)} of them {'is' if len(about) == 1 else 'are'} about {phrase}{titles(about)}; "
                       "not counted as evidence.")
    if rest and shared:
        one = len(rest) == 1
        many = f"{len(rest)} {('other' if one else 'others') if about else 'of them'} {'shares' if one else 'share'}"
        words = ", ".join(shared)
        if all(names_who_or_where(w) for w in shared):
            summary.append(f"{many} only general terms with the claim ({words}){titles(rest)}; not counted as evidence.")
        else:
            summary.append(f"{many} only some words of its subject ({words}), not "
                           f"{_lower_first(parts.subject)}{titles(rest)}; not counted as evidence.")
    if not on_subject and meta and parts.subject and not _named_in(parts.subject, docs.values()):
        summary.append(f"None of them is about {_lower_first(parts.subject)}.")
    summary.append("To go further, add a corpus that covers the question (`claimscope ingest PATH --corpus NAME`) "
                   "or search scholarly sources (`--sources local,semantic_scholar`).")
    return EvidenceGap(queries=queries, sources=sources, documents_found=len(meta), documents_read=read,
                       subject=parts.subject, object=parts.object, on_subject=about, summary=summary)


# Greek letters as a Latin-script name spells them in a claim ("PKCζ" -> "pkcz", "TNF-α" -> "tnfa").
_GREEK = str.maketrans({"α": "a", "β": "b", "γ": "g", "δ": "d", "ε": "e", "ζ": "z", "η": "h", "θ": "q", "ι": "i",
                        "κ": "k", "λ": "l", "μ": "m", "ν": "n", "ξ": "x", "π": "p", "ρ": "r", "σ": "s", "τ": "t",
                        "φ": "f", "χ": "c", "ψ": "y", "ω": "w"})


def _spelled(text: str) -> set[str]:
    """The words of `text` in lower case, Greek letters in Latin, hyphens and slashes closed up."""
    return set(re.findall(r"[a-z0-9]+", re.sub(r"(?<=\w)[-/](?=\w)", "", text.lower().translate(_GREEK))))


def _named_in(subject: str, docs: Iterable[Document]) -> bool:
    """Whether some document names every specific word of the claim's `subject` (not those that only say
    who or where), leniently: Greek letters read as Latin and a name inside a longer one ("PKCζ" for
    "aPKCz"). The evidence gap says "None of them is about <subject>" only when none does: the screen's
    reading of a document is not enough to say so (readers found "none is about aPKCz" beside a
    document on PKCζ)."""
    wanted = [w for w in _spelled(subject) if len(w) >= 3 and tokenize(w) and not names_who_or_where(w)]
    if not wanted:
        return False
    for doc in docs:
        have = _spelled(" ".join([doc.title or "", *doc.sentences]))
        if all(w in have or any(len(h) >= 4 and (h in w or w in h) for h in have) for w in wanted):
            return True
    return False


def _subject_matches(claim: str, on_subject: list[str], docs: dict[str, Document]
                     ) -> tuple[list[str], list[str], list[str]]:
    """Of the documents the screen found on the claim's subject: those that use every specific term
    of it (tools.read.coverage: not the words that say how or how much, nor those that only say who or
    where, "women", "some countries"), the others, and the claim's words those others share with it,
    in claim order. A document that only shares "women" with "Women with a lower birth weight ..."
    is not about women with a lower birth weight."""
    stems = component_terms(claim).subject
    spelled: dict[str, str] = {}
    for raw in claim_components(claim).subject.split():
        word = raw.strip(",.;:()\"'")
        for stem in tokenize(word):
            spelled.setdefault(stem, word if word[:2].isupper() else word.lower())
    word_of = {t: spelled.get(t, t) for t in stems}
    specific = [t for t in stems if not names_who_or_where(word_of[t])]

    def uses(doc: Document, term: str) -> bool:
        texts = [doc.title or "", *doc.sentences]
        return coverage(ComponentTerms(subject=[term], object=[]), texts).subject >= 1.0

    about: list[str] = []
    rest: list[str] = []
    shared: set[str] = set()
    for d in on_subject:
        if d not in docs:
            continue  # gone from the store: nothing to say about what it shares
        used = {t for t in stems if uses(docs[d], t)}
        if specific and set(specific) <= used:
            about.append(d)
        else:
            rest.append(d)
            shared |= used
    return about, rest, [word_of[t] for t in stems if t in shared]
