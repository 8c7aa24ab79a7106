"""Typed settings loaded from config.yaml, overridden by CLAIMSCOPE_* environment variables.

Precedence (highest first): explicit overrides (CLI flags) > environment > config file > defaults.
The config file is found at $CLAIMSCOPE_CONFIG, else ./config.yaml, else the copy packaged with
claimscope; a file other than the packaged one is named on stderr once per process.

Every section refuses keys it does not define (a misspelt key would otherwise be ignored and its
default used silently), and the settings that give a run option its default share that option's
bounds (agent/bounds.py), so a value no investigation could accept is refused here, at load.
"""

from __future__ import annotations

import difflib
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from claimscope.agent.bounds import (
    AspectsPerNode,
    ClaimKind,
    Depth,
    DocsPerQuery,
    Source,
    Sources,
    TopDocuments,
)
from claimscope.agent.sessions.url import url_problem
from claimscope.tools.appraise.study_design import DESIGN_SCORES
from claimscope.tools.errors import InputError
from claimscope.tools.find.store import ClusterParams


class ConfigError(InputError, ValueError):
    """A setting is malformed; the message says which and how to fix it."""


class _Section(BaseModel):
    """A config.yaml section: unknown keys are errors, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


class StoreSettings(_Section):
    path: str = Field("qdrant", description="Embedded store directory, Qdrant Edge (relative to data_dir).")
    url: str | None = Field(None, description="Qdrant server or cluster URL; when set, the embedded store is not used.")
    api_key: str | None = Field(None, description="API key of the Qdrant server (better set by environment: "
                                "CLAIMSCOPE_STORE__API_KEY).")
    cluster: ClusterParams = Field(default_factory=ClusterParams,
                                   description="Server only: how a new collection is laid out on a cluster.")
    collection: str = Field("claimscope", description="Collection holding every corpus.")
    fusion: Literal["rrf", "doc_rrf", "dense", "sparse"] = Field(
        "doc_rrf", description="How dense and keyword hits are combined (document- or segment-level RRF)."
    )
    rrf_k: int = Field(60, ge=1, description="RRF constant k.")
    prefetch: int = Field(200, ge=1, description="Candidates per index before fusion.")
    doc_aggregation: Literal["max", "sum_top2"] = Field("max", description="Sentence -> document score.")
    batch_size: int = Field(256, ge=1, description="Upsert batch size.")
    keyword_documents: bool = Field(
        True, description="Index a keyword vector of each whole title + abstract (used by doc_rrf)."
    )
    payload_memory: Literal["cached", "cold"] = Field(
        "cached", description="Embedded store, fixed when it is created: 'cached' reads the stored sentences "
        "and document records into memory when the store opens (fast from the first query; open time and "
        "memory grow with the corpus), 'cold' reads them from disk as queries need them (corpora larger "
        "than memory)."
    )
    quantization: Literal["int8", "none"] = Field(
        "int8", description="Embedded store, fixed when it is created: 'int8' keeps an int8 copy of the dense "
        "vectors in memory for the graph search and rescores the best candidates with the full vectors "
        "(fast queries on large stores); 'none' searches the full vectors only."
    )


class EmbeddingSettings(_Section):
    model: str = Field("packaged:all-MiniLM-L6-v2", description="Packaged model, HF name or local path.")
    batch_size: int = Field(32, ge=1, description="Encoding batch size.")
    threads: int = Field(0, ge=0, description="Encoder threads; 0 = library default.")
    backend: Literal["onnx-int8", "torch"] = Field(
        "onnx-int8", description="onnx-int8 (exported once into model_dir, ~3x faster on CPU) or torch."
    )


class LLMSettings(_Section):
    model: str = Field("embedded", description="'embedded' or any litellm model string.")
    embedded_model: Literal["qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"] = Field(
        "qwen2.5-coder-1.5b", description="Which embedded GGUF to serve."
    )
    context_size: int = Field(4096, ge=512, description="Embedded server context window.")
    threads: int = Field(0, ge=0, description="Embedded server threads; 0 = all cores.")
    api_base: str | None = Field(None, description="Base URL for an OpenAI-compatible server.")
    max_attempts: int = Field(3, ge=1, le=10, description="Attempts per structured call.")
    timeout_s: float = Field(120, gt=0, description="Seconds per LLM call.")
    retry_backoff_s: float = Field(1.0, ge=0, description="First retry wait; doubles per attempt.")
    model_dir: str = Field("models", description="Embedded GGUF cache directory (relative to data_dir).")
    tool_calling: Literal["auto", "native", "json"] = Field(
        "auto", description="Native tool calls, JSON-schema action choice, or auto by model support."
    )
    seed: int | None = Field(
        0, ge=0, description="Sampling seed (the n-th attempt of a call uses seed + n - 1), so the same "
        "prompt gets the same answer on a rerun; null = a fresh random sample every call. Sent only to "
        "models whose litellm provider accepts a seed.",
    )
    guard_text: bool = Field(
        True, description="Check every text field the model writes for repetition, another script, an echo "
        "of the instructions and run-on length; regenerate a failing answer once at a lower temperature, "
        "then fall back to the caller's extractive text with a warning.",
    )


class StanceSettings(_Section):
    backend: str = Field("packaged", description="'packaged', 'hf:<name or path>' or 'llm'.")
    label_map: dict[str, Literal["support", "neutral", "refute"]] = Field(
        default_factory=dict, description="Model label -> stance, for hf: backends."
    )
    batch_size: int = Field(64, ge=1, description="Pairs per batch.")
    max_length: int = Field(256, ge=16, description="Tokens per pair; longer evidence is truncated.")
    claim_kind: ClaimKind = Field(
        "auto", description="How claims are read when a run does not say: 'auto' detects debate claims (should / "
        "must / ban ...); 'empirical' = evidence must name both ends of the claim's relation and report a "
        "finding; 'debate' = evidence is an argument for or against the claim, read by the argument model.",
    )
    argument_model: bool = Field(
        True, description="Read debate claims with the argument model shipped in tools/read/argument_model (trained on "
        "PERSPECTRUM); false = read them like empirical claims (stance model and relation test).",
    )
    argument_min_relevance: float = Field(
        0.5, ge=0, le=1, description="Least probability the argument model gives 'for or against' for a text to "
        "count as an argument on a debate claim.",
    )


def _local_only() -> list[Source]:
    return ["local"]


class SearchSettings(_Section):
    sources: Sources = Field(default_factory=_local_only, description="Sources queried by default.")
    per_query: int = Field(20, ge=1, le=100, description="Results per query per scholarly source.")
    top_k: DocsPerQuery = Field(50, description="Documents kept from retrieval per query.")
    timeout_s: float = Field(20, gt=0, description="Seconds per scholarly request.")
    max_retries: int = Field(4, ge=0, description="Retries on 429 / 5xx / timeouts.")
    cache_days: int = Field(30, ge=0, description="Days a cached scholarly response is reused.")
    crossref: bool = Field(
        True, description="Look up Crossref notices (retractions, corrections) of evidence documents with a DOI "
        "when a scholarly source is selected.")
    retractions: str = Field(
        "retractions.json", description="Retraction Watch index (relative to data_dir), written by "
        "`claimscope retractions import`.")


class HierarchySettings(_Section):
    depth: Depth = Field(2, description="Depth of the aspect tree.")
    aspects: Literal["proposed", "facets"] = Field(
        "facets", description="Where the top-level aspects come from: facets of the claim's structure that the "
        "on-claim findings speak to (tools.read.hierarchy.facets; named by rules, none when no finding speaks to "
        "one), or proposed by the LLM from the claim and its segments.",
    )
    perspective_summaries: Literal["quoted", "written"] = Field(
        "quoted", description="An aspect's perspective per stance: its firmest findings quoted (each citing "
        "itself), or written by the LLM and attribution-checked.",
    )
    top_k: AspectsPerNode = Field(3, description="Aspects per node.")
    keywords: int = Field(8, ge=1, le=30, description="Keywords per aspect after enrichment.")
    beta: float = Field(1.0, gt=0, description="Discriminative score numerator weight.")
    gamma: float = Field(1.0, gt=0, description="Discriminative score denominator weight.")
    segments_per_node: int = Field(20, ge=1, description="Ranked segments kept per node.")
    merge_threshold: float = Field(0.8, ge=0, le=1, description="Sibling similarity above which they merge.")
    enrich_leaves: bool = Field(False, description="Enrich keywords of leaf aspects too (one LLM call each).")
    relevance_min_similarity: float = Field(
        0.30, ge=-1, le=1, description="Relevance filter: minimum cosine of a segment to the claim query."
    )
    relevance_top_margin: float = Field(
        0.5, ge=0, le=1, description="Relevance filter: also keep only segments >= this share of the best one's cosine."
    )
    relevance_keyword_weight: float = Field(
        0.5, ge=0, le=1, description="Weight of aspect keywords in the relevance query (0 = claim only)."
    )
    classify_min_similarity: float = Field(
        0.2, ge=-1, le=1, description="A segment moves down to a child aspect only if at least this similar."
    )
    classify_min_margin: float = Field(
        0.0, ge=0, le=1, description="...and at least this much more similar than the child's best sibling."
    )
    aspect_min_similarity: float = Field(
        0.30, ge=-1, le=1, description="A segment is about an aspect when its cosine with the aspect's wording "
        "('name: description') is at least this (and it addresses the claim).",
    )
    min_node_segments: int = Field(
        2, ge=1, le=20, description="Relevant segments a node needs to be split into sub-aspects, and a "
        "sub-aspect needs to be kept (fewer: it is rejected as off-claim).",
    )


class TrustSettings(_Section):
    alpha: float = Field(0.85, ge=0, le=1, description="ClaimTrust damping a.")
    prior: float = Field(0.5, ge=0, le=1, description="Prior of a source without reputation signal.")
    max_iterations: int = Field(100, ge=1, description="Propagation iteration cap.")
    tolerance: float = Field(1e-6, gt=0, description="Convergence tolerance (max abs change).")
    citation_ref: int = Field(1000, ge=1, description="Citations that score a full 1.0.")
    influential_ref: int = Field(100, ge=1, description="Influential citations that score 1.0.")
    half_life_years: float = Field(10.0, gt=0, description="Age at which the recency component is 0.5.")
    top_venues: list[str] = Field(default_factory=list, description="Venues scored 1.0 (substrings).")
    design_weight: float = Field(0.3, ge=0, le=1, description="Weight of the study-design component of the prior.")
    design_llm: bool = Field(
        False, description="Ask the model about abstracts whose design the patterns leave undecided (validated).")
    design_scores: dict[str, float] = Field(
        default_factory=lambda: dict(DESIGN_SCORES),
        description="Design component per study design: the evidence hierarchy.")
    graph_threshold: float = Field(0.5, ge=0, le=1, description="Stance probability of a graph edge.")
    key_sentences: int = Field(2, ge=1, le=10, description="Key sentences per document in the graph.")
    isolated: Literal["prior", "neutral"] = Field("prior", description="Trust of an unrelated document.")
    rerank_weight: float = Field(0.3, ge=0, le=1, description="Weight of trust when re-ranking evidence.")


class VerdictSettings(_Section):
    min_node_evidence: int = Field(
        2, ge=1, le=20, description="Segments taking a stance (support or oppose) an aspect needs for a "
        "settled consensus; with fewer its label is at most 'leaning' and the report says how little it rests on.",
    )
    top_documents: TopDocuments = Field(5, description="Documents given a takeaway and local label.")
    combined_assessment: bool = Field(
        True, description="Takeaway and local label in one LLM call per document (prompts/document_assessment.py)."
    )
    local_labels: Literal["auto", "hybrid", "stance", "llm"] = Field(
        "auto",
        description="Who labels each document: hybrid = the stance model decides evidence and sign, the LLM "
        "grades and explains the documents it counts as evidence; stance = the stance model alone (no LLM "
        "call per document); llm = the LLM alone, sign-checked (Tan et al.); auto = stance with the embedded "
        "LLM (whose label lost every sign disagreement on the benchmark), hybrid with any other model.",
    )

    def local_label_mode(self, llm_model: str) -> Literal["hybrid", "stance", "llm"]:
        """The judge that decides each document's label for this LLM (`local_labels`, auto resolved)."""
        if self.local_labels != "auto":
            return self.local_labels
        return "stance" if llm_model == "embedded" else "hybrid"
    support_threshold: float | None = Field(
        0.4, ge=0, le=1, description="Support probability that makes a document evidence for the claim; "
        "None = the stance model's own document rule.",
    )
    refute_threshold: float | None = Field(
        0.5, ge=0, le=1, description="Refute probability that makes a document evidence against the claim; "
        "None = the stance model's own document rule.",
    )
    document_decision: Literal["learned", "thresholds"] = Field(
        "learned", description="Which abstracts are evidence: the learned decision shipped with the stance model "
        "(stance + claim-component coverage, tools.read.document_model; thresholds when the model has none) or the "
        "support / refute thresholds alone.",
    )
    evidence_min_probability: float | None = Field(
        None, ge=0, le=1, description="Least probability the learned decision needs to call an abstract evidence; "
        "None = the one shipped with the stance model. Lower finds more of the evidence that is there and abstains "
        "less often on claims the corpus does not cover.",
    )
    screen_gathered: bool = Field(
        True, description="Right after gathering, decide which gathered abstracts are evidence; when none is, "
        "end with 'insufficient evidence' and say what was searched, without building aspects over off-claim text.",
    )
    min_documents_generally: int = Field(
        2, ge=1, description="Independent evidence documents a 'generally supported / refuted' verdict needs; "
        "with fewer the label is at most 'leaning'.",
    )
    debate_strong_labels: bool = Field(
        False, description="Allow 'generally supported / refuted' for debate claims; false = at most 'leaning': "
        "the argument model reads an argument's side right about 7 times in 10 (PERSPECTRUM dev).",
    )
    on_conflict: Literal["stance", "llm", "abstain"] = Field(
        "stance", description="hybrid labels: which label stands when the LLM and the stance model disagree "
        "in sign (always flagged): the stance model's, the LLM's, or neither (No Evidence).",
    )
    explanation_style: Literal["findings", "summary"] = Field(
        "findings", description="findings: choose the evidence sentences first, have the LLM restate each one "
        "(a quote where the restatement fails the attribution check); summary: one LLM call summarises "
        "the documents' labels and cites the evidence.",
    )
    unsupported_sentences: Literal["flag", "drop"] = Field("flag", description="Unattributed sentences.")
    recite_within_documents: bool = Field(
        True, description="A sentence failing against its citations is tested against every sentence of the "
        "documents it cites and re-cited to the one that supports it best (same threshold).",
    )
    unsupported_claim_echoes: Literal["drop", "flag"] = Field(
        "drop", description="Explanation sentences that only restate the claim (or the anti-claim) and fail the "
        "attribution check: drop them (they read as a finding) or flag them as interpretation like any other.",
    )
    revise_unsupported: bool = Field(
        False, description="Give each sentence that fails the attribution check one LLM revision to what its "
        "citations say; the revision replaces it only if it passes the check.",
    )
    attribution_threshold: float = Field(
        0.5, ge=0, le=1, description="Support probability an explanation sentence needs from its citations."
    )
    attribution_overlap: float | None = Field(
        0.9, gt=0, le=1, description="Share of an explanation sentence's content words found in its citations "
        "(same negations and numbers) that makes it an attributable restatement; None = stance model only.",
    )
    sign_conflict_margin: float = Field(
        0.2, ge=0, le=1, description="Dead band of the stance sign a local label is checked against."
    )
    confidence_pseudo_count: float = Field(2.0, gt=0, description="k of the coverage n / (n + k).")
    confidence_a: float | None = Field(2.1702, description="Platt slope of the confidence; None = raw.")
    confidence_b: float = Field(-0.5461, description="Platt intercept of the confidence.")


class SessionSettings(_Section):
    path: str = Field("sessions.sqlite", description="SQLite checkpointer file (relative to data_dir); "
                      "not used when sessions.url is set.")
    url: str | None = Field(
        None, description="PostgreSQL database for sessions (postgresql://USER:PASSWORD@HOST:5432/DATABASE): "
        "the checkpointer and the session index live there, shared by every claimscope process using the "
        "same URL; unset = SQLite files under data_dir. Needs the postgres extra; better set by "
        "environment: CLAIMSCOPE_SESSIONS__URL.")
    step_budget: int = Field(60, ge=1, description="Maximum graph steps per investigation.")

    @field_validator("url")
    @classmethod
    def _postgres_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        problem = url_problem(value)
        if problem is not None:
            # Said without the field name, which pydantic adds, and without echoing the value
            # (password included) as pydantic would.
            raise ValueError(problem)
        return value.strip()


class CheckSettings(_Section):
    """Bounds of checking a whole text (`claimscope check`, the web app, MCP and Python check_text)."""

    max_text_chars: int = Field(
        50_000, ge=100, description="Longest text a check takes, in characters: a press release or an abstract is "
        "a few thousand; a whole paper belongs in a corpus.")
    max_claims: int = Field(
        40, ge=1, description="Most check-worthy claims one check investigates: each takes about a minute on the "
        "embedded model.")


class _YamlSource(PydanticBaseSettingsSource):
    """Reads the YAML config file as the lowest-precedence explicit source."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        path = config_path()
        return {} if path is None else _read_config(path)


def _read_config(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        where = " ".join(str(exc).split())  # PyYAML's message spans lines; keep the error on one
        raise ConfigError(f"{path} is not valid YAML ({where}). Fix the file or set CLAIMSCOPE_CONFIG.") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must be a mapping of settings, got {type(data).__name__}.")
    return data


def packaged_config_path() -> Path:
    """The defaults shipped with claimscope: claimscope/config.yaml in a wheel, the repository's
    config.yaml in an editable install (both one level above this package)."""
    return Path(__file__).resolve().parent.parent / "config.yaml"


_ANNOUNCED: set[Path] = set()


def _announce(path: Path) -> None:
    """Name a config file other than the packaged defaults on stderr, once per process: a
    config.yaml in the working directory wins over the defaults and should not do so unseen."""
    resolved = path.resolve()
    if resolved == packaged_config_path() or resolved in _ANNOUNCED:
        return
    _ANNOUNCED.add(resolved)
    print(f"claimscope: settings from {resolved}", file=sys.stderr)


def config_path() -> Path | None:
    """The config file in use: $CLAIMSCOPE_CONFIG, ./config.yaml, or the packaged copy."""
    env = os.environ.get("CLAIMSCOPE_CONFIG")
    if env:
        p = Path(env).expanduser()
        if not p.is_file():
            raise ConfigError(f"CLAIMSCOPE_CONFIG points at {p}, which is not a file.")
        _announce(p)
        return p
    for p in (Path.cwd() / "config.yaml", packaged_config_path()):
        if p.is_file():
            _announce(p)
            return p
    return None


class Settings(BaseSettings):
    """All of claimscope's settings; see config.yaml for the documented defaults."""

    # Only CLAIMSCOPE_<FIELD> variables are read, so other CLAIMSCOPE_* variables (CLAIMSCOPE_CONFIG)
    # never reach "forbid"; a misspelt key under a section (CLAIMSCOPE_HIERARCHY__DETPH) does.
    model_config = SettingsConfigDict(env_prefix="CLAIMSCOPE_", env_nested_delimiter="__", extra="forbid")

    data_dir: Path = Field(Path("~/.claimscope"), description="Where state, caches and sessions live.")
    store: StoreSettings = Field(default_factory=StoreSettings)
    embeddings: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    stance: StanceSettings = Field(default_factory=StanceSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    hierarchy: HierarchySettings = Field(default_factory=HierarchySettings)
    trust: TrustSettings = Field(default_factory=TrustSettings)
    verdict: VerdictSettings = Field(default_factory=VerdictSettings)
    sessions: SessionSettings = Field(default_factory=SessionSettings)
    check: CheckSettings = Field(default_factory=CheckSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, _YamlSource(settings_cls))

    def resolve(self, relative: str) -> Path:
        """A path under data_dir (absolute paths are kept), with its parent created."""
        p = Path(relative).expanduser()
        if not p.is_absolute():
            p = self.data_dir.expanduser() / p
        p.parent.mkdir(parents=True, exist_ok=True)
        return p


def load_settings(**overrides: Any) -> Settings:
    """Settings from file + env, with `overrides` (nested dicts allowed) on top.

    Raises ConfigError with a one-line message naming each bad key and where it came from.
    """
    check_environment()
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise ConfigError(describe_settings_error(exc, overrides)) from exc


ENV_PREFIX = "CLAIMSCOPE_"

# CLAIMSCOPE_* variables that are not settings but are read elsewhere, each with its reader. Every
# other CLAIMSCOPE_* variable must name a setting: pydantic-settings reads only the names it knows,
# so a misspelt one (CLAIMSCOPE_DATA_DI) would otherwise leave its default in force unseen.
OTHER_VARIABLES: dict[str, str] = {
    "CLAIMSCOPE_CONFIG": "the config file to read (this module)",
    "CLAIMSCOPE_MCP_TOKEN": "the access token of the MCP and web servers (agent/access.py)",
    "CLAIMSCOPE_MAILTO": "the contact address sent to OpenAlex and Crossref (tools/find/scholarly/client.py)",
    "CLAIMSCOPE_PROGRESS_SECONDS": "how often the CLI prints a progress line (agent/cli/progress.py)",
    "CLAIMSCOPE_TRANSLATE_CLAIMS": "whether claims in another language are translated (agent/investigation.py)",
    "CLAIMSCOPE_PG_BIN": "PostgreSQL's programs for the test server (tests/postgres_server.py)",
    "CLAIMSCOPE_CHROMIUM": "the browser of the browser tests (tests/test_web_browser.py)",
    "CLAIMSCOPE_TEST_MODEL_DIR": "the embedded model cache of the slow tests (tests/test_llm_embedded.py)",
    "CLAIMSCOPE_EVAL_WORK": "the benchmarks' work folder (evals/_harness.py)",
    "CLAIMSCOPE_SHARED_DATA": "the benchmarks' shared data sets (evals/stance.py and the trainers)",
    "CLAIMSCOPE_BENCH_COMMIT": "the commit a sessions benchmark records (evals/sessions.py)",
}


def setting_variables() -> list[str]:
    """Every CLAIMSCOPE_* variable that sets a key: CLAIMSCOPE_DATA_DIR, CLAIMSCOPE_<SECTION>
    (a whole section as JSON) and CLAIMSCOPE_<SECTION>__<KEY>, nested sections included."""
    names: list[str] = []

    def walk(model: type[BaseModel], prefix: str) -> None:
        for key, field in model.model_fields.items():
            name = f"{prefix}{key.upper()}"
            names.append(name)
            if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel):
                walk(field.annotation, name + "__")

    walk(Settings, ENV_PREFIX)
    return names


def check_environment(environ: dict[str, str] | None = None) -> None:
    """Refuse a CLAIMSCOPE_* variable that is neither a setting's nor one of OTHER_VARIABLES.

    A variable whose first part names a section (CLAIMSCOPE_HIERARCHY__DETPH) is left to the
    section's own check, which names the key and where it was set.
    """
    env = os.environ if environ is None else environ
    sections = {name.upper() for name in Settings.model_fields}
    for var in sorted(env):
        name = var.upper()
        if not name.startswith(ENV_PREFIX) or name in OTHER_VARIABLES:
            continue
        if name.removeprefix(ENV_PREFIX).split("__")[0] in sections:
            continue
        # Matched without the shared prefix, which would make every name look close.
        known = [v.removeprefix(ENV_PREFIX) for v in setting_variables() + list(OTHER_VARIABLES)]
        close = difflib.get_close_matches(name.removeprefix(ENV_PREFIX), known, n=1)
        hint = f" (did you mean {ENV_PREFIX}{close[0]}?)" if close else ""
        raise ConfigError(
            f"environment variable {var} is not a claimscope setting{hint}; the settings are listed in "
            f"{packaged_config_path()} (CLAIMSCOPE_<SECTION>__<KEY>). Rename or unset it."
        )


def describe_settings_error(exc: ValidationError, overrides: dict[str, Any] | None = None) -> str:
    """One line naming each bad key, why, where it was set, and a hint for unknown keys."""
    problems = []
    for err in exc.errors():
        loc = tuple(str(p) for p in err["loc"])
        key = ".".join(loc) or "settings"
        if err["type"] == "extra_forbidden":
            known = _keys_at(loc[:-1])
            close = difflib.get_close_matches(loc[-1], known, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(known)}"
            problem = f"{key}: unknown key ({hint})"
        else:
            problem = f"{key}: {err['msg']}"
        problems.append(f"{problem} [{_origin(loc, overrides or {})}]")
    return f"invalid settings: {'; '.join(problems)}. Fix the value where it is set."


def _keys_at(loc: tuple[str, ...]) -> list[str]:
    """The keys the settings section at `loc` defines ([] when `loc` is not a section)."""
    model: type[BaseModel] = Settings
    for part in loc:
        field = model.model_fields.get(part)
        annotation = field.annotation if field else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        model = annotation
    return list(model.model_fields)


def _origin(loc: tuple[str, ...], overrides: dict[str, Any]) -> str:
    """Where the value at `loc` came from, by the precedence Settings applies."""
    if _lookup(overrides, loc):
        return "given as an argument"
    name = "CLAIMSCOPE_" + "__".join(loc).upper()
    for var in os.environ:
        if var.upper() == name or (var.upper().startswith("CLAIMSCOPE_") and name.startswith(var.upper() + "__")):
            return f"environment variable {var}"
    path = config_path()
    return f"in {path}" if path else "default"


def _lookup(data: dict[str, Any], loc: tuple[str, ...]) -> bool:
    node: Any = data
    for part in loc:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Process-wide settings (file + env), loaded once."""
    return load_settings()
