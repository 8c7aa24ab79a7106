"""The investigation's steps, one graph node each.

Over 600 lines: the step table and the steps it names stay in one module, so that a step's
function, its readiness test and its row are read together (the explain step's work on a set of
local labels is in explanation.py).

Each step reads the (JSON-able) state, calls tools with the services from the runtime context, and
returns a state update that marks it done. Pydantic results are dumped here and re-validated when a
later step needs them, so a resumed run never depends on pickled objects.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from langgraph.config import get_config
from langgraph.runtime import Runtime

from claimscope.agent.assemble import build_report
from claimscope.agent.graph.events import emit
from claimscope.agent.graph.explanation import explain_claim
from claimscope.agent.graph.readers import (
    claim_reading,
    counted_stances,
    doc_weight,
    evidence_segments,
    load_documents,
    local_assessments,
    lookup_segments,
    options_of,
    query_plan,
    reads_as_debate,
    reputation_score,
    segments_for_node,
    sentence_lookup,
    subtree_keys,
    tree_of,
    trust_score,
)
from claimscope.agent.graph.screen import (
    configured_consensus,
    configured_verdict,
    document_decision,
    insufficient_evidence,
    screen_documents,
)
from claimscope.agent.graph.state import USAGE_FIELDS, DocumentRecord, InvestigationState
from claimscope.agent.services import Services
from claimscope.agent.sources import enrich_documents, reputation_config
from claimscope.tools.appraise.trust import build_document_graph, propagate_trust, reputation
from claimscope.tools.explain import (
    Perspective,
    assess_document,
    check_perspective,
    label_document,
    local_label,
    perspective_summary,
    takeaway,
)
from claimscope.tools.find.store import SearchFilter
from claimscope.tools.llm import LLMError
from claimscope.tools.models import (
    Segment,
    SentenceKey,
    SourceKind,
    Stance,
    StanceResult,
)
from claimscope.tools.read.claim_analysis import ClaimKind, analyse_claim, filter_passages
from claimscope.tools.read.claim_worthiness import is_finding
from claimscope.tools.read.hierarchy import (
    AspectNode,
    cached,
    enrich_keywords,
    merge_siblings,
    propose_aspects,
    rank_segments,
)
from claimscope.tools.read.hierarchy.facets import (
    belongs,
    facet_drafts,
    find_facets,
    sub_facets,
)
from claimscope.tools.read.relevance import classify_segments, node_relevance, relevance_filter
from claimscope.tools.text.segmenter import without_section_label
from claimscope.tools.weigh.verdict import CountedSegment, LocalItem, LocalLabel

NodeUpdate = dict[str, Any]


def _timed(step: str, fn: Callable[[InvestigationState, Services], NodeUpdate]) -> Callable[..., NodeUpdate]:
    """Wrap a step: progress events, wall time, and the 'done' mark."""

    def node(state: InvestigationState, runtime: Runtime[Services]) -> NodeUpdate:
        emit("step_started", step)
        services = runtime.context
        before = _usage_snapshot(services)
        t0 = time.perf_counter()
        update = fn(state, services)
        seconds = time.perf_counter() - t0
        update.setdefault("done", [step])
        if update.get("warnings"):
            update["warning_steps"] = {step: list(update["warnings"])}
        update["timings"] = {step: seconds}
        update["usage"] = _usage_delta(before, _usage_snapshot(services))
        emit("step_finished", step, f"{step} finished in {seconds:.1f}s", seconds=seconds)
        return update

    node.__name__ = step
    return node


# --------------------------------------------------------------------------------------------- helpers


def _usage_snapshot(services: Services) -> dict[str, dict[str, float]]:
    """Per-prompt usage of the gateway so far ({} before the LLM is first used). Runs sharing one
    gateway in one process (the MCP server) may see each other's calls in their per-step deltas."""
    llm = services.llm_if_built
    usage = getattr(llm, "usage", None) if llm is not None else None
    if usage is None:
        return {}
    return {name: rec.model_dump() for name, rec in usage.by_prompt.items()}


def _usage_delta(before: dict[str, dict[str, float]], after: dict[str, dict[str, float]]
                 ) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for name, rec in after.items():
        prev = before.get(name, {})
        diff = {f: (rec.get(f) or 0) - (prev.get(f) or 0) for f in USAGE_FIELDS}
        if diff["calls"] or diff["attempts"]:
            out[name] = diff
    return out


# --------------------------------------------------------------------------------------------- steps


def _analyse(state: InvestigationState, services: Services) -> NodeUpdate:
    chosen = options_of(state).claim_kind
    analysis = analyse_claim(state["claim"], services.llm, kind=None if chosen == "auto" else ClaimKind(chosen))
    emit("counts", "analyse", f"claim type {analysis.claim_type}, read as {analysis.claim_kind}; "
         f"{len(analysis.sub_claims)} sub-claim(s)", anti_claim=analysis.anti_claim, claim_kind=analysis.claim_kind)
    return {"analysis": analysis.model_dump(mode="json"), "warnings": list(analysis.warnings)}


def _gather(state: InvestigationState, services: Services) -> NodeUpdate:
    opts = options_of(state)
    found: dict[str, DocumentRecord] = {}
    # A store that had to fall back (e.g. an old collection it could not upgrade) says so here.
    warnings: list[str] = list(services.store.warnings)
    reports: list[dict[str, Any]] = []
    # Scholarly results go to a corpus of their own per investigation, so reruns are reproducible
    # and `claimscope corpus delete` can drop them.
    thread = (get_config().get("configurable") or {}).get("thread_id") or "adhoc"
    inv_corpus = state.get("investigation_corpus") or f"inv-{thread}"

    def note(doc_id: str, corpus: str, tag: str, score: float) -> None:
        entry = found.setdefault(doc_id, DocumentRecord(corpus=corpus, found_by=[], score=score))
        if tag not in entry["found_by"]:
            entry["found_by"].append(tag)
        entry["score"] = max(entry["score"], score)

    remote = [SourceKind(s) for s in opts.sources if s != "local"]
    for tag, query in query_plan(state):
        if remote:
            outcome = services.scholarly.search(query, remote)
            reports += [r.model_dump(mode="json") for r in outcome.reports]
            warnings += outcome.warnings
            for w in outcome.warnings:  # an unreachable source is announced as it is found
                emit("warning", "gather", w)
            if outcome.documents:
                services.store.add_documents(outcome.documents, corpus=inv_corpus)
                emit("source", "gather", f"{len(outcome.documents)} documents from scholarly search for {tag}")
        corpora = ([*opts.corpora] if "local" in opts.sources else []) + ([inv_corpus] if remote else [])
        if not corpora:
            continue
        flt = SearchFilter(corpora=corpora, year_min=opts.year_min, year_max=opts.year_max)
        for hit in services.store.search(query, k=opts.docs_per_query, flt=flt, sentences_per_doc=3):
            note(hit.document.id, hit.corpus, tag, hit.score)
    if "local" in opts.sources and not opts.corpora:
        warnings.append("no local corpus given: ingest one with `claimscope ingest PATH --corpus NAME` "
                        "and pass --corpus NAME")

    update: NodeUpdate = {"documents": found, "source_reports": reports, "warnings": warnings,
                          "investigation_corpus": inv_corpus}
    analysis = state.get("analysis") or {}
    if found and analysis.get("claim_type", "simple") != "simple":
        update.update(_filter_by_sub_claims(state, services, found, analysis.get("sub_claims", [])))
    kept = update.get("documents", found)
    emit("counts", "gather", f"{len(kept)} documents gathered", documents=len(kept),
         anti_claim_only=sum(1 for d in kept.values() if d["found_by"] == ["anti_claim"]))
    if not kept:
        update["status"] = "no_evidence"
        update["warnings"] = [*warnings, "no evidence found for this claim in the selected sources"]
    elif services.settings.verdict.screen_gathered:
        screen = screen_documents({**state, "documents": kept}, services, kept)
        update["screen"] = screen
        emit("counts", "gather", f"{len(screen['evidence'])} of {screen['checked']} top documents address the claim",
             evidence=len(screen["evidence"]), checked=screen["checked"])
        if not screen["evidence"]:
            update.update(insufficient_evidence(state, services, screen))
    return update


def _filter_by_sub_claims(
    state: InvestigationState, services: Services, found: dict[str, DocumentRecord], sub_claims: list[str]
) -> NodeUpdate:
    """Keep documents with a passage that entails at least one sub-claim (RAG+NLI+sub-claims);
    the filter falls back to everything retrieved when no passage does."""
    st = state.copy()
    st["documents"] = found
    passages = []
    for query in [state["claim"], *sub_claims]:
        passages += evidence_segments(st, services, query, k=40)
    unique = {p.key: p for p in passages}
    result = filter_passages(sub_claims, [p.text for p in unique.values()], services.stance)
    keys = list(unique)
    kept_docs = {unique[keys[i]].doc_id for i in result.kept_indices}
    filtered = {d: v for d, v in found.items() if d in kept_docs} if not result.fell_back else found
    return {
        "documents": filtered,
        "passage_filter": {"fell_back": result.fell_back, "kept_passages": len(result.kept_indices),
                           "passages": len(keys), "documents_kept": len(filtered)},
    }


# Why the claim was not split into aspects, in the warnings (the chat's "go deeper" reads it there).
NO_FACETS: Final = ("no facet of the claim (population, measurement, level, comparison, outcome type, adjustment, "
                    "time, mechanism) is stated by its on-claim findings")


def _grow_hierarchy(state: InvestigationState, services: Services) -> NodeUpdate:
    """One level of ClaimSpect: propose aspects under each frontier node from its relevant segments,
    enrich their keywords, rank segments discriminatively against the siblings, keep only the
    segments relevant to the claim and the aspect, reject sub-aspects left without enough of them."""
    h = services.settings.hierarchy
    # One embedding cache for the step: candidate segments recur across sibling nodes.
    embedder = cached(services.embedder)
    opts = options_of(state)
    _, test = claim_reading(state, services)
    tree = tree_of(state)
    frontier = tree.frontier(opts.depth)
    warnings: list[str] = []
    new_nodes = []
    on_claim_found: dict[str, Segment] = {}
    for parent in frontier:
        drafts = None
        if parent.id == "root":
            found = evidence_segments(state, services, state["claim"], k=h.segments_per_node * 2)
            on_claim = test.addresses([s.text for s in found])
            on_claim_found = {s.key: s for s, ok in zip(found, on_claim, strict=True) if ok}
            context = [s.text for s in on_claim_found.values()][: h.segments_per_node]
            # A debate's aspects are its lines of argument, not a study's design ("population studied"
            # means nothing for "Vaccination must be made compulsory"): they are proposed from its arguments.
            debate = (state.get("analysis") or {}).get("claim_kind") == "debate"
            if h.aspects == "facets" and not debate:
                # Facets of the claim's structure that the on-claim findings speak to, under the rules'
                # names (readers found the small model's names circular or at odds with the facet).
                # No facet found: no aspects, rather than topics the model would invent.
                facets = find_facets(state["claim"], [s.text for s in on_claim_found.values() if is_finding(s.text)],
                                     k=opts.top_k_aspects)
                drafts = facet_drafts(facets)
                if not drafts:
                    # the report's Aspects section shows the claim itself, unsplit: "has no aspects"
                    # contradicted it
                    warnings.append(f"{NO_FACETS}: the report's one aspect is the claim as a whole")
        else:
            # The parent's kept segments already passed the relevance test for it.
            context = [seg.text for seg in lookup_segments(services, parent.segment_keys[: h.segments_per_node])]
            if parent.terms:
                drafts = sub_facets(parent.terms, context, k=opts.top_k_aspects, kind=parent.facet,
                                    claim=state["claim"])
            if len(context) < h.min_node_segments or (parent.terms and not drafts):
                tree.mark_expanded(parent.id)
                emit("tree", "grow_hierarchy", f"{parent.name!r} not split: {len(context)} relevant segment(s)",
                     parent=parent.id)
                continue
        if drafts is None:
            # propose_aspects never raises: on LLM failure it returns keyword-cluster drafts with a note.
            drafts = propose_aspects(
                state["claim"], services.llm, k=opts.top_k_aspects,
                parent=None if parent.id == "root" else parent,
                ancestors=tree.ancestors(parent.id), segments=context,
            )
            warnings += list(dict.fromkeys(d.note for d in drafts if d.note))
            drafts = merge_siblings(drafts, embedder, threshold=h.merge_threshold) if drafts else []
        children = tree.add_children(parent.id, drafts)
        tree.mark_expanded(parent.id)
        new_nodes += children

    for node in new_nodes:
        candidates = segments_for_node(state, services, tree, node, k=h.segments_per_node * 3)
        if node.terms:
            candidates.update({k: s for k, s in on_claim_found.items()
                               if belongs(s.text, node.facet, node.terms, state["claim"])})
        # Enrichment steers the retrieval that seeds sub-aspects; leaves keep the proposed keywords
        # unless configured otherwise (it is one LLM call per node). A facet is defined by its terms.
        enrich = not node.terms and (h.enrich_leaves or node.depth < opts.depth)
        if candidates and enrich:
            try:
                node.keywords = enrich_keywords(
                    node, [s.text for s in list(candidates.values())[: h.segments_per_node]],
                    services.llm, max_keywords=h.keywords, claim=state["claim"],
                )
                candidates.update(segments_for_node(state, services, tree, node, k=h.segments_per_node * 3))
            except LLMError as exc:
                warnings.append(f"keyword enrichment failed for {node.name!r}: {exc}")
        ranked = rank_segments(
            node, tree.siblings(node.id), tree.ancestors(node.id), list(candidates.values()),
            embedder, beta=h.beta, gamma=h.gamma, keep=len(candidates) or 1,
        )
        if node.terms:
            # A facet's segments address the claim, state a finding and are about the facet (`belongs`).
            on = test.addresses([s.text for s in candidates.values()])
            relevant = {k for (k, s), ok in zip(candidates.items(), on, strict=True)
                        if ok and is_finding(s.text) and belongs(s.text, node.facet, node.terms, state["claim"])}
        else:
            relevant = set(node_relevance(test, node, tree.ancestors(node.id), list(candidates.values()), embedder,
                                          min_similarity=h.aspect_min_similarity).relevant)
        kept = [(k, sc) for k, sc in ranked if k in relevant][: h.segments_per_node]
        node.segment_keys = [k for k, _ in kept]
        node.segment_scores = [float(sc) for _, sc in kept]

    rejected = [n for n in new_nodes if (n.depth >= 2 and len(n.segment_keys) < h.min_node_segments)
                or (n.terms and not n.segment_keys)]
    gone = {n.id for n in rejected}
    # A split into one is no split: an aspect's counts and quotes include its sub-aspects', so a lone
    # sub-aspect repeats (a subset of) its parent's quotes under a narrower name ("level of birth weight"
    # > "high birth weight" once "low birthweight" was rejected). Its parent keeps the segments, unsplit.
    lone: dict[str, AspectNode] = {}
    for split in sorted({p for n in new_nodes if (p := n.parent_id) and p != tree.ROOT}):
        left = [c for c in tree.children(split) if c.id not in gone]
        if len(left) == 1 and not left[0].children:
            lone[split] = left[0]
    tree.drop_leaves(gone | {n.id for n in lone.values()})
    if rejected:
        warnings.append(f"{len(rejected)} proposed aspect(s) rejected: too few segments "
                        f"address both the claim and the aspect ({', '.join(repr(n.name) for n in rejected)})")
    for split, child in lone.items():
        emit("tree", "grow_hierarchy", f"{tree.node(split).name!r} not split: only {child.name!r} "
             "kept enough segments", parent=split)
    for parent_id in {n.parent_id for n in new_nodes}:
        emit("tree", "grow_hierarchy", f"{len(tree.children(parent_id or 'root'))} aspect(s) under "
             f"{tree.node(parent_id or 'root').name!r}", parent=parent_id,
             children=[c.name for c in tree.children(parent_id or "root")])

    complete = not tree.frontier(opts.depth)
    emit("tree", "grow_hierarchy", tree.render_text(), nodes=len(tree.nodes) - 1, depth=tree.depth())
    return {
        "tree": tree.model_dump(mode="json"),
        "hierarchy_complete": complete,
        "warnings": warnings,
        "done": ["grow_hierarchy"],
    }


def _assess(state: InvestigationState, services: Services) -> NodeUpdate:
    """Relevance filter, classification down the tree, and stance toward the claim per segment."""
    tree = tree_of(state)
    h = services.settings.hierarchy
    scorer, test = claim_reading(state, services)
    pool: dict[str, Segment] = {}
    for seg in evidence_segments(state, services, state["claim"], k=h.segments_per_node * 5):
        pool.setdefault(seg.key, seg)
    anti = (state.get("analysis") or {}).get("anti_claim")
    if anti:
        for seg in evidence_segments(state, services, anti, k=h.segments_per_node * 2):
            pool.setdefault(seg.key, seg)
    missing = [k for n in tree.nodes.values() for k in n.segment_keys if k not in pool]
    for seg in lookup_segments(services, dict.fromkeys(missing)):
        pool.setdefault(seg.key, seg)
    segments = list(pool.values())
    embedder = cached(services.embedder)
    relevance = relevance_filter(
        state["claim"], segments, embedder, min_similarity=h.relevance_min_similarity,
        top_margin=h.relevance_top_margin, keyword_weight=h.relevance_keyword_weight,
    )
    # Similar is not enough: a segment enters the tree's consensus only if it addresses the claim.
    similar = [pool[k] for k in relevance.kept if k in pool]
    kept = [s for s, ok in zip(similar, test.addresses([s.text for s in similar]), strict=True) if ok]
    assignments = classify_segments(tree, kept, embedder, min_similarity=h.classify_min_similarity,
                                    min_margin=h.classify_min_margin) if kept else {}
    # Every kept segment passed the evidence test, so its stance is read as the scorer gives it.
    results = scorer.predict([(state["claim"], s.text) for s in kept])
    stances = {s.key: r.model_dump(mode="json") for s, r in zip(kept, results, strict=True)}
    counts = {st.value: sum(1 for r in results if r.label == st) for st in Stance}
    emit("counts", "assess", f"{len(kept)}/{len(segments)} segments address the claim; stance {counts}", **counts)

    perspectives: dict[str, dict[str, Any]] = {}
    warnings: list[str] = []
    if options_of(state).perspectives and kept:
        perspectives, warnings = _perspectives(state, services, tree, kept, assignments, stances)
    return {
        "relevance": relevance.model_dump(mode="json"),
        "assignments": assignments,
        "stances": stances,
        "perspectives": perspectives,
        "warnings": warnings,
    }


def _perspectives(
    state: InvestigationState, services: Services, tree: Any, kept: list[Segment],
    assignments: dict[str, str], stances: dict[str, dict[str, Any]],
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """A short grounded summary per stance for each top-level aspect (the most read part)."""
    v = services.settings.verdict
    get = sentence_lookup(state, services)
    text = {s.key: s.text for s in kept}
    out: dict[str, dict[str, Any]] = {}
    warnings: list[str] = []
    for node in tree.children("root"):
        keys = subtree_keys(tree, node.id, assignments)
        for stance in (Stance.SUPPORT, Stance.REFUTE):
            chosen = [k for k in keys if stances[k]["label"] == stance.value][:6]
            if not chosen:
                continue
            # Firmest first: the sentences quoted (or summarised) are those that take the stance most clearly.
            chosen.sort(key=lambda k: -float(stances[k].get(stance.value, 0.0)))
            segs = [(k, text[k]) for k in chosen]
            if services.settings.hierarchy.perspective_summaries == "quoted":
                quoted = _quoted_perspective(stance, segs)
                if quoted is not None:
                    out[f"{node.id}:{stance.value}"] = quoted.model_dump(mode="json")
                continue
            try:
                p = perspective_summary(state["claim"], node.name, stance, segs, services.llm)
            except LLMError as exc:
                warnings.append(f"perspective summary failed for {node.name!r}: {exc}")
                continue
            p = check_perspective(p, segs, get, services.stance, threshold=v.attribution_threshold,
                                  min_overlap=v.attribution_overlap)
            if p.warning:
                warnings.append(f"perspective on {node.name!r} ({stance.value}): {p.warning}")
            out[f"{node.id}:{stance.value}"] = p.model_dump(mode="json")
    return out, warnings


def _quoted_perspective(stance: Stance, segs: list[tuple[str, str]], *, n: int = 2) -> Any:
    """A perspective in its findings' own words: up to `n` of `segs` ((key, text), firmest first) that
    state a finding, quoted without a structured abstract's heading, each citing itself; None when no
    segment states a finding. Readers found the embedded model's summaries adding causal words,
    dropping hedges and generalising past what they cite; a quote says only what it cites."""
    quoted = [(k, " ".join(without_section_label(t).split())) for k, t in segs if is_finding(t)][:n]
    if not quoted:
        return None
    # arguments often lack a closing stop; two run together read as one sentence
    said = [t if t.endswith((".", "!", "?", '"', "'", ")")) else t + "." for _, t in quoted]
    return Perspective(stance=stance, summary=" ".join(said), citations=[k for k, _ in quoted],
                       n_segments=len(segs), mode="extractive", sentences_checked=len(quoted),
                       sentences_supported=len(quoted), quotes=said)


def _weigh(state: InvestigationState, services: Services) -> NodeUpdate:
    """Per document: takeaway and local label (Tan et al.), reputation prior, then ClaimTrust
    propagation over the stance relations between the documents' key sentences."""
    opts = options_of(state)
    v = services.settings.verdict
    meta = state.get("documents") or {}
    # The documents the retrieval ranked highest (best score over the claim / anti-claim / aspect
    # queries): with the stance model deciding what is evidence, fewer, better-matched documents
    # give better verdicts (evals/results/verdict_tune.json).
    # Documents the screen found to be evidence come first (it read more than top_documents).
    screened = set((state.get("screen") or {}).get("evidence", []))
    ranked = sorted(meta, key=lambda d: (d not in screened, -float(meta[d].get("score", 0.0))))[: opts.top_documents]
    docs, warnings = enrich_documents(load_documents(state, services, ranked), services, opts.sources)
    scorer, _ = claim_reading(state, services)
    arguments = reads_as_debate(state, services)
    mode = v.local_label_mode(services.settings.llm.model)
    assessments: dict[str, dict[str, Any]] = {}
    evidence: dict[str, list[tuple[int, StanceResult]]] = {}
    for doc_id in ranked:
        doc = docs.get(doc_id)
        if doc is None:
            warnings.append(f"document {doc_id} vanished from the evidence store; skipped")
            continue
        if not doc.sentences:
            continue
        results = scorer.predict([(state["claim"], s) for s in doc.sentences])
        evidence[doc_id] = sorted(enumerate(results), key=lambda p: -abs(p[1].signed))
        if mode != "llm":
            tk, la = label_document(state["claim"], doc, results,
                                    document_decision(state["claim"], doc, results, services, scorer=scorer),
                                    services.llm if mode == "hybrid" else None,
                                    mode=mode, conflict_margin=v.sign_conflict_margin,
                                    on_conflict=v.on_conflict, arguments=arguments)
        elif v.combined_assessment:
            both = assess_document(state["claim"], doc, evidence[doc_id], services.llm,
                                   conflict_margin=v.sign_conflict_margin)
            if both is None:
                continue
            tk, la = both
        else:
            try:
                tk = takeaway(state["claim"], doc, services.llm,
                              relevant_sentences=[i for i, _ in evidence[doc_id]])
            except LLMError as exc:
                warnings.append(f"takeaway failed for {doc_id}: {exc}")
                tk = None
            if tk is None:
                continue
            la = local_label(state["claim"], doc, tk, evidence[doc_id], services.llm,
                             conflict_margin=v.sign_conflict_margin)
        if la.warning:
            warnings.append(f"{doc_id}: {la.warning}")
        assessments[doc_id] = {"takeaway": tk.model_dump(mode="json") if tk else None,
                               "assessment": la.model_dump(mode="json")}
        emit("counts", "weigh", f"document {doc_id}: local label {la.label!s}", doc_id=doc_id, label=str(la.label))

    t = services.settings.trust
    rep_cfg = reputation_config(services.settings)
    now_year = dt.date.today().year
    rep = {d: reputation(docs[d], now_year=now_year, config=rep_cfg).model_dump(mode="json") for d in assessments}
    key_sentences = {
        d: [docs[d].sentences[i] for i, _ in sorted(evidence[d], key=lambda p: -abs(p[1].signed))[: t.key_sentences]
            if i < len(docs[d].sentences)]
        for d in assessments
    }
    edges = (build_document_graph(key_sentences, services.stance, threshold=t.graph_threshold)
             if len(assessments) > 1 else [])
    result = propagate_trust(
        list(assessments), edges, {d: rep[d]["score"] for d in assessments},
        alpha=t.alpha, max_iterations=t.max_iterations, tolerance=t.tolerance,
        retracted=[d for d in assessments if docs[d].retracted], default_prior=t.prior, isolated=t.isolated,
    )
    trust = result.model_dump(mode="json")
    trust["edges"] = [e.model_dump(mode="json") for e in edges]
    if not result.converged:
        warnings.append(f"trust propagation did not converge in {result.iterations} iterations"
                        + (" (oscillating)" if result.oscillating else ""))
    emit("counts", "weigh", f"{len(assessments)} documents assessed; {len(edges)} trust edges",
         documents=len(assessments), edges=len(edges))
    return {"assessments": assessments, "reputation": rep, "trust": trust, "warnings": warnings}


def _aggregate(state: InvestigationState, services: Services) -> NodeUpdate:
    items = []
    for doc_id, a in (state.get("assessments") or {}).items():
        items.append(LocalItem(
            doc_id=doc_id,
            label=LocalLabel(a["assessment"]["label"]),
            reputation=reputation_score(state, doc_id) or 0.0,
            trust=ts if (ts := trust_score(state, doc_id)) is not None else 0.5,
        ))
    debate = reads_as_debate(state, services)
    verdict = configured_verdict(items, services, debate=debate)
    tree = tree_of(state)
    per_node: dict[str, dict[str, Any]] = {}
    for node_id in tree.nodes:
        # The root counts the sentences the verdict rests on and every other aspect its classified
        # segments (readers.counted_stances); what those sentences say is graded by one rule.
        segments: list[CountedSegment] = []
        for k, stance in counted_stances(state, tree, node_id).items():
            doc = key.doc_id if (key := SentenceKey.read(k)) else ""
            segments.append((stance, doc_weight(state, doc), doc))
        per_node[node_id] = configured_consensus(segments, services, debate=debate).model_dump(mode="json")
    emit("counts", "aggregate", f"verdict: {verdict.weighted_label} (score {_fmt(verdict.weighted_score)})")
    return {"verdict": verdict.model_dump(mode="json"), "node_consensus": per_node}


def _explain(state: InvestigationState, services: Services) -> NodeUpdate:
    """The explain step: explain_claim on the investigation's local labels."""
    anti = (state.get("analysis") or {}).get("anti_claim")
    local = local_assessments(state)
    docs = load_documents(state, services, [a.doc_id for a in local])
    expl = explain_claim(state["claim"], local, sentence_lookup(state, services), services,
                         anti_claim=anti, titles=lambda d: docs[d].title if d in docs else "",
                         arguments=services.argument if reads_as_debate(state, services) else None)
    emit("counts", "explain", f"{len(expl.sentences)} explanation sentences ({expl.mode}); "
         f"attribution pass rate {_fmt(expl.attribution_pass_rate(), percent=True)}")
    return {"explanation": expl.model_dump(mode="json"), "warnings": list(expl.warnings)}


def _fmt(value: float | None, *, percent: bool = False) -> str:
    """A figure for a progress line: n/a, a percentage, or two decimals."""
    if value is None:
        return "n/a"
    return f"{value:.0%}" if percent else f"{value:.2f}"


def _report(state: InvestigationState, services: Services) -> NodeUpdate:
    status = state.get("status") or "running"
    if status == "running":
        status = "complete"
    report = build_report({**state, "status": status}, services)
    return {"report": report.model_dump(mode="json"), "status": status}


# ----------------------------------------------------------------------------------------- the table


def finished(state: InvestigationState, name: str) -> bool:
    """The step `name` has run (and was not forgotten since)."""
    return name in state.get("done", [])


def has_evidence(state: InvestigationState) -> bool:
    """Documents were gathered, and the screen (when it ran) found evidence among them."""
    screen = state.get("screen")
    return bool(state.get("documents")) and (screen is None or bool(screen.get("evidence")))


def _tree_ready(state: InvestigationState) -> bool:
    return finished(state, "gather") and has_evidence(state) and bool(state.get("hierarchy_complete", False))


def _frontier_open(state: InvestigationState) -> bool:
    return finished(state, "gather") and has_evidence(state) and not state.get("hierarchy_complete", False)


def _after(name: str) -> Callable[[InvestigationState], bool]:
    def ready(state: InvestigationState) -> bool:
        return finished(state, name)

    return ready


def _always(state: InvestigationState) -> bool:
    return True


@dataclass(frozen=True)
class Step:
    """One step of the investigation, declared once: the graph, the planner, the review points and
    the progress shown by every front end read it from `TABLE`."""

    name: str
    run: Callable[[InvestigationState, Services], NodeUpdate] = field(repr=False)
    ready: Callable[[InvestigationState], bool] = field(repr=False)
    label: str  # what the step does, in one sentence: the LLM planner's tool description
    review: str | None = None  # the review point due after it in a guided session
    repeatable: bool = False  # may run again while its readiness holds (the tree grows a level each time)


# In the papers' order, which the fixed policy follows; the last step ends the investigation.
TABLE: tuple[Step, ...] = (
    Step("analyse", _analyse, _always,
         "Classify the claim, split it into sub-claims and write its anti-claim.", review="claim"),
    Step("gather", _gather, _after("analyse"),
         "Search local corpora and scholarly sources for the claim and the anti-claim.", review="sources"),
    Step("grow_hierarchy", _grow_hierarchy, _frontier_open,
         "Grow the aspect hierarchy by one level (aspects, keywords, ranked segments).",
         review="hierarchy", repeatable=True),
    Step("assess", _assess, _tree_ready,
         "Filter segments for relevance, classify them to aspects and score their stance."),
    Step("weigh", _weigh, _after("assess"),
         "Takeaways and local labels per document, reputation, and trust propagation."),
    Step("aggregate", _aggregate, _after("weigh"), "Consensus per aspect and the global verdict.",
         review="verdict"),
    Step("explain", _explain, _after("aggregate"),
         "Write the global explanation and check every sentence's citations."),
    Step("report", _report, _always, "Assemble the report (always possible; ends the investigation)."),
)
STEP_NAMES: tuple[str, ...] = tuple(s.name for s in TABLE)
FINISH: Final = TABLE[-1].name

# The graph's nodes, by name (tests swap a node here before a graph is built).
NODES: dict[str, Callable[..., NodeUpdate]] = {s.name: _timed(s.name, s.run) for s in TABLE}
