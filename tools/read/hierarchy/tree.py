"""The aspect tree: drafts proposed for it, its nodes with their ranked segments, and the tree
itself (a flat id -> node map with parent / child links, path ids, navigation and rendering).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from claimscope.tools.errors import InputError
from claimscope.tools.read.hierarchy.terms import _clip

ROOT_ID = "root"

NAME_CHARS = 60
DESCRIPTION_CHARS = 200
KEYWORD_CHARS = 40


class AspectDraft(BaseModel):
    """An aspect proposed for the tree, before it has an id."""

    name: str
    description: str = ""
    keywords: list[str] = Field(default_factory=list)
    terms: list[str] = Field(default_factory=list, description="Defining terms: a segment belongs to the "
                             "aspect only when it uses one (tools.read.hierarchy.facets); [] for a model-proposed one.")
    facet: str = Field("", description="The facet's kind (tools.read.hierarchy.facets.FACET_KINDS); '' for a "
                       "model-proposed aspect.")
    origin: Literal["llm", "fallback"] = Field("llm", description="'fallback' when the LLM failed.")
    note: str = Field("", description="Why a fallback was used, for the run's warnings.")


class AspectNode(BaseModel):
    """One node of the aspect tree. The root is the claim itself."""

    id: str = Field(description="'root', then path ids '1', '1.2', '1.2.1'.")
    name: str
    description: str = ""
    keywords: list[str] = Field(default_factory=list)
    terms: list[str] = Field(default_factory=list, description="Defining terms (see AspectDraft.terms).")
    facet: str = Field("", description="The facet's kind (see AspectDraft.facet).")
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
                terms=list(draft.terms),
                facet=draft.facet,
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

    def drop_leaves(self, node_ids: Collection[str]) -> None:
        """Remove several leaves (see `drop`), last-numbered first, so that the renumbering of later
        siblings never moves one still to drop."""
        for node_id in sorted(node_ids, key=lambda i: [int(x) for x in i.split(".")], reverse=True):
            self.drop(node_id)

    def mark_expanded(self, node_id: str) -> None:
        """Record that a node was tried and will not grow (so the loop can stop)."""
        self.node(node_id).expanded = True

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
