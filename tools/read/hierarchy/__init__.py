"""Claim-specific aspect hierarchy, after ClaimSpect (Kargupta et al., arXiv 2506.10728).

The tree is built by the graph one step at a time; each function here is one step and keeps no state
of its own:

1. `propose_aspects` — the LLM proposes the top-k aspects of the claim (or the sub-aspects of a node
   from that node's top-ranked segments); when the LLM fails, keyword clusters of the segments.
2. `enrich_keywords` — the node's keywords are refreshed from the segments retrieved for it.
3. `rank_segments` — segments are ranked for a node by the discriminative score (below), and the
   node keeps its ranked segment keys.
4. `merge_siblings` — near-duplicate sibling proposals are merged before they enter the tree.

Proposed names are tidied into phrases and checked (`tools.text.text_guard`): a name that reads as a
finding is dropped, a description copied from an excerpt is replaced by a written one. Which
segments a node may be grown from and keep is decided by `tools.read.relevance.node_relevance`.

Discriminative score of segment s for node t with siblings N (ClaimSpect; docs/methods/hierarchy.md):
    pos(s) = harmonic-weighted mean (weights 1, 1/2, 1/3, ...) of cos(s, q_i), queries from `node_queries`
    neg(s) = 0.5 * mean_{n in N} pos_n(s) + 0.5 * max_{n in N} pos_n(s)
    score  = (beta * pos) / (gamma * neg)

One module per concern: terms (content words and the shared text helpers), tree (drafts, nodes and
the tree), cache (the embedding cache), ranking (node queries and the discriminative score),
merging (near-duplicate siblings), clusters (salient terms, keyword clusters, prompt excerpts),
proposal (the LLM steps with their fallbacks). Import from the package: its names are re-exported
here.
"""

from claimscope.tools.read.hierarchy.cache import CachedEmbedder, cached
from claimscope.tools.read.hierarchy.clusters import (
    EXCERPT_CHARS,
    MAX_EXCERPTS,
    format_excerpts,
    keyword_clusters,
    salient_terms,
)
from claimscope.tools.read.hierarchy.merging import merge_siblings
from claimscope.tools.read.hierarchy.proposal import (
    enrich_keywords,
    propose_aspects,
    written_description,
)
from claimscope.tools.read.hierarchy.ranking import (
    NEG_FLOOR,
    discriminative_scores,
    harmonic_mean_rows,
    node_queries,
    rank_segments,
)
from claimscope.tools.read.hierarchy.tree import (
    DESCRIPTION_CHARS,
    KEYWORD_CHARS,
    NAME_CHARS,
    ROOT_ID,
    AspectDraft,
    AspectNode,
    AspectTree,
)

__all__ = [
    "DESCRIPTION_CHARS",
    "EXCERPT_CHARS",
    "KEYWORD_CHARS",
    "MAX_EXCERPTS",
    "NAME_CHARS",
    "NEG_FLOOR",
    "ROOT_ID",
    "AspectDraft",
    "AspectNode",
    "AspectTree",
    "CachedEmbedder",
    "cached",
    "discriminative_scores",
    "enrich_keywords",
    "format_excerpts",
    "harmonic_mean_rows",
    "keyword_clusters",
    "merge_siblings",
    "node_queries",
    "propose_aspects",
    "rank_segments",
    "salient_terms",
    "written_description",
]
