"""Claim-specific aspect hierarchy, after ClaimSpect (Kargupta et al., arXiv 2506.10728).

The tree is built by the graph one step at a time; each function here is one step and keeps no state
of its own:

1. `propose_aspects` — the LLM proposes the top-k aspects of the claim (or the sub-aspects of a node
   from that node's top-ranked segments); when the LLM fails, keyword clusters of the segments.
2. `enrich_keywords` — the node's keywords are refreshed from the segments retrieved for it.
3. `rank_segments` — segments are ranked for a node by the discriminative score (below), and the
   node keeps its ranked segment keys.
4. `merge_siblings` — near-duplicate sibling proposals are merged before they enter the tree.

Proposed names are tidied into phrases and checked (`tools.text_guard`): a name that reads as a
finding is dropped, a description copied from an excerpt is replaced by a written one. Which
segments a node may be grown from and keep is decided by `tools.relevance.node_relevance`.

Discriminative score of segment s for node t with siblings N (DESIGN.md):
    pos(s) = harmonic-weighted mean (weights 1, 1/2, 1/3, ...) of cos(s, q_i), queries from `node_queries`
    neg(s) = 0.5 * mean_{n in N} pos_n(s) + 0.5 * max_{n in N} pos_n(s)
    score  = (beta * pos) / (gamma * neg)
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import ClassVar, Literal, TypeVar

import numpy as np
from pydantic import BaseModel, Field

from claimscope.prompts import aspects as aspects_prompt
from claimscope.prompts import keywords as keywords_prompt
from claimscope.prompts import subaspects as subaspects_prompt
from claimscope.tools.errors import InputError
from claimscope.tools.llm import LLMError, StructuredLLM
from claimscope.tools.models import Embedder, Segment
from claimscope.tools.text_guard import copied_from, name_problems, tidy_name

log = logging.getLogger(__name__)

ROOT_ID = "root"
# Sibling affinities below this are treated as "unrelated": flooring keeps pos/neg finite and stops a
# slightly negative cosine from flipping the sign of the score.
NEG_FLOOR = 0.05
# Prompt budget for the embedded model (~70 prompt tokens/s): a handful of trimmed excerpts.
MAX_EXCERPTS = 8
EXCERPT_CHARS = 400

NAME_CHARS = 60
DESCRIPTION_CHARS = 200
KEYWORD_CHARS = 40

_STOPWORDS = frozenset(
    """a about above after again against all also although among an and any are as at be because
    been before being below between both but by can could did do does doing down during each either
    et al few for from further had has have having he her here hers him his how however i if in into
    is it its itself just may might more most much must my no nor not now of off on once only or
    other our out over own per same shall she should so some such than that the their them then there
    these they this those through to too under until up upon us very was we were what when where
    whether which while who whom why will with within without would yet you your respectively
    versus vs via using used use based show shows showed shown study studies result results
    found find finding findings among compared comparison data analysis associated association
    significant significantly higher lower increased decreased effect effects one two three
    patients group groups total including however therefore thus well whereas""".split()
)
_WORD = re.compile(r"[a-z][a-z0-9\-]{2,}")


class AspectDraft(BaseModel):
    """An aspect proposed for the tree, before it has an id."""

    name: str
    description: str = ""
    keywords: list[str] = Field(default_factory=list)
    origin: Literal["llm", "fallback"] = Field("llm", description="'fallback' when the LLM failed.")
    note: str = Field("", description="Why a fallback was used, for the run's warnings.")


class AspectNode(BaseModel):
    """One node of the aspect tree. The root is the claim itself."""

    id: str = Field(description="'root', then path ids '1', '1.2', '1.2.1'.")
    name: str
    description: str = ""
    keywords: list[str] = Field(default_factory=list)
    depth: int = Field(ge=0, description="0 for the root.")
    parent_id: str | None = None
    children: list[str] = Field(default_factory=list)
    segment_keys: list[str] = Field(default_factory=list, description="Ranked Segment.key ids.")
    segment_scores: list[float] = Field(default_factory=list, description="Scores of segment_keys.")
    expanded: bool = Field(False, description="True once sub-aspect discovery ran (even if it found none).")
    origin: Literal["claim", "llm", "fallback"] = "llm"


class AspectTree(BaseModel):
    """The claim's aspect hierarchy: a flat id -> node map with parent/child links."""

    ROOT: ClassVar[str] = ROOT_ID

    claim: str
    nodes: dict[str, AspectNode]

    @classmethod
    def new(cls, claim: str) -> AspectTree:
        claim = claim.strip()
        if not claim:
            raise InputError("The claim is empty: give the claim text to investigate.")
        root = AspectNode(id=ROOT_ID, name=claim, depth=0, origin="claim")
        return cls(claim=claim, nodes={ROOT_ID: root})

    def node(self, node_id: str) -> AspectNode:
        try:
            return self.nodes[node_id]
        except KeyError:
            raise InputError(f"No aspect {node_id!r} in the tree; known ids: {', '.join(self.nodes)}.") from None

    def add_children(self, parent_id: str, children: Sequence[AspectDraft | AspectNode]) -> list[AspectNode]:
        """Append children under `parent_id` with the next free path ids; marks the parent expanded."""
        parent = self.node(parent_id)
        prefix = "" if parent_id == ROOT_ID else parent_id + "."
        added = []
        for draft in children:
            number = len(parent.children) + 1
            child = AspectNode(
                id=f"{prefix}{number}",
                name=draft.name,
                description=draft.description,
                keywords=list(draft.keywords),
                depth=parent.depth + 1,
                parent_id=parent_id,
                origin="fallback" if draft.origin == "fallback" else "llm",
            )
            self.nodes[child.id] = child
            parent.children.append(child.id)
            added.append(child)
        parent.expanded = True
        return added

    def drop(self, node_id: str) -> None:
        """Remove a leaf; its later siblings move up one number ('1.3' becomes '1.2')."""
        node = self.node(node_id)
        if node.id == ROOT_ID or node.children:
            raise InputError(f"only a leaf other than the root can be dropped, not {node_id!r}.")
        parent = self.nodes[node.parent_id or ROOT_ID]
        position = parent.children.index(node_id)
        del self.nodes[node_id]
        parent.children.pop(position)
        prefix = "" if parent.id == ROOT_ID else parent.id + "."
        renamed = []
        for i, child_id in enumerate(parent.children[position:], start=position + 1):
            child = self.nodes.pop(child_id)
            if child.children:
                raise InputError(f"cannot renumber {child_id!r}: it has children.")
            child.id = f"{prefix}{i}"
            self.nodes[child.id] = child
            renamed.append(child.id)
        parent.children[position:] = renamed

    def mark_expanded(self, node_id: str) -> None:
        """Record that a node was tried and will not grow (so the loop can stop)."""
        self.node(node_id).expanded = True

    def set_keywords(self, node_id: str, keywords: Sequence[str]) -> None:
        self.node(node_id).keywords = list(keywords)

    def set_segments(self, node_id: str, ranked: Sequence[tuple[str, float]]) -> None:
        node = self.node(node_id)
        node.segment_keys = [k for k, _ in ranked]
        node.segment_scores = [float(s) for _, s in ranked]

    def children(self, node_id: str) -> list[AspectNode]:
        return [self.nodes[c] for c in self.node(node_id).children]

    def ancestors(self, node_id: str) -> list[AspectNode]:
        """From the root down to the parent (empty for the root)."""
        out = []
        current = self.node(node_id).parent_id
        while current is not None:
            out.append(self.nodes[current])
            current = self.nodes[current].parent_id
        return out[::-1]

    def siblings(self, node_id: str) -> list[AspectNode]:
        parent_id = self.node(node_id).parent_id
        if parent_id is None:
            return []
        return [n for n in self.children(parent_id) if n.id != node_id]

    def walk(self) -> list[AspectNode]:
        """All nodes, depth first, children in order."""
        out: list[AspectNode] = []
        stack = [ROOT_ID]
        while stack:
            node = self.nodes[stack.pop()]
            out.append(node)
            stack.extend(reversed(node.children))
        return out

    def leaves(self) -> list[AspectNode]:
        return [n for n in self.walk() if not n.children]

    def depth(self) -> int:
        return max(n.depth for n in self.nodes.values())

    def frontier(self, max_depth: int) -> list[AspectNode]:
        """Nodes that may still grow: not yet expanded and above `max_depth`."""
        return [n for n in self.walk() if not n.expanded and n.depth < max_depth]

    def render_text(self, texts: Mapping[str, str] | None = None, top_segments: int = 0) -> str:
        """Indented tree for the CLI and logs; with `texts` (segment key -> text), each node's top
        segments are listed under it."""
        lines = []
        for node in self.walk():
            indent = "  " * node.depth
            if node.id == ROOT_ID:
                lines.append(f"{node.name}")
            else:
                tag = " (fallback)" if node.origin == "fallback" else ""
                lines.append(f"{indent}[{node.id}] {node.name}{tag}: {node.description}")
                if node.keywords:
                    lines.append(f"{indent}    keywords: {', '.join(node.keywords)}")
            if texts is not None and top_segments > 0:
                for key, score in list(zip(node.segment_keys, node.segment_scores, strict=False))[:top_segments]:
                    text = _clip(texts.get(key, ""), 160)
                    lines.append(f"{indent}    - {key} ({score:.2f}) {text}")
        return "\n".join(lines)


class CachedEmbedder:
    """Wraps an Embedder so repeated texts (queries, segments ranked for several nodes) are encoded
    once. Pass one instance through a whole run to share the cache across steps."""

    def __init__(self, embedder: Embedder) -> None:
        self._inner = embedder
        self._cache: dict[str, np.ndarray] = {}

    @property
    def dim(self) -> int:
        return self._inner.dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            vectors = np.asarray(self._inner.encode(missing), dtype=np.float32)
            for text, vec in zip(missing, vectors, strict=True):
                self._cache[text] = vec
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])


def cached(embedder: Embedder) -> CachedEmbedder:
    """`embedder` itself if it already caches, else a caching wrapper for the duration of a call."""
    return embedder if isinstance(embedder, CachedEmbedder) else CachedEmbedder(embedder)


# ---------------------------------------------------------------------------------------------
# Queries and the discriminative score


def node_queries(node: AspectNode, ancestors: Sequence[AspectNode]) -> list[str]:
    """q0 = "name: description", then qi = "keyword_i with respect to <ancestors>" (ancestors from
    the root, whose name is the claim). Duplicates removed, order kept (the order sets the weights)."""
    context = ", ".join(a.name for a in ancestors if a.name.strip())
    first = f"{node.name}: {node.description}" if node.description.strip() else node.name
    queries = [first]
    for kw in node.keywords:
        queries.append(f"{kw} with respect to {context}" if context else kw)
    return list(dict.fromkeys(q for q in queries if q.strip()))


def harmonic_mean_rows(sims: np.ndarray) -> np.ndarray:
    """Row-wise weighted mean with weights 1, 1/2, 1/3, ... (normalised): earlier queries count more."""
    weights = 1.0 / np.arange(1, sims.shape[1] + 1, dtype=np.float64)
    return (sims @ weights) / weights.sum()


def _affinity(queries: Sequence[str], seg_vecs: np.ndarray, embedder: Embedder) -> np.ndarray:
    if not queries:  # a node with neither name nor keywords says nothing about any segment
        return np.zeros(len(seg_vecs))
    qv = embedder.encode(list(queries))
    return harmonic_mean_rows(seg_vecs.astype(np.float64) @ qv.astype(np.float64).T)


def discriminative_scores(
    node: AspectNode,
    siblings: Sequence[AspectNode],
    ancestors: Sequence[AspectNode],
    segments: Sequence[Segment],
    embedder: Embedder,
    *,
    beta: float,
    gamma: float,
) -> list[float]:
    """ClaimSpect's discriminative score of each segment for `node` (formula in the module doc).

    Siblings share the node's ancestors, so their queries use the same context. With no siblings
    neg is 1 (nothing to discriminate against). neg is floored at NEG_FLOOR.
    """
    if beta <= 0 or gamma <= 0:
        raise InputError(f"beta and gamma must be positive (got beta={beta}, gamma={gamma}); fix hierarchy.beta/gamma in config.yaml.")
    if not segments:
        return []
    emb = cached(embedder)
    seg_vecs = emb.encode([s.text for s in segments])
    pos = _affinity(node_queries(node, ancestors), seg_vecs, emb)
    if siblings:
        per_sibling = np.stack([_affinity(node_queries(s, ancestors), seg_vecs, emb) for s in siblings])
        neg = 0.5 * per_sibling.mean(axis=0) + 0.5 * per_sibling.max(axis=0)
    else:
        neg = np.ones_like(pos)
    neg = np.maximum(neg, NEG_FLOOR)
    return [float(x) for x in (beta * pos) / (gamma * neg)]


def rank_segments(
    node: AspectNode,
    siblings: Sequence[AspectNode],
    ancestors: Sequence[AspectNode],
    candidates: Sequence[Segment],
    embedder: Embedder,
    *,
    beta: float,
    gamma: float,
    keep: int,
) -> list[tuple[str, float]]:
    """The `keep` best (segment key, discriminative score) pairs for `node`, best first."""
    if keep < 1:
        raise InputError(f"keep must be at least 1 (got {keep}); fix hierarchy.segments_per_node.")
    unique = list({s.key: s for s in candidates}.values())
    scores = discriminative_scores(node, siblings, ancestors, unique, embedder, beta=beta, gamma=gamma)
    order = sorted(range(len(unique)), key=lambda i: -scores[i])
    return [(unique[i].key, scores[i]) for i in order[:keep]]


# ---------------------------------------------------------------------------------------------
# Merging near-duplicate siblings

A = TypeVar("A", AspectDraft, AspectNode)


def merge_siblings(nodes: Sequence[A], embedder: Embedder, *, threshold: float) -> list[A]:
    """Greedy merge, in order: an aspect whose "name: description" embedding has cosine >= threshold
    with an earlier kept aspect is folded into it (keywords and ranked segments unioned)."""
    if not nodes:
        return []
    vecs = cached(embedder).encode([f"{n.name}: {n.description}" for n in nodes])
    kept: list[int] = []
    merged: dict[int, A] = {}
    node: A
    for i, node in enumerate(nodes):
        target = next((j for j in kept if float(vecs[i] @ vecs[j]) >= threshold), None)
        if target is None:
            kept.append(i)
            merged[i] = node.model_copy(deep=True)
            continue
        into: A = merged[target]
        into.keywords = _dedupe([*into.keywords, *node.keywords])
        if isinstance(into, AspectNode) and isinstance(node, AspectNode):
            best = dict(zip(into.segment_keys, into.segment_scores, strict=False))
            for key, score in zip(node.segment_keys, node.segment_scores, strict=False):
                best[key] = max(score, best.get(key, score))
            ranked = sorted(best.items(), key=lambda kv: -kv[1])
            into.segment_keys = [k for k, _ in ranked]
            into.segment_scores = [s for _, s in ranked]
        log.info("merged near-duplicate aspect %r into %r", node.name, into.name)
    return [merged[i] for i in kept]


# ---------------------------------------------------------------------------------------------
# LLM steps with fallbacks


def propose_aspects(
    claim: str,
    llm: StructuredLLM,
    *,
    k: int,
    parent: AspectNode | None = None,
    ancestors: Sequence[AspectNode] = (),
    segments: Sequence[str] = (),
    n_keywords: int = 5,
) -> list[AspectDraft]:
    """Up to k aspect drafts: the claim's top-level aspects (parent None or the root), else the
    sub-aspects of `parent` discovered from its top-ranked `segments` (texts, best first).

    On LLMError (or an unusable answer) returns keyword clusters of `segments` (or generic evidence
    aspects when there are none) with origin='fallback' and a note saying so.
    """
    if not claim.strip():
        raise InputError("The claim is empty: give the claim text to investigate.")
    if k < 1:
        raise InputError(f"k must be at least 1 (got {k}); fix hierarchy.top_k.")
    n_keywords = max(1, min(8, n_keywords))
    ask = min(k, 8)
    top_level = parent is None or parent.id == ROOT_ID
    out: aspects_prompt.AspectsOutput | subaspects_prompt.SubaspectsOutput
    try:
        if top_level:
            out = llm.run(aspects_prompt.PROMPT, aspects_prompt.AspectsInput(claim=claim, k=ask, n_keywords=n_keywords))
        else:
            assert parent is not None
            path = "".join(f"{a.name} > " for a in ancestors if a.id != ROOT_ID)
            out = llm.run(
                subaspects_prompt.PROMPT,
                subaspects_prompt.SubaspectsInput(
                    claim=claim,
                    path=path,
                    aspect=parent.name,
                    description=parent.description,
                    excerpts=format_excerpts(segments),
                    k=ask,
                    n_keywords=n_keywords,
                ),
            )
        # Only sub-aspects are written from excerpts, so only they can copy one.
        drafts = _clean_drafts([(a.name, a.description, a.keywords) for a in out.aspects], exclude=parent,
                               sources=() if top_level else segments)
        if drafts:
            return drafts[:k]
        reason = "the LLM proposed no usable aspects"
    except LLMError as exc:
        reason = f"the LLM failed ({exc})"
    where = "the claim" if top_level else f"aspect {parent.name!r}" if parent else "the claim"
    context_terms = _terms(claim) | (_terms(parent.name) if parent and not top_level else set())
    drafts = keyword_clusters(segments, k=k, n_keywords=n_keywords, exclude=context_terms)
    if drafts:
        note = f"{reason}; aspects of {where} are keyword clusters of {len(segments)} segments"
    else:
        drafts = _generic_aspects(claim, k)
        note = f"{reason}; {where} got generic evidence aspects (no segments to cluster)"
    log.warning("propose_aspects: %s", note)
    return [d.model_copy(update={"origin": "fallback", "note": note}) for d in drafts]


def enrich_keywords(
    node: AspectNode,
    segments: Sequence[str],
    llm: StructuredLLM,
    *,
    max_keywords: int,
    claim: str = "",
) -> list[str]:
    """The node's keywords refreshed from its retrieved `segments` (texts, best first).

    Order: LLM keywords found in the segments, then the node's current keywords, then the other LLM
    keywords; capped at `max_keywords`. On LLMError the LLM part is replaced by salient terms of the
    segments (logged), so the step never fails.
    """
    if max_keywords < 1:
        raise InputError(f"max_keywords must be at least 1 (got {max_keywords}); fix hierarchy.keywords.")
    if not segments:
        return _dedupe(node.keywords)[:max_keywords]
    corpus = " ".join(s.lower() for s in segments)
    try:
        out = llm.run(
            keywords_prompt.PROMPT,
            keywords_prompt.KeywordsInput(
                claim=claim or node.name,
                aspect=node.name,
                description=node.description,
                current=", ".join(node.keywords) or "(none)",
                excerpts=format_excerpts(segments),
                n=min(8, max_keywords),
            ),
        )
        proposed = [k.lower()[:KEYWORD_CHARS].strip() for k in out.keywords]
        grounded = [k for k in proposed if k in corpus]
        others = [k for k in proposed if k not in corpus]
        return _dedupe([*grounded, *node.keywords, *others])[:max_keywords]
    except LLMError as exc:
        log.warning("enrich_keywords(%s): LLM failed (%s); using salient terms of %d segments", node.id, exc, len(segments))
        exclude = {w for k in node.keywords for w in _terms(k)}
        extra = [t for t, _ in salient_terms(segments, exclude=exclude)]
        return _dedupe([*node.keywords, *extra])[:max_keywords]


# ---------------------------------------------------------------------------------------------
# Keyword clustering (the no-LLM fallback)


def salient_terms(texts: Sequence[str], *, exclude: Collection[str] = (), limit: int = 50) -> list[tuple[str, float]]:
    """Content words and two-word phrases of `texts`, scored df * log(1 + N / df): frequent across
    the texts but not in all of them. With 4+ texts a term must occur in at least two."""
    docs = [_term_set(t, exclude) for t in texts]
    df: Counter[str] = Counter()
    for terms in docs:
        df.update(terms)
    n = len(docs)
    min_df = 2 if n >= 4 else 1
    scored = [(t, c * math.log(1 + n / c)) for t, c in df.items() if c >= min_df]
    scored.sort(key=lambda tc: (-tc[1], tc[0]))
    return scored[:limit]


def keyword_clusters(
    segments: Sequence[str], *, k: int, n_keywords: int = 5, exclude: Collection[str] = ()
) -> list[AspectDraft]:
    """Up to k aspects from the segments alone: seed terms chosen greedily so that no two seeds mostly
    share segments (Jaccard < 0.5), each with the terms that co-occur with it as keywords."""
    docs = [_term_set(t, exclude) for t in segments]
    if not docs:
        return []
    candidates = salient_terms(segments, exclude=exclude, limit=200)
    seeds: list[tuple[str, set[int]]] = []
    for term, _ in candidates:
        members = {i for i, d in enumerate(docs) if term in d}
        if any(_jaccard(members, m) >= 0.5 or term in s or s in term for s, m in seeds):
            continue
        seeds.append((term, members))
        if len(seeds) == k:
            break
    seed_terms = {s for s, _ in seeds}
    drafts = []
    for term, members in seeds:
        co: Counter[str] = Counter()
        for i in members:
            co.update(t for t in docs[i] if t not in seed_terms and term not in t)
        keywords = [term, *[t for t, _ in co.most_common(n_keywords - 1)]]
        drafts.append(
            AspectDraft(
                name=_clip(term, NAME_CHARS),
                description=_clip(f"What the evidence says about {term} ({len(members)} of {len(docs)} excerpts mention it).", DESCRIPTION_CHARS),
                keywords=keywords[:n_keywords],
            )
        )
    return drafts


def format_excerpts(segments: Sequence[str], *, limit: int = MAX_EXCERPTS, chars: int = EXCERPT_CHARS) -> str:
    """Numbered, trimmed excerpts for a prompt."""
    if not segments:
        return "(no excerpts)"
    return "\n".join(f"{i}. {_clip(' '.join(s.split()), chars)}" for i, s in enumerate(segments[:limit], start=1))


# ---------------------------------------------------------------------------------------------
# helpers


def _clean_drafts(items: Sequence[tuple[str, str, Sequence[str]]], exclude: AspectNode | None,
                  sources: Sequence[str] = ()) -> list[AspectDraft]:
    """Usable drafts: names tidied into phrases (slugs become words), names that are sentences or
    copies of a source dropped, descriptions copied from a source replaced by a written one."""
    seen = {exclude.name.strip().lower()} if exclude is not None else set()
    drafts = []
    for raw_name, raw_description, keywords in items:
        name = _clip(tidy_name(raw_name), NAME_CHARS)
        if not name or name.lower() in seen:
            continue
        if problems := name_problems(name) or (["is copied from an excerpt"] if copied_from(name, sources) else []):
            log.info("dropped aspect name %r: %s", name, "; ".join(problems))
            continue
        seen.add(name.lower())
        description = " ".join(raw_description.split())
        if not description or copied_from(description, sources) or copied_from(description, [name], min_words=1):
            description = written_description(name, exclude)
        drafts.append(
            AspectDraft(
                name=name,
                description=_clip(description, DESCRIPTION_CHARS),
                keywords=_dedupe(k.lower()[:KEYWORD_CHARS].strip() for k in keywords)[:8],
            )
        )
    return drafts


def written_description(name: str, parent: AspectNode | None) -> str:
    """The description given to an aspect whose own was a copied source sentence (or missing)."""
    within = f" within {parent.name}" if parent is not None and parent.id != ROOT_ID else ""
    return f"What the studies report on {name}{within}, and how it bears on the claim."


_GENERIC = [
    ("direct evidence", "Studies that directly test the claim and what they conclude.", ["direct test", "primary outcome", "main finding"]),
    ("effect size and outcomes", "How large and consistent the reported effects are across outcomes.", ["effect size", "outcome measure", "consistency"]),
    ("study quality and limitations", "Design, sample size, bias and other limits of the evidence.", ["study design", "sample size", "bias"]),
    ("population and context", "For whom and under which conditions the claim would hold.", ["population", "subgroup", "setting"]),
    ("mechanism", "Biological or causal mechanisms that would explain the claim.", ["mechanism", "pathway", "causal"]),
]


def _generic_aspects(claim: str, k: int) -> list[AspectDraft]:
    claim_terms = _ordered_terms(claim)[:3]
    return [
        AspectDraft(name=name, description=desc, keywords=_dedupe([*kws, *claim_terms])[:8])
        for name, desc, kws in _GENERIC[:k]
    ]


def _ordered_terms(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS]


def _terms(text: str) -> set[str]:
    return set(_ordered_terms(text))


def _term_set(text: str, exclude: Collection[str]) -> set[str]:
    words = _WORD.findall(text.lower())
    out = {w for w in words if w not in _STOPWORDS and w not in exclude}
    out.update(
        f"{a} {b}"
        for a, b in zip(words, words[1:], strict=False)
        if a not in _STOPWORDS and b not in _STOPWORDS and not (a in exclude and b in exclude)
    )
    return out


def _jaccard(a: set[int], b: set[int]) -> float:
    return len(a & b) / max(1, len(a | b))


def _dedupe(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for item in items:
        text = " ".join(str(item).split())
        if text and text.lower() not in seen:
            seen.add(text.lower())
            out.append(text)
    return out


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
