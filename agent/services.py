"""The heavy collaborators of an investigation (store, embedder, LLM, stance model, scholarly
clients), built lazily from settings or injected (tests pass fakes). Passed to the graph as its
runtime context, so they are never checkpointed."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from claimscope.agent.resources import get_embedder, get_store
from claimscope.agent.settings import Settings, get_settings
from claimscope.tools.appraise.retractions import RetractionIndex
from claimscope.tools.find.scholarly import ScholarlySearch
from claimscope.tools.read.stance import load_argument_model, load_stance

if TYPE_CHECKING:
    from claimscope.tools.find.store import EvidenceStore
    from claimscope.tools.llm import StructuredLLM
    from claimscope.tools.models import Embedder, StanceScorer


@dataclass
class Services:
    settings: Settings = field(default_factory=get_settings)
    _store: Any = None
    _embedder: Any = None
    _llm: Any = None
    _stance: Any = None
    _argument: Any = None
    _scholarly: Any = None
    _retractions: Any = None

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = get_embedder(self.settings)
        return self._embedder

    @property
    def store(self) -> EvidenceStore:
        if self._store is None:
            self._store = get_store(self.settings)
        return self._store

    @property
    def llm(self) -> StructuredLLM:
        if self._llm is None:
            from claimscope.agent.llm import get_llm

            self._llm = get_llm(self.settings)
        return self._llm

    @property
    def llm_if_built(self) -> StructuredLLM | None:
        """The LLM if something already used it (reading usage must not start a model)."""
        return self._llm

    @property
    def stance(self) -> StanceScorer:
        if self._stance is None:
            s = self.settings.stance
            self._stance = load_stance(
                s.backend,
                label_map=s.label_map or None,
                batch_size=s.batch_size,
                max_length=s.max_length,
                llm=self.llm if s.backend == "llm" else None,
            )
        return self._stance

    @property
    def argument(self) -> StanceScorer:
        """The argument model that reads debate claims (tools.read.stance.load_argument_model)."""
        if self._argument is None:
            self._argument = load_argument_model(batch_size=self.settings.stance.batch_size)
        return self._argument

    @property
    def retractions(self) -> RetractionIndex:
        """The imported Retraction Watch index (search.retractions), read once and reread when the
        file changes."""
        if self._retractions is None:
            self._retractions = RetractionIndex(self.settings.resolve(self.settings.search.retractions))
        return self._retractions

    @property
    def scholarly(self) -> ScholarlySearch:
        if self._scholarly is None:
            s = self.settings.search
            self._scholarly = ScholarlySearch(
                cache_dir=self.settings.resolve("cache/scholarly/x").parent,
                per_query=s.per_query,
                timeout_s=s.timeout_s,
                max_retries=s.max_retries,
                cache_days=s.cache_days,
                s2_api_key=os.environ.get("SEMANTIC_SCHOLAR_API_KEY"),
                serpapi_key=os.environ.get("SERPAPI_API_KEY"),
            )
        return self._scholarly
