"""Guided fact-check sessions: the review points where the graph pauses for a person.

With `options.guided`, the planner routes to the `review` node after the claim analysis
("claim"), after gathering ("sources"), once the hierarchy is complete ("hierarchy") and after the
verdict ("verdict"). The node pauses with a LangGraph interrupt that shows what was found and what
the person may do; the person's decision (validated here) is applied and recorded in the state,
and so in the report. Until a decision arrives the session stays paused in the checkpointer, so
the process may exit and the session be resumed later.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from langgraph.runtime import Runtime
from langgraph.types import interrupt
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from claimscope.agent.graph.events import emit
from claimscope.agent.graph.readers import segments_for_node, tree_of
from claimscope.agent.graph.state import InvestigationState
from claimscope.agent.graph.steps import TABLE
from claimscope.agent.services import Services
from claimscope.tools.errors import InputError
from claimscope.tools.read.hierarchy import AspectDraft, rank_segments
from claimscope.tools.text.text_guard import strip_control

ReviewPoint = Literal["claim", "sources", "hierarchy", "verdict"]
# point -> the step after which it is due (the table's `review` column), in the order of the steps
REVIEW_AFTER: dict[str, str] = {s.review: s.name for s in TABLE if s.review is not None}


class ClaimDecision(BaseModel):
    """Accept the analysis or edit it."""

    model_config = ConfigDict(extra="forbid")  # a mistyped field is refused, not ignored

    anti_claim: str | None = Field(None, max_length=500, description="Replacement anti-claim.")
    sub_claims: list[str] | None = Field(None, max_length=10, description="Replacement sub-claims.")
    extra_queries: list[str] = Field(default_factory=list, max_length=10, description="More search queries.")
    claim_kind: Literal["empirical", "debate"] | None = Field(
        None, description="Read the claim as empirical (findings on its relation) or debate (arguments for / against).")


class SourcesDecision(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a mistyped field is refused, not ignored

    exclude: list[str] = Field(default_factory=list, description="Document ids to drop from the evidence.")
    add: list[str] = Field(default_factory=list, description="Document ids or DOIs to add (from the local corpora).")


class HierarchyEdit(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a mistyped field is refused, not ignored

    op: Literal["rename", "merge", "delete", "add"]
    node_id: str | None = Field(None, description="The node renamed, merged away, or deleted.")
    into: str | None = Field(None, description="merge: the node that absorbs node_id.")
    parent_id: str | None = Field(None, description="add: the parent of the new aspect ('root' for top level).")
    name: str | None = Field(None, max_length=120)
    description: str | None = Field(None, max_length=400)


class HierarchyDecision(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a mistyped field is refused, not ignored

    edits: list[HierarchyEdit] = Field(default_factory=list)


class VerdictDecision(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a mistyped field is refused, not ignored

    accept: bool = True
    note: str = Field("", max_length=2000, description="The reviewer's comment, kept in the report.")

    @field_validator("note")
    @classmethod
    def _printable(cls, v: str) -> str:
        return strip_control(v, keep_newlines=True).strip()


DECISIONS: dict[str, type[BaseModel]] = {
    "claim": ClaimDecision, "sources": SourcesDecision, "hierarchy": HierarchyDecision, "verdict": VerdictDecision,
}


def due_review(state: InvestigationState) -> str | None:
    """The review point that is due now, if the session is guided."""
    if not (state.get("options") or {}).get("guided"):
        return None
    reviewed = {d.get("point") for d in state.get("decisions", [])}
    done = set(state.get("done", []))
    for point, after in REVIEW_AFTER.items():
        if point in reviewed or after not in done:
            continue
        if point == "hierarchy" and not state.get("hierarchy_complete"):
            continue
        if point in ("hierarchy", "verdict") and not state.get("documents"):
            continue
        return point
    return None


def decision_from_text(text: str) -> Any:
    """A decision as a person types it (the CLI's -d / --ask, the web app's JSON field): 'accept'
    (or empty, a, y, yes), else a JSON object; parse_decision validates it for its review point."""
    text = text.strip()
    if text.lower() in ("", "accept", "a", "y", "yes"):
        return "accept"
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"a decision is 'accept' or a JSON object, e.g. '{{\"exclude\": [\"12\"]}}'; "
                         f"got {text!r} ({exc.msg}).") from exc


def parse_decision(point: str, raw: Any, summary: dict[str, Any] | None = None) -> BaseModel:
    """Validate a person's decision for `point`; a clear InputError says what is accepted.

    With the pending review's `summary`, ids the decision names are checked against what the review
    showed, so an edit of a node or document that is not there is refused instead of recorded."""
    model = DECISIONS.get(point)
    if model is None:
        raise InputError(f"unknown review point {point!r}; expected one of {sorted(DECISIONS)}.")
    if raw in (None, "", "accept", True):
        raw = {}
    try:
        decision = model.model_validate(raw)
    except ValidationError as exc:
        fields = ", ".join(model.model_fields)
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise InputError(f"invalid decision for the {point} review ({where + ': ' if where else ''}{err['msg']}); "
                         f"it takes an object with: {fields}.") from exc
    if summary is not None:
        _check_ids(point, decision, summary)
    return decision


def _check_ids(point: str, decision: BaseModel, summary: dict[str, Any]) -> None:
    if isinstance(decision, HierarchyDecision):
        nodes = {str(n.get("id")) for n in summary.get("nodes") or []}
        for e in decision.edits:
            named = {"node_id": e.node_id, "into": e.into}
            if e.op == "add":
                named = {"parent_id": e.parent_id or "root"}
            elif e.op != "merge":
                named = {"node_id": e.node_id}
            for key, value in named.items():
                if value is None:
                    raise InputError(f"invalid decision for the hierarchy review: {e.op} needs {key}.")
                if value == "root" and key != "parent_id":
                    raise InputError(f"invalid decision for the hierarchy review: the root (the claim itself) "
                                     f"cannot be the node of a {e.op}.")
                if value not in nodes and not (key == "parent_id" and value == "root"):
                    shown = ", ".join(sorted(nodes)) or "none"
                    raise InputError(f"invalid decision for the hierarchy review: {e.op} names node {value!r}, "
                                     f"which is not in the tree (nodes: {shown}).")
    elif isinstance(decision, SourcesDecision):
        docs = {str(d.get("id")) for d in summary.get("documents") or []}
        missing = [d for d in decision.exclude if d not in docs]
        if missing:
            raise InputError(f"invalid decision for the sources review: exclude names {', '.join(map(repr, missing))}, "
                             "not among the gathered documents (see the review's list of documents).")


def _summary(point: str, state: InvestigationState) -> dict[str, Any]:
    if point == "claim":
        a = state.get("analysis") or {}
        return {"claim_type": a.get("claim_type"), "claim_kind": a.get("claim_kind"), "anti_claim": a.get("anti_claim"),
                "sub_claims": a.get("sub_claims", []), "queries": a.get("queries", [])}
    if point == "sources":
        docs = state.get("documents") or {}
        return {"documents": [{"id": d, **v} for d, v in sorted(docs.items(), key=lambda kv: -kv[1]["score"])]}
    if point == "hierarchy":
        tree = state.get("tree") or {"nodes": {}}
        return {"nodes": [{"id": n["id"], "name": n["name"], "description": n["description"],
                           "parent_id": n["parent_id"]} for n in tree["nodes"].values() if n["id"] != "root"]}
    return {"verdict": state.get("verdict")}


ACTIONS = {
    "claim": "accept ({}), or edit: {anti_claim, sub_claims, extra_queries, claim_kind: empirical|debate}",
    "sources": "accept ({}), or {exclude: [doc ids], add: [doc ids or DOIs]}",
    "hierarchy": "accept ({}), or {edits: [{op: rename|merge|delete|add, node_id, into, parent_id, name, description}]}",
    "verdict": "accept ({}), or {accept: false, note: '...'}",
}


def review(state: InvestigationState, runtime: Runtime[Services]) -> dict[str, Any]:
    point = due_review(state)
    if point is None:
        return {}
    emit("step_started", "review", f"waiting for the {point} review")
    raw = interrupt({"point": point, "summary": _summary(point, state), "actions": ACTIONS[point]})
    try:
        decision = parse_decision(point, raw)
    except InputError as exc:
        # A bad answer must not lose the session: record it and ask again at the same point.
        emit("warning", "review", str(exc))
        return {"warnings": [str(exc)]}
    update = _apply(point, decision, state, runtime.context)
    record = {"point": point, "decision": decision.model_dump(mode="json"), "applied": update.pop("_applied", [])}
    update["decisions"] = [record]
    emit("step_finished", "review", f"{point} review recorded")
    return update


def _apply(point: str, d: BaseModel, state: InvestigationState, services: Services) -> dict[str, Any]:
    applied: list[str] = []
    if isinstance(d, ClaimDecision):
        a = dict(state.get("analysis") or {})
        if d.anti_claim:
            a["anti_claim"] = d.anti_claim
            a["anti_claim_source"] = "person"
            applied.append("anti-claim replaced")
        elif d.anti_claim == "" and a.get("anti_claim"):  # emptied: no anti-claim is searched
            a["anti_claim"] = ""
            a["anti_claim_source"] = "person"
            applied.append("anti-claim removed")
        if d.sub_claims is not None:
            a["sub_claims"] = [s for s in d.sub_claims if s.strip()] or [state["claim"]]
            applied.append("sub-claims replaced")
        if d.extra_queries:
            a["queries"] = [*a.get("queries", []), *d.extra_queries]
            applied.append(f"{len(d.extra_queries)} queries added")
        if d.claim_kind and d.claim_kind != a.get("claim_kind"):
            a["claim_kind"] = d.claim_kind
            applied.append(f"claim read as {d.claim_kind}")
        return {"analysis": a, "_applied": applied}
    if isinstance(d, SourcesDecision):
        return _apply_sources(d, state, services)
    if isinstance(d, HierarchyDecision):
        return _apply_hierarchy(d, state, services)
    assert isinstance(d, VerdictDecision)
    outcome = "verdict accepted" if d.accept else "verdict disputed by the reviewer"
    # The note goes into what was applied, which every report format shows as the decision.
    note = " ".join(strip_control(d.note).split())
    return {"_applied": [f"{outcome}: {note}" if note else outcome]}


def _apply_sources(d: SourcesDecision, state: InvestigationState, services: Services) -> dict[str, Any]:
    docs = state.get("documents") or {}
    change: dict[str, Any] = {}
    applied: list[str] = []
    warnings: list[str] = []
    for doc_id in d.exclude:
        if doc_id not in docs:
            warnings.append(f"exclude: {doc_id} is not among the gathered documents")
            continue
        change[doc_id] = None  # the documents reducer drops keys set to None
        applied.append(f"excluded {doc_id}")
    corpora = list((state.get("options") or {}).get("corpora") or [])
    if state.get("investigation_corpus"):
        corpora.append(state["investigation_corpus"])
    for ref in d.add:
        found = _find_document(services, ref, corpora)
        if found is None:
            warnings.append(f"add: no document with id or DOI {ref!r} in corpora {corpora}")
            continue
        doc_id, corpus = found
        change[doc_id] = {"corpus": corpus, "found_by": ["person"], "score": 1.0}
        applied.append(f"added {doc_id}")
    update: dict[str, Any] = {"documents": change, "_applied": applied, "warnings": warnings}
    screen = state.get("screen")
    if screen is not None and change:
        # A document the person adds is evidence by their decision; an excluded one is gone.
        evidence = [d for d in screen.get("evidence", []) if change.get(d, {}) is not None]
        evidence += [d for d, v in change.items() if v is not None and d not in evidence]
        update["screen"] = {**screen, "evidence": evidence}
        if evidence and state.get("status") == "no_evidence":
            update["status"] = "running"
    return update


def _find_document(services: Services, ref: str, corpora: list[str]) -> tuple[str, str] | None:
    """A document of the given corpora by id, else by DOI."""
    ref = ref.strip()
    doi = ref.lower().removeprefix("https://doi.org/").removeprefix("doi:")
    for corpus in corpora:
        hits = services.store.get_documents([ref], corpus=corpus)
        if not hits:
            hits = services.store.find_by_doi(doi, corpus=corpus)
        if hits:
            return hits[0].id, corpus
    return None


def _apply_hierarchy(d: HierarchyDecision, state: InvestigationState, services: Services) -> dict[str, Any]:
    tree = tree_of(state)
    applied: list[str] = []
    warnings: list[str] = []
    h = services.settings.hierarchy
    for e in d.edits:
        try:
            if e.op == "rename":
                node = tree.node(e.node_id or "")
                node.name = e.name or node.name
                node.description = e.description if e.description is not None else node.description
                applied.append(f"renamed {node.id} to {node.name!r}")
            elif e.op == "delete":
                _delete(tree, e.node_id or "")
                applied.append(f"deleted {e.node_id}")
            elif e.op == "merge":
                src, dst = tree.node(e.node_id or ""), tree.node(e.into or "")
                dst.keywords = list(dict.fromkeys([*dst.keywords, *src.keywords]))
                dst.segment_keys = list(dict.fromkeys([*dst.segment_keys, *src.segment_keys]))
                dst.segment_scores = dst.segment_scores + [0.0] * (len(dst.segment_keys) - len(dst.segment_scores))
                for cid in list(src.children):
                    tree.nodes[cid].parent_id = dst.id
                    dst.children.append(cid)
                src.children = []
                _delete(tree, src.id)
                applied.append(f"merged {e.node_id} into {e.into}")
            elif e.op == "add":
                if not e.name:
                    raise InputError("add needs a name")
                (child,) = tree.add_children(e.parent_id or "root",
                                             [AspectDraft(name=e.name, description=e.description or "")])
                child.expanded = True
                cands = segments_for_node(state, services, tree, child, k=h.segments_per_node * 3)
                ranked = rank_segments(child, tree.siblings(child.id), tree.ancestors(child.id), list(cands.values()),
                                       services.embedder, beta=h.beta, gamma=h.gamma, keep=h.segments_per_node)
                tree.set_segments(child.id, ranked)
                applied.append(f"added {child.id} {child.name!r}")
        except InputError as exc:
            warnings.append(f"hierarchy edit {e.op} skipped: {exc}")
    return {"tree": tree.model_dump(mode="json"), "_applied": applied, "warnings": warnings}


def _delete(tree: Any, node_id: str) -> None:
    if node_id == "root":
        raise InputError("the root (the claim itself) cannot be deleted")
    node = tree.node(node_id)
    stack = [node_id]
    while stack:
        nid = stack.pop()
        stack.extend(tree.nodes[nid].children)
        del tree.nodes[nid]
    parent = tree.nodes[node.parent_id]
    parent.children = [c for c in parent.children if c != node_id]
