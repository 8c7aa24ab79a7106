"""Readers of the investigation state: the one module that turns its JSON records back into what
the steps, the report, the chat and the review points work with (documents from the store, the
aspect tree, the claim's reading, sentence lookups, document weights), and builds the changes a
follow-up makes to a finished investigation (a source ignored, an aspect grown).

The state itself stays plain JSON (agent/graph/state.py types its records); everything that reads a
record goes through a function here, so a record's shape and its value before its step ran are known
in one place. The report (agent/assemble.py) and the chat (agent/chat/) read the state only through
these functions (tests/test_state_readers.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from claimscope.agent.graph.state import (
    AssessmentRecord,
    DecisionRecord,
    DocumentRecord,
    Dumped,
    InvestigationOptions,
    InvestigationState,
    ReputationRecord,
    ScreenRecord,
    SourceReportRecord,
    StanceRecord,
    TrustRecord,
)
from claimscope.agent.options import validated
from claimscope.agent.services import Services
from claimscope.tools.explain import LocalAssessment
from claimscope.tools.find.store import SearchFilter
from claimscope.tools.models import Document, Segment, SentenceKey, Stance, StanceScorer
from claimscope.tools.read.claim_analysis import ClaimKind
from claimscope.tools.read.hierarchy import AspectNode, AspectTree, node_queries
from claimscope.tools.read.relevance import EvidenceTest, evidence_test
from claimscope.tools.weigh.consistency import verdict_evidence
from claimscope.tools.weigh.verdict import LocalLabel, Verdict


def options_of(state: InvestigationState) -> InvestigationOptions:
    """The investigation's options, validated."""
    return InvestigationOptions.model_validate(state.get("options") or {})


def query_plan(state: InvestigationState) -> list[tuple[str, str]]:
    """(tag, query): the claim, the anti-claim, and the sub-claims of a decomposed claim."""
    a = state.get("analysis") or {}
    plan = [("claim", state["claim"])]
    if a.get("anti_claim"):
        plan.append(("anti_claim", a["anti_claim"]))
    subs = [s for s in a.get("sub_claims", []) if s != state["claim"]]
    plan += [("sub_claim", s) for s in subs]
    seen = {q for _, q in plan}
    plan += [("query", q) for q in a.get("queries", []) if q not in seen]
    return plan


def search_filter(state: InvestigationState, doc_ids: Iterable[str] | None = None) -> SearchFilter:
    opts = options_of(state)
    corpora = list(opts.corpora)
    if state.get("investigation_corpus"):
        corpora.append(state["investigation_corpus"])
    return SearchFilter(
        corpora=corpora or None,
        year_min=opts.year_min,
        year_max=opts.year_max,
        doc_ids=sorted(doc_ids) if doc_ids is not None else None,
    )


def load_documents(state: InvestigationState, services: Services, doc_ids: Iterable[str]) -> dict[str, Document]:
    """The gathered documents `doc_ids` from the store (each from the corpus it was gathered into)."""
    docs = state.get("documents") or {}
    by_corpus: dict[str, list[str]] = {}
    for d in doc_ids:
        record = docs.get(d)
        by_corpus.setdefault(record["corpus"] if record else "", []).append(d)
    out: dict[str, Document] = {}
    for corpus, ids in by_corpus.items():
        for doc in services.store.get_documents(ids, corpus=corpus or None):
            out[doc.id] = doc
    return out


def evidence_segments(
    state: InvestigationState, services: Services, query: str, k: int
) -> list[Segment]:
    """The best segments for `query` among the documents this investigation gathered."""
    docs = state.get("documents") or {}
    if not docs:
        return []
    hits = services.store.search_segments(query, k=k, flt=search_filter(state, docs.keys()))
    return [h.segment for h in hits]


def lookup_segments(services: Services, keys: Iterable[str]) -> list[Segment]:
    """The stored segments with these keys (absent ones left out)."""
    return services.store.get_segments(list(keys))


def sentence_lookup(state: InvestigationState, services: Services) -> Callable[[str], str | None]:
    """key 'doc#i' -> sentence text, only for documents of this investigation (so a citation
    outside the evidence cannot resolve)."""
    docs = state.get("documents") or {}
    cache: dict[str, Document | None] = {}

    def get(key: str) -> str | None:
        parsed = SentenceKey.read(key)
        if parsed is None or parsed.end - parsed.start != 1 or parsed.doc_id not in docs:
            return None
        doc_id = parsed.doc_id
        if doc_id not in cache:
            found = load_documents(state, services, [doc_id])
            cache[doc_id] = found.get(doc_id)
        doc = cache[doc_id]
        if doc is None or parsed.start >= len(doc.sentences):
            return None
        return doc.sentences[parsed.start]

    return get


def claim_reading(state: InvestigationState, services: Services) -> tuple[StanceScorer, EvidenceTest]:
    """How this claim is read, by its kind: the scorer of a text's stance toward the claim and the
    evidence test (tools.read.relevance). Debate claims use the argument model, unless
    stance.argument_model is off; empirical claims the stance model and the relation test."""
    if reads_as_debate(state, services):
        scorer = services.argument
        return scorer, evidence_test(state["claim"], ClaimKind.DEBATE, argument_scorer=scorer,
                                     min_relevance=services.settings.stance.argument_min_relevance)
    return services.stance, evidence_test(state["claim"], ClaimKind.EMPIRICAL)


def reads_as_debate(state: InvestigationState, services: Services) -> bool:
    """Whether the claim is read as a debate claim: its kind is debate and the argument model is on."""
    return (state.get("analysis") or {}).get("claim_kind") == "debate" and services.settings.stance.argument_model


def tree_of(state: InvestigationState) -> AspectTree:
    """The aspect tree built so far (a root alone before the hierarchy step)."""
    if state.get("tree"):
        return AspectTree.model_validate(state["tree"])
    return AspectTree.new(state["claim"])


def segments_for_node(
    state: InvestigationState, services: Services, tree: AspectTree, node: AspectNode, k: int
) -> dict[str, Segment]:
    """The best `k` gathered segments for each of `node`'s queries (its name and keywords in the
    context of its ancestors), by key."""
    out: dict[str, Segment] = {}
    for q in node_queries(node, tree.ancestors(node.id)):
        for seg in evidence_segments(state, services, q, k=k):
            out.setdefault(seg.key, seg)
    return out


def subtree_keys(tree: AspectTree, node_id: str, assignments: dict[str, str]) -> list[str]:
    """Segment keys classified to `node_id` or any of its descendants."""
    ids = {node_id}
    frontier = [node_id]
    while frontier:
        nid = frontier.pop()
        for child in tree.nodes[nid].children:
            ids.add(child)
            frontier.append(child)
    return [k for k, n in assignments.items() if n in ids]


def counted_keys(tree: AspectTree, node_id: str, assignments: dict[str, str]) -> list[str]:
    """The segment keys an aspect's consensus counts: those classified to it or below it; for the
    root, every classified segment."""
    return list(assignments) if node_id == tree.ROOT else subtree_keys(tree, node_id, assignments)


def counted_stances(state: InvestigationState, tree: AspectTree, node_id: str) -> dict[str, Stance]:
    """Segment key -> stance of what an aspect's consensus counts: the classified segments whose
    stance was read (counted_keys), a sentence of a document whose local label is No Evidence as
    neutral. The root counts the sentences the verdict's local labels rest on, each with its label's
    sign (tools.weigh.consistency.verdict_evidence), so that it never reads "no evidence", or another
    way than the verdict, beside a verdict on the same documents (until documents are labelled, it counts
    like any aspect)."""
    stances = {k: Stance(v["label"]) for k, v in (state.get("stances") or {}).items()}
    out = {k: stances[k] for k in counted_keys(tree, node_id, state.get("assignments") or {}) if k in stances}
    if node_id == tree.ROOT and state.get("assessments"):
        labels = {d: (LocalLabel(a["assessment"]["label"]), [i for i in a["assessment"].get("cited_sentences") or []
                                                            if isinstance(i, int)])
                  for d, a in (state.get("assessments") or {}).items()}
        # The root is the claim itself: it takes the sides the documents' labels take, on the sentences
        # those labels rest on, each with its label's sign. Counting every classified segment by its own
        # stance read "controversial" (+1 / -1) beside a "leaning refuted" verdict on the same documents.
        # Before any document is labelled (a run stopped after the aspects) there is no verdict to agree
        # with, and the root counts its classified segments like any aspect.
        return verdict_evidence(labels)
    # A document the verdict reads as No Evidence takes no side in any aspect: its sentences count as
    # neutral, so no aspect supports or opposes with what the documents table calls no evidence.
    silent = {d for d, a in (state.get("assessments") or {}).items()
              if a["assessment"].get("label") == LocalLabel.NO_EVIDENCE.value}
    if silent:
        out = {k: Stance.NEUTRAL if (p := SentenceKey.read(k)) is not None and p.doc_id in silent else stance
               for k, stance in out.items()}
    return out


def counted_perspectives(state: InvestigationState, tree: AspectTree, node_id: str) -> dict[Stance, Dumped]:
    """An aspect's perspective records (tools.explain.Perspective as JSON) by stance, each citing only
    sentences the aspect counts with that stance (counted_stances). A quoted perspective loses the quote
    of a sentence counted otherwise; one left with no quote, or a written one whose sentences are not all
    counted with its stance (a summary cannot be parted by citation), is left out."""
    # Perspectives are written before the documents are labelled, from the stances read per sentence;
    # a sentence of a document the verdict then reads as No Evidence counts as neutral under the aspect.
    # It is left out of the perspective rather than shown as a "neutral" side: a perspective is what the
    # findings taking a side say, the documents table says that document takes none, and the aspect's
    # quote list still shows the sentence, as neutral, so a scientist reads one label per sentence.
    counted = counted_stances(state, tree, node_id)
    records = perspective_records(state)
    out: dict[Stance, Dumped] = {}
    for stance in Stance:
        p = records.get(f"{node_id}:{stance.value}")
        if not p or not p.get("summary"):
            continue
        cites = list(p.get("citations") or [])
        kept = [i for i, k in enumerate(cites) if counted.get(k) == stance]
        quotes = list(p.get("quotes") or [])
        if len(kept) == len(cites):
            out[stance] = p
        elif kept and p.get("mode") == "extractive" and len(quotes) == len(cites):
            said = [quotes[i] for i in kept]
            out[stance] = {**p, "summary": " ".join(said), "citations": [cites[i] for i in kept], "quotes": said,
                           "sentences_checked": len(said), "sentences_supported": len(said)}
    return out


def retrieval_score(state: InvestigationState, doc_id: str) -> float:
    """A gathered document's best retrieval score (0 for one not gathered)."""
    record = (state.get("documents") or {}).get(doc_id)
    return float(record["score"]) if record else 0.0


def reputation_score(state: InvestigationState, doc_id: str) -> float | None:
    """A weighed document's reputation prior, None for one that was not weighed."""
    rep = (state.get("reputation") or {}).get(doc_id)
    return float(rep["score"]) if rep is not None else None


def trust_score(state: InvestigationState, doc_id: str) -> float | None:
    """A weighed document's propagated trust, None for one that was not weighed."""
    score = ((state.get("trust") or {}).get("scores") or {}).get(doc_id)
    return float(score) if score is not None else None


def doc_weight(state: InvestigationState, doc_id: str) -> float:
    """reputation x trust, the weight of a document's evidence; the prior for unassessed ones."""
    rep, trust = reputation_score(state, doc_id), trust_score(state, doc_id)
    if rep is None or trust is None:
        return 0.5
    return rep * trust


def cited_sentences(state: InvestigationState, doc_id: str) -> list[int]:
    """The sentences a weighed document's local label cites ([] for one not weighed)."""
    record = (state.get("assessments") or {}).get(doc_id)
    return list(record["assessment"].get("cited_sentences", [])) if record else []


def stance_label(state: InvestigationState, key: str) -> str | None:
    """The stance toward the claim read for segment `key`, None for one not assessed."""
    read = (state.get("stances") or {}).get(key)
    return read["label"] if read else None


def local_assessments(state: InvestigationState) -> list[LocalAssessment]:
    """The weighed documents' local labels."""
    return [LocalAssessment.model_validate(a["assessment"]) for a in (state.get("assessments") or {}).values()]


def verdict_of(state: InvestigationState) -> Verdict | None:
    """The global verdict, None before one is reached."""
    raw = state.get("verdict")
    return Verdict.model_validate(raw) if raw else None


# ------------------------------------------------------------------------------------ records
# The records as stored, each with its value before the step that writes it ran. A reader above
# that interprets a record is preferred; these serve the report and the chat, which show them.


def claim_of(state: InvestigationState) -> str:
    """The claim investigated (as accepted at intake)."""
    return state.get("claim", "")


def analysis_record(state: InvestigationState) -> Dumped:
    """The claim's analysis (tools.read.claim_analysis.ClaimAnalysis as JSON); {} before it."""
    return state.get("analysis") or {}


def gathered_documents(state: InvestigationState) -> dict[str, DocumentRecord]:
    """The gathered documents' records, by id."""
    return state.get("documents") or {}


def screen_of(state: InvestigationState) -> ScreenRecord:
    """The screen after gathering ({} before it)."""
    return state.get("screen") or {}


def assessment_records(state: InvestigationState) -> dict[str, AssessmentRecord]:
    """The weighed documents' takeaways and local labels, by id."""
    return state.get("assessments") or {}


def reputation_records(state: InvestigationState) -> dict[str, ReputationRecord]:
    """The weighed documents' reputation records, by id."""
    return state.get("reputation") or {}


def trust_record(state: InvestigationState) -> TrustRecord:
    """Trust propagation's result ({} before it)."""
    return state.get("trust") or {}


def stance_records(state: InvestigationState) -> dict[str, StanceRecord]:
    """The stance read for each assessed segment, by key."""
    return state.get("stances") or {}


def consensus_records(state: InvestigationState) -> dict[str, Dumped]:
    """Each aspect's consensus (tools.weigh.verdict.Consensus as JSON), by node id."""
    return state.get("node_consensus") or {}


def perspective_records(state: InvestigationState) -> dict[str, Dumped]:
    """The perspective summaries (tools.explain.Perspective as JSON), by "node:stance"."""
    return state.get("perspectives") or {}


def explanation_record(state: InvestigationState) -> Dumped:
    """The explanation (tools.explain.Explanation as JSON); {} before it."""
    return state.get("explanation") or {}


def source_reports(state: InvestigationState) -> list[SourceReportRecord]:
    """What each scholarly source returned for each query."""
    return list(state.get("source_reports") or [])


def decisions_of(state: InvestigationState) -> list[DecisionRecord]:
    """A guided session's review decisions, in order."""
    return list(state.get("decisions") or [])


def usage_of(state: InvestigationState) -> dict[str, dict[str, float]]:
    """LLM usage per prompt name."""
    return state.get("usage") or {}


def timings_of(state: InvestigationState) -> dict[str, float]:
    """Seconds per step."""
    return state.get("timings") or {}


def warnings_of(state: InvestigationState) -> list[str]:
    """The warnings recorded so far, in order (repeats kept)."""
    return list(state.get("warnings") or [])


def status_of(state: InvestigationState) -> str | None:
    """The run's status, None before a step set one."""
    return state.get("status")


def report_record(state: InvestigationState) -> Dumped:
    """The report as stored (agent.report.Report as JSON); {} before the report step."""
    return state.get("report") or {}


def built_tree(state: InvestigationState) -> AspectTree | None:
    """The aspect tree, None before the hierarchy step built one."""
    return tree_of(state) if state.get("tree") else None


# ------------------------------------------------------------------------------------ changes
# What follow-ups change in a finished investigation before it is recomputed from a step
# (Investigator.rerun_from): state updates, built here so that the records' shape stays known here.


def without_source(state: InvestigationState, doc_id: str) -> dict[str, Any]:
    """The state changes that drop `doc_id` from an investigation before it is recomputed from the
    assess step: its record, its sentences under every aspect (the tree is not regrown) and its place
    in the screen's lists, so the recomputed report neither shows nor cites it."""
    changes: dict[str, Any] = {"documents": {doc_id: None}}

    def other(key: str) -> bool:
        parsed = SentenceKey.read(key)
        return parsed is None or parsed.doc_id != doc_id

    tree = built_tree(state)
    if tree is not None:
        for node in tree.nodes.values():
            pairs = list(zip(node.segment_keys, node.segment_scores, strict=False))
            node.segment_keys = [k for k in node.segment_keys if other(k)]
            node.segment_scores = [sc for k, sc in pairs if other(k)]
        changes["tree"] = tree.model_dump(mode="json")
    screen: dict[str, Any] = dict(screen_of(state))
    if screen:
        if doc_id in (screen.get("labels") or {}):
            screen["checked"] = max(0, int(screen.get("checked") or 0) - 1)
        for key in ("evidence", "on_subject", "without_object"):  # the screen's lists of document ids
            screen[key] = [d for d in screen.get(key, []) if d != doc_id]
        for key in ("labels", "confidence"):  # and its per-document readings
            screen[key] = {d: x for d, x in (screen.get(key) or {}).items() if d != doc_id}
        changes["screen"] = screen
        if not screen.get("evidence"):
            # The last evidence is gone: assess cannot run again, so nothing read from the evidence
            # may reach the recomputed report (it kept the ignored source's label and citations).
            changes.update({"relevance": {}, "assignments": {}, "stances": {}, "node_consensus": {},
                            "perspectives": {}, "assessments": {}, "reputation": {}, "explanation": {}})
    return changes


def grown_under(state: InvestigationState, node_id: str) -> dict[str, Any]:
    """The state changes that grow the aspect tree one level under `node_id` alone when the
    hierarchy step runs again: the node re-opened, every other leaf kept closed, and the run's depth
    raised to reach the new level (past the deepest level the options allow, an InputError with
    their line)."""
    tree = tree_of(state)
    node = tree.nodes[node_id]
    node.expanded = False
    for nid, n in tree.nodes.items():
        if nid != node_id and not n.children:
            n.expanded = True
    opts = options_of(state)
    deeper = validated(InvestigationOptions, {**opts.model_dump(), "depth": max(opts.depth, node.depth + 1)})
    return {"tree": tree.model_dump(mode="json"), "options": deeper.model_dump(mode="json")}
