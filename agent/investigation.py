"""Running investigations: start, stream progress, resume after an interruption, fetch results.

This is the Python API behind the CLI, the chat and the MCP server:

    from claimscope.agent.investigation import investigate
    report = investigate("Vitamin D prevents respiratory infections", corpora=["scifact"])
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command, Overwrite
from pydantic import BaseModel, Field

from claimscope.agent.datadir import disk_full, ensure_data_dir
from claimscope.agent.graph.build import build_graph
from claimscope.agent.graph.events import ProgressEvent
from claimscope.agent.graph.review import parse_decision
from claimscope.agent.graph.screen import screen_warning
from claimscope.agent.graph.state import InvestigationOptions
from claimscope.agent.graph.steps import STEP_NAMES, TABLE
from claimscope.agent.options import default_options as default_options
from claimscope.agent.report import Report
from claimscope.agent.services import Services
from claimscope.agent.sessions.checkpoint import Checkpoints
from claimscope.agent.settings import get_settings
from claimscope.prompts import translate_claim as tp
from claimscope.tools.errors import InputError
from claimscope.tools.llm import LLMError
from claimscope.tools.read.claim_analysis import validate_claim
from claimscope.tools.text.language import SUPPORTED, detect_language
from claimscope.tools.text.text_guard import strip_control

EventHandler = Callable[[ProgressEvent], None]


# A step that grows one level per run: a re-run grows only the aspects re-opened, so the warnings
# about the levels grown before (aspects rejected there) stay true and stay.
_GROWN_BY_LEVEL = frozenset(s.name for s in TABLE if s.repeatable)


def _rerun_warnings(state: dict[str, Any], undo: Sequence[str], changes: dict[str, Any]) -> list[str]:
    """The warnings a re-run starts from: the state's, less those the steps in `undo` recorded
    (repeatable ones excepted) and the screen's when `changes` replace the screen, plus the
    warnings `changes` bring (the new screen's)."""
    stale: list[str] = [w for s in undo if s not in _GROWN_BY_LEVEL
                        for w in (state.get("warning_steps") or {}).get(s, [])]
    screen = state.get("screen")
    if "screen" in changes and screen and not screen.get("evidence"):
        stale.append(screen_warning(screen))
    kept = list(state.get("warnings") or [])
    for warning in stale:  # the latest occurrence goes: the steps undone ran last
        at = next((i for i in range(len(kept) - 1, -1, -1) if kept[i] == warning), None)
        if at is not None:
            del kept[at]
    return [*kept, *(changes.get("warnings") or [])]


class RunResult(BaseModel):
    thread_id: str
    status: str
    report: dict[str, Any] | None = None
    warnings: list[str] = Field(default_factory=list)
    finished_steps: list[str] = Field(default_factory=list)
    pending: dict[str, Any] | None = Field(
        None, description="In a guided session paused at a review point: what is shown and what may be done."
    )


TRANSLATE_ENV = "CLAIMSCOPE_TRANSLATE_CLAIMS"


def translation_wanted(flag: bool = False) -> bool:
    """Translate claims in other languages (the --translate flag, or CLAIMSCOPE_TRANSLATE_CLAIMS=1)."""
    return flag or os.environ.get(TRANSLATE_ENV, "").strip().lower() in ("1", "true", "yes")


class AcceptedClaim(BaseModel):
    """A claim through intake: the text to investigate and the warnings to record with it. An
    investigation is given one, so the claim is checked once, however the run was started."""

    text: str
    warnings: list[str] = Field(default_factory=list)


def accept_claim(claim: str | AcceptedClaim, services: Services, *, translate: bool = False) -> AcceptedClaim:
    """Claim intake, the one rule every entry point applies (an AcceptedClaim passes unchanged). A
    claim in another language is refused (see prepare_claim) unless `translate`: then the configured
    model translates it, and the English text is investigated only if it reads as English and passes
    the claim checks; the report's warnings name the original."""
    if isinstance(claim, AcceptedClaim):
        return claim
    try:
        return AcceptedClaim(text=prepare_claim(claim))
    except UnreadableLanguageError as exc:
        if not translate:
            raise
        original, language = exc.claim, exc.language

    try:
        out = services.llm.run(tp.PROMPT, tp.TranslateInput(claim=original, language=language))
    except LLMError as exc:
        raise InputError(f"the claim looks like {language} and the model could not translate it ({exc}): "
                         "state the claim in English.") from exc
    english = " ".join(strip_control(out.english).split())
    if not detect_language(english).english:
        raise InputError(f"the claim looks like {language} and the model's translation {english!r} is not "
                         "English either: state the claim in English.")
    english = validate_claim(english)
    note = (f"the claim was written in {language} ({original!r}); the model translated it to {english!r}, "
            "which is what was investigated — check the translation.")
    return AcceptedClaim(text=english, warnings=[note])


class UnreadableLanguageError(InputError):
    """A claim in a language the models cannot read."""

    def __init__(self, claim: str, language: str, message: str) -> None:
        self.claim, self.language = claim, language
        super().__init__(message)


def prepare_claim(claim: str) -> str:
    """The claim as it will be stored and shown, or an InputError before anything is stored: control
    characters and terminal escapes removed, a claim in a language the models cannot read refused
    (before the length checks, so a Chinese claim is not called "too short"), then the length checks."""
    if not isinstance(claim, str):
        raise InputError(f"the claim must be text, got {type(claim).__name__}.")
    text = " ".join(strip_control(claim).split())
    if not text:
        raise InputError("the claim is empty: give the statement to investigate, e.g. "
                         '`claimscope investigate "Vitamin D prevents colds"`.')
    guess = detect_language(text)
    if not guess.english:
        raise UnreadableLanguageError(
            text, guess.language,
            f"the claim looks like {guess.language}, but claimscope reads claims in {', '.join(SUPPORTED)} "
            "only (its retrieval, stance and explanation models are English and would misread it): "
            f"state the claim in English, or pass --translate ({TRANSLATE_ENV}=1) to have the configured "
            "model translate it.",
        )
    return validate_claim(text)


def check_corpora(services: Services, corpora: list[str], sources: Sequence[str] | None = None) -> None:
    """Refuse corpus names the evidence store does not hold, naming the ones it does; with `sources`,
    also refuse a run that could search nothing (no local corpus and no scholarly source), before
    any model runs."""
    if sources is not None and not corpora and all(s == "local" for s in sources):
        raise InputError("nothing to search: choose a local corpus or a scholarly source (semantic_scholar, "
                         "openalex or serpapi), or the investigation cannot find any evidence.")
    if not corpora:
        return
    names = [c.name for c in services.store.corpora()]
    unknown = [c for c in corpora if c not in names]
    if unknown:
        known = ", ".join(names) if names else "none yet; add one with `claimscope ingest PATH --corpus NAME`"
        raise InputError(f"unknown corpus {', '.join(map(repr, unknown))} (corpora: {known}).")


class Investigator:
    """Runs the investigation graph with a checkpointer so every finished step survives a crash."""

    def __init__(
        self,
        services: Services | None = None,
        checkpointer: BaseCheckpointSaver | None = None,
        *,
        persistent: bool = True,
    ) -> None:
        self.services = services or Services(get_settings())
        if checkpointer is None and persistent:
            ensure_data_dir(self.services.settings)
        # Where sessions are kept, named when its database fails (none for an injected checkpointer).
        self.sessions = (Checkpoints(checkpointer) if checkpointer is not None
                         else Checkpoints.open(self.services.settings, persistent=persistent))
        self.checkpointer = checkpointer = self.sessions.saver
        self.graph = build_graph(checkpointer)

    def _config(self, thread_id: str) -> RunnableConfig:
        # Recursion limit above the step budget: plan + step per budgeted step, plus the report.
        limit = 2 * self.services.settings.sessions.step_budget + 10
        return RunnableConfig(configurable={"thread_id": thread_id}, recursion_limit=limit)

    def _drive(self, payload: Any, thread_id: str, on_event: EventHandler | None) -> RunResult:
        from claimscope.agent.llm.usage import usage_scope

        config = self._config(thread_id)
        doing = (f"running investigation {thread_id} (its finished steps are kept: continue it with "
                 f"`claimscope sessions resume {thread_id}` once the database is back)")
        try:
            with self.sessions.guard(doing), usage_scope():
                self._stream(payload, config, on_event)
        except (OSError, sqlite3.DatabaseError) as exc:
            if not disk_full(exc):
                raise
            raise InputError(
                f"the disk is full ({exc}): investigation {thread_id} stopped; its finished steps are kept. "
                f"Free some space, then continue it with `claimscope sessions resume {thread_id}`."
            ) from exc
        return self.result(thread_id)

    def _stream(self, payload: Any, config: RunnableConfig, on_event: EventHandler | None) -> None:
        # Run in a usage scope: the steps' per-step usage deltas then count this run's LLM calls
        # only, not those of other runs sharing the process-wide gateway.
        # durability="sync": a step's checkpoint is written before the next step starts, so a killed
        # process never loses a step it had finished (the default "async" can, by a few ms).
        announced: set[str] = set()
        for mode, chunk in self.graph.stream(
            payload, config, context=self.services, stream_mode=["custom", "updates"], durability="sync"
        ):
            if on_event is None:
                continue
            if mode == "custom":
                event = ProgressEvent.model_validate(chunk)
                if event.kind == "warning":
                    announced.add(event.message)
                on_event(event)
            elif mode == "updates" and isinstance(chunk, dict):
                # A step's warnings (an unreachable source, a skipped document) are shown as the step
                # ends, not first in the final report.
                for step, update in chunk.items():
                    for warning in (update.get("warnings") or []) if isinstance(update, dict) else []:
                        if isinstance(warning, str) and warning not in announced:
                            announced.add(warning)
                            on_event(ProgressEvent(kind="warning", step=step, message=warning))

    def run(
        self,
        claim: str | AcceptedClaim,
        options: InvestigationOptions | None = None,
        *,
        thread_id: str | None = None,
        on_event: EventHandler | None = None,
        translate: bool = False,
    ) -> RunResult:
        """Investigate `claim` from the start: text goes through intake (`accept_claim`) here, a claim
        already accepted by the caller does not. `translate`: a claim in another language is
        translated by the model instead of refused."""
        accepted = accept_claim(claim, self.services, translate=translation_wanted(translate))
        claim, warnings = accepted.text, accepted.warnings
        opts = options or default_options(self.services.settings)
        thread_id = thread_id or uuid.uuid4().hex[:12]
        payload: dict[str, Any] = {"claim": claim, "options": opts.model_dump(mode="json")}
        if warnings:
            payload["warnings"] = warnings
            if on_event is not None:
                for w in warnings:
                    on_event(ProgressEvent(kind="warning", step="analyse", message=w))
        return self._drive(payload, thread_id, on_event)

    def resume(self, thread_id: str, *, on_event: EventHandler | None = None) -> RunResult:
        """Continue an interrupted run from its last finished step."""
        snapshot = self.graph.get_state(self._config(thread_id))
        if not snapshot.values:
            raise InputError(f"no investigation with id {thread_id!r}; `claimscope sessions list` shows them.")
        # A run stopped inside a superstep has no `next` but still lists its task (with pending
        # writes); driving it applies those writes and goes on without re-running finished steps.
        finished = not snapshot.next and not snapshot.tasks
        if finished or self.pending(thread_id) is not None:
            return self.result(thread_id)
        return self._drive(None, thread_id, on_event)

    def _interrupt(self, thread_id: str) -> Any:
        snapshot = self.graph.get_state(self._config(thread_id))
        for intr in getattr(snapshot, "interrupts", ()) or ():
            return intr
        return None

    def pending(self, thread_id: str) -> dict[str, Any] | None:
        """The review a guided session is waiting for, or None."""
        intr = self._interrupt(thread_id)
        return dict(intr.value) if intr is not None else None

    def answer(self, thread_id: str, decision: Any, *, on_event: EventHandler | None = None) -> RunResult:
        """Give a paused guided session the person's decision and run on to the next pause or the end."""
        intr = self._interrupt(thread_id)
        if intr is None:
            raise InputError(f"session {thread_id!r} is not waiting for a review decision.")
        parse_decision(intr.value["point"], decision, intr.value.get("summary"))  # a bad decision is refused before resuming
        # Keyed by interrupt id: a bare dict (e.g. {} for "accept") would be read as such a mapping.
        return self._drive(Command(resume={intr.id: decision}), thread_id, on_event)

    def rerun_from(
        self, thread_id: str, step: str, changes: dict[str, Any] | None = None, *,
        on_event: EventHandler | None = None,
    ) -> RunResult:
        """Apply `changes` to a session's state, forget `step` and every step after it, and run on.

        Used by follow-ups such as "ignore source D and recompute" (changes={"documents": {D: None}},
        step="assess") or "go deeper on aspect X" (step="grow_hierarchy" with the node re-opened).
        """
        if step not in STEP_NAMES:
            raise InputError(f"unknown step {step!r}; steps are {', '.join(STEP_NAMES)}.")
        state = self.state(thread_id)
        if not state:
            raise InputError(f"no investigation with id {thread_id!r}.")
        undo = STEP_NAMES[STEP_NAMES.index(step):]
        # a change may end the run here (the last evidence ignored: "no_evidence"), else it runs on
        update: dict[str, Any] = {**(changes or {}), "done": [f"!{s}" for s in undo],
                                  "status": (changes or {}).get("status", "running"), "report": {}}
        # The steps run again record their warnings again: the old ones go, not to stand beside the
        # new ("none of the 15 best-matching documents ..." next to "none of the 14 ...").
        update["warnings"] = Overwrite(_rerun_warnings(state, undo, changes or {}))
        update["warning_steps"] = {s: None for s in undo if s not in _GROWN_BY_LEVEL}
        if "grow_hierarchy" in undo and "hierarchy_complete" not in update:
            update["hierarchy_complete"] = False
        # Written as if the review node produced it, so the run continues at the planner.
        self.graph.update_state(self._config(thread_id), update, as_node="review")
        return self._drive(None, thread_id, on_event)

    def state(self, thread_id: str) -> dict[str, Any]:
        return dict(self.graph.get_state(self._config(thread_id)).values)

    def result(self, thread_id: str) -> RunResult:
        values = self.state(thread_id)
        pending = self.pending(thread_id)
        return RunResult(
            thread_id=thread_id,
            status="paused" if pending else values.get("status", "running"),
            pending=pending,
            report=values.get("report"),
            warnings=list(dict.fromkeys(values.get("warnings", []))),
            finished_steps=list(values.get("done", [])),
        )


def investigate(claim: str, *, services: Services | None = None, **options: Any):  # noqa: ANN201
    """Run a whole investigation and return its Report (agent.report.Report)."""
    inv = Investigator(services)
    opts = default_options(inv.services.settings, **options)
    check_corpora(inv.services, list(opts.corpora), opts.sources)
    result = inv.run(claim, opts)
    if result.report is None:
        raise InputError(f"the investigation ended without a report (status {result.status}).")
    return Report.model_validate(result.report)


async def ainvestigate(claim: str, *, services: Services | None = None, **options: Any):  # noqa: ANN201
    """Async form of `investigate` (runs the graph in a worker thread)."""
    return await asyncio.to_thread(investigate, claim, services=services, **options)
