"""The chat engine: one chat session's state, its routing and the tools that answer follow-ups."""

from __future__ import annotations

import datetime as dt
import difflib
import json
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, cast

from pydantic import BaseModel, Field

from claimscope.agent.bounds import DEPTH_MAX
from claimscope.agent.chat.free import answer_free, free_facet
from claimscope.agent.chat.opposite import anti_claim_answer
from claimscope.agent.chat.questions import (
    ALL_WORDS,
    STANCE_OF,
    Direction,
    checked_arguments,
    direction_in,
    document_direction,
    keyword_route,
    match_study,
    question_terms,
    stance_direction,
    study_sentences,
)
from claimscope.agent.chat.report_evidence import ReportEvidence
from claimscope.agent.chat.wording import (
    GERUND,
    STANCE_HEAD,
    STANCE_READ,
    cite,
    count,
    document_keys,
    document_text,
    explanation_keys,
    others,
    review_prompt,
    sentence_start,
    source_text,
    summary_text,
    tally,
    verb,
)
from claimscope.agent.graph.events import ProgressEvent
from claimscope.agent.graph.readers import (
    cited_sentences,
    claim_of,
    gathered_documents,
    grown_under,
    load_documents,
    report_record,
    screen_of,
    sentence_lookup,
    stance_label,
    stance_records,
    tree_of,
    without_source,
)
from claimscope.agent.graph.screen import insufficient_evidence
from claimscope.agent.graph.state import InvestigationState
from claimscope.agent.graph.steps import NO_FACETS
from claimscope.agent.investigation import Investigator, RunResult, default_options
from claimscope.agent.options import SessionOptions, validated
from claimscope.tools.errors import InputError
from claimscope.tools.llm import LLMError, ToolSpec
from claimscope.tools.models import Document, SentenceKey

ROUTER_SYSTEM = (
    "You route a user's follow-up question about a finished fact-check to one tool. "
    "Pick the tool that answers it and fill its arguments from the question."
)


class ChatMessage(BaseModel):
    role: Literal["user", "assistant"]
    text: str
    citations: list[str] = Field(default_factory=list)
    at: str = Field(default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))


class ChatSession(BaseModel):
    id: str
    created: str = Field(default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    investigations: list[str] = Field(default_factory=list, description="Investigation thread ids, oldest first.")
    messages: list[ChatMessage] = Field(default_factory=list)

    @property
    def current(self) -> str | None:
        return self.investigations[-1] if self.investigations else None


class ChatReply(BaseModel):
    text: str
    citations: list[str] = Field(default_factory=list)
    tool: str = ""
    run: RunResult | None = None


TOOLS: list[ToolSpec] = [
    ToolSpec(name="investigate", description="Investigate a new claim the user states.",
             parameters={"type": "object", "properties": {"claim": {"type": "string", "maxLength": 500}},
                         "required": ["claim"]}),
    ToolSpec(name="explain_aspect", description="Why an aspect is disputed/supported: its consensus and evidence.",
             parameters={"type": "object", "properties": {"aspect": {"type": "string", "maxLength": 120}},
                         "required": ["aspect"]}),
    ToolSpec(name="show_sources", description="List the sources that support, oppose or are neutral on the claim "
             "(or all of them).",
             parameters={"type": "object", "properties": {"stance": {"enum": ["support", "oppose", "neutral", "all"]}},
                         "required": ["stance"]}),
    ToolSpec(name="study_findings", description="What one named study, paper or source of the investigation found.",
             parameters={"type": "object", "properties": {"study": {"type": "string", "maxLength": 300}},
                         "required": ["study"]}),
    ToolSpec(name="go_deeper", description="Grow the aspect hierarchy one level deeper under an aspect.",
             parameters={"type": "object", "properties": {"aspect": {"type": "string", "maxLength": 120}},
                         "required": ["aspect"]}),
    ToolSpec(name="exclude_source", description="Ignore a source document and recompute the verdict.",
             parameters={"type": "object", "properties": {"doc_id": {"type": "string", "maxLength": 120}},
                         "required": ["doc_id"]}),
    ToolSpec(name="anti_claim_contribution", description="What the search for the opposite claim added.",
             parameters={"type": "object", "properties": {}}),
    ToolSpec(name="verdict", description="Restate the verdict and its explanation.",
             parameters={"type": "object", "properties": {}}),
    ToolSpec(name="ask_evidence", description="Answer any other question from the gathered evidence.",
             parameters={"type": "object", "properties": {"question": {"type": "string", "maxLength": 500}},
                         "required": ["question"]}),
]
TOOL_NAMES = [t.name for t in TOOLS]


def chats_dir(inv: Investigator) -> Path:
    path = inv.services.settings.resolve("chats/x").parent
    path.mkdir(parents=True, exist_ok=True)
    return path


class ChatEngine:
    """One chat session: state, routing, answers. Front ends (terminal, tests) call `handle`."""

    def __init__(self, investigator: Investigator, session_id: str | None = None,
                 options: dict[str, Any] | None = None) -> None:
        self.inv = investigator
        # the run options of the chat's investigations, refused here, before the chat starts
        self.options = validated(SessionOptions, options or {}).given()
        self.expect_claim = False  # set by "new": the next message is a claim, not a follow-up
        self.path = chats_dir(investigator)
        if session_id is not None:
            if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", session_id):
                raise InputError(f"chat session ids use letters, digits, '-', '_' or '.'; got {session_id!r}.")
            file = self.path / f"{session_id}.json"
            self.session = (ChatSession.model_validate_json(file.read_text()) if file.exists()
                            else ChatSession(id=session_id))
        else:
            self.session = ChatSession(id=uuid.uuid4().hex[:10])

    # ------------------------------------------------------------------ persistence
    def save(self) -> None:
        tmp = self.path / f"{self.session.id}.json.tmp"
        tmp.write_text(self.session.model_dump_json(indent=1))
        tmp.replace(self.path / f"{self.session.id}.json")

    def _say(self, reply: ChatReply) -> ChatReply:
        self.session.messages.append(ChatMessage(role="assistant", text=reply.text, citations=reply.citations))
        self.save()
        return reply

    # ------------------------------------------------------------------ entry point
    def handle(self, text: str, on_event: Callable[[ProgressEvent], None] | None = None) -> ChatReply:
        text = " ".join(text.split())
        if not text:
            raise InputError("say something: a claim to investigate or a question about the current one.")
        self.session.messages.append(ChatMessage(role="user", text=text))
        self.save()
        current = self.session.current
        if current is not None and self.inv.pending(current) is not None:
            return self._say(self._review(current, text, on_event))
        if current is None or self.expect_claim:
            self.expect_claim = False
            return self._say(self.investigate(text, on_event))
        if text.lower() in ("continue", "resume"):
            return self._say(self._finish(self.inv.resume(current, on_event=on_event)))
        tool, args = self.route(text)
        return self._say(self.call(tool, args, on_event))

    def route(self, text: str) -> tuple[str, dict[str, Any]]:
        """The keyword router for the templated kinds (fast, no model); the LLM's tool choice for
        the rest, its arguments corrected by the question's own words; else the closest evidence."""
        tool, args = keyword_route(text)
        if tool in ("ask_evidence", "verdict") and free_facet(text):
            # "how strong is the evidence overall?" asks about the evidence, not for the verdict alone
            return "ask_evidence", {"question": text}
        if tool != "ask_evidence":
            return tool, args
        llm = self.inv.services.llm
        choose = getattr(llm, "choose_action", None)
        if choose is not None:
            try:
                context = f"current claim: {claim_of(self._state())}\naspects: " + ", ".join(
                    n["name"] for n in self._nodes()) + f"\nuser: {text}"
                choice = choose(ROUTER_SYSTEM, context, TOOLS)
                if choice.tool in TOOL_NAMES and self._plausible(choice.tool, text):
                    return choice.tool, checked_arguments(choice.tool, dict(choice.arguments), text)
            except LLMError:
                pass
        return tool, args

    def _plausible(self, tool: str, text: str) -> bool:
        """Whether the model's tool fits what the question says: a question naming no direction is not
        a sources question, one naming no aspect not an aspect question, one naming no study not a
        study question (the model sent "what outcome was measured?" to a study it picked)."""
        if tool == "show_sources":
            return direction_in(text) is not None
        if tool in ("explain_aspect", "go_deeper"):
            words = question_terms(text)
            return any(words & question_terms(n["name"]) for n in self._nodes())
        if tool == "study_findings":
            docs = self._report().get("documents") or []
            return any(d["id"] in text for d in docs) or bool(re.search(
                r"\b(?:study|paper|trial|article|review|meta-analysis|cohort)\b", text, re.I))
        return tool != "exclude_source"  # a source to drop is named by its id, which the keywords catch

    def call(self, tool: str, args: dict[str, Any], on_event: Callable[[ProgressEvent], None] | None = None
             ) -> ChatReply:
        try:
            if tool == "investigate":
                return self.investigate(str(args.get("claim", "")), on_event)
            if tool == "explain_aspect":
                return self.explain_aspect(str(args.get("aspect", "")))
            if tool == "show_sources":
                return self.show_sources(str(args.get("stance", "all")))
            if tool == "study_findings":
                return self.study_findings(str(args.get("study", "")))
            if tool == "go_deeper":
                return self.go_deeper(str(args.get("aspect", "")), on_event)
            if tool == "exclude_source":
                return self.exclude_source(str(args.get("doc_id", "")), on_event)
            if tool == "anti_claim_contribution":
                return self.anti_claim_contribution()
            if tool == "verdict":
                return self.verdict()
            return self.ask_evidence(str(args.get("question", "")))
        except InputError as exc:
            return ChatReply(text=sentence_start(str(exc)), tool=tool)

    # ------------------------------------------------------------------ helpers
    def _state(self) -> InvestigationState:
        return cast(InvestigationState, self.inv.state(self.session.current) if self.session.current else {})

    def _current(self) -> str:
        """The session of the investigation under discussion; InputError before there is one."""
        if not self.session.current:
            raise InputError("no investigation yet: state a claim first.")
        return self.session.current

    def _report(self) -> dict[str, Any]:
        return report_record(self._state())

    def _nodes(self) -> list[dict[str, Any]]:
        return [n for n in self._report().get("hierarchy", {}).get("nodes", []) if n["id"] != "root"]

    def _find_aspect(self, name: str) -> dict[str, Any]:
        nodes = self._nodes()
        if not nodes:
            report = self._report()
            if report.get("evidence_gap"):
                raise InputError("this investigation found no evidence on the claim, so it has no aspects "
                                 "(ask which sources were read, or for the verdict).")
            root = next((n for n in report.get("hierarchy", {}).get("nodes", []) if n["id"] == "root"), None)
            if root is not None:
                # The claim unsplit is the report's one aspect (its Aspects section shows it): "the
                # main aspect" and "aspect 1" are the claim as a whole.
                return root
            if report:
                raise InputError("this investigation's report has no aspects: its evidence is weighed as a whole "
                                 "(ask which sources support or oppose the claim, or for the verdict).")
            raise InputError("there is no aspect hierarchy yet: investigate a claim first.")
        by_id = {n["id"]: n for n in nodes}
        lead = re.match(r"\s*(\d+(?:\.\d+)*)\b", name)
        if lead and lead.group(1) in by_id:
            return by_id[lead.group(1)]
        name = re.sub(r"\b(why|is|are|was|so|the|aspect|of|about|disputed|supported|controversial|contested|divided|"
                      r"refuted|on|deeper|go|drill|expand)\b|[?!.]", " ", name, flags=re.I)
        name = " ".join(name.split())
        names = {n["name"].lower(): n for n in nodes}
        match = difflib.get_close_matches(name.lower().strip(), list(names), n=1, cutoff=0.3)
        if not match:
            contained = [n for k, n in names.items() if k in name.lower() or name.lower() in k]
            if contained:
                return contained[0]
            raise InputError(f"no aspect like {name!r}; aspects are: " + "; ".join(
                f"{n['id']} {n['name']}" for n in nodes))
        return names[match[0]]

    def _finish(self, run: RunResult) -> ChatReply:
        if run.pending:
            return ChatReply(text=review_prompt(run.pending), run=run, tool="review")
        report = run.report or {}
        return ChatReply(text=summary_text(report), citations=explanation_keys(report), run=run, tool="report")

    # ------------------------------------------------------------------ tools
    def investigate(self, claim: str, on_event: Callable[[ProgressEvent], None] | None = None) -> ChatReply:
        opts = default_options(self.inv.services.settings, **self.options)
        run = self.inv.run(claim, opts, on_event=on_event)
        self.session.investigations.append(run.thread_id)
        self.save()
        return self._finish(run)

    def _review(self, thread: str, text: str, on_event: Callable[[ProgressEvent], None] | None) -> ChatReply:
        low = text.lower()
        if low in ("accept", "ok", "yes", "y", "continue"):
            decision: Any = {}
        else:
            try:
                decision = json.loads(text)
            except json.JSONDecodeError:
                pending = self.inv.pending(thread) or {}
                return ChatReply(text="answer 'accept' or a JSON decision: " + pending.get("actions", ""),
                                 tool="review")
        try:
            run = self.inv.answer(thread, decision, on_event=on_event)
        except InputError as exc:
            return ChatReply(text=sentence_start(str(exc)), tool="review")
        return self._finish(run)

    def explain_aspect(self, aspect: str) -> ChatReply:
        node = self._find_aspect(aspect)
        c = node.get("consensus") or {}
        directions: tuple[Direction, ...] = ("support", "neutral", "oppose")
        counts: dict[str, int] = {d: int(c.get(d, 0)) for d in directions}
        total = sum(counts.values())
        label = str(c.get("label") or "")
        state = ("has insufficient evidence" if not label or label == "insufficient evidence" else f"is {label}")
        subject = (f"The report's one aspect is the claim as a whole ('{node['name'].strip().rstrip('.')}'), not "
                   "split into sub-aspects; it" if node["id"] == "root" else f"Aspect {node['id']} '{node['name']}'")
        said = (f": its one assessed sentence {verb(next(d for d in directions if counts[d]), 1)}." if total == 1 else
                f": of its {total} assessed sentences, {tally(counts)}." if total else ".")
        # "why is it disputed?" of an aspect no sentence disputes is answered as such
        one_sided = label != "controversial" and (counts["support"] > 0) != (counts["oppose"] > 0)
        if one_sided:
            said += (" No sentence opposes it, so it is not disputed." if counts["support"] else
                     " No sentence supports it, so it is not disputed.")
        lines = [f"{subject} {state}{said}"]
        cites: list[str] = []
        for p in node.get("perspectives", []):
            keys = [str(SentenceKey.sentence(x['doc_id'], x['sentence'])) for x in p.get("citations", [])]
            lines.append(f"{STANCE_HEAD[stance_direction(p['stance'])]}: {p['summary']}{cite(keys)}")
            cites += keys
        for seg in node.get("top_segments", [])[:5]:
            key = str(SentenceKey.sentence(seg['doc_id'], seg['sentence']))
            if key in cites:
                continue
            lines.append(f"- ({STANCE_READ[stance_direction(seg['stance'])]}) {seg['text']} [{key}]")
            cites.append(key)
        if len(lines) == 1:
            lines.append("No evidence sentences were classified under this aspect.")
        return ChatReply(text="\n".join(lines), citations=list(dict.fromkeys(cites)), tool="explain_aspect")

    def show_sources(self, stance: str) -> ChatReply:
        """The report's documents whose label points in the asked direction (all of them, grouped,
        for "all"), each with the sentences its label rests on; for support or oppose, also the
        sentences read that way in documents labelled otherwise, so that a document-level "No
        Evidence" does not hide opposing (or supporting) text."""
        want = direction_in(stance) or ("all" if stance.strip().lower() in ALL_WORDS else None)
        if want is None:
            raise InputError(f"which sources: support, oppose, neutral or all? (got {stance!r})")
        state = self._state()
        report = self._report()
        docs = report.get("documents", [])
        if not docs:
            return ChatReply(text="This investigation has no assessed sources.", tool="show_sources")
        by_dir: dict[Direction, list[dict[str, Any]]] = {"support": [], "oppose": [], "neutral": []}
        for d in docs:
            by_dir[document_direction(d)].append(d)
        lines: list[str] = []
        cites: list[str] = []
        wanted: list[Direction] = list(by_dir) if want == "all" else [want]
        for direction in wanted:
            chosen = by_dir[direction]
            if want == "all":
                if not chosen:
                    continue
                lines.append(f"{count(len(chosen), 'source')} {verb(direction, len(chosen))}:")
            elif chosen:
                # one source, or all of them, is said as such ("1 of the 1 source" read as a slip)
                n = len(chosen)
                lines.append(f"The report's one source {verb(direction, 1)}:" if len(docs) == 1 else
                             f"All {n} sources in the report {verb(direction, n)}:" if n == len(docs) else
                             f"{n} of the {len(docs)} sources in the report {verb(direction, n)}:")
            elif direction == "neutral":
                every = ("The report's one source" if len(docs) == 1
                         else f"Every one of the {count(len(docs), 'source')} in the report")
                lines.append(f"{every} takes a side on the claim ({others(by_dir, direction)}).")
            elif len(docs) == 1:
                # the plural form is the bare verb: "does not support the claim"
                lines.append(f"The report's one source does not {verb(direction, 2)} ({others(by_dir, direction)}).")
            else:
                lines.append(f"None of the {count(len(docs), 'source')} in the report {verb(direction, 1)} "
                             f"({others(by_dir, direction)}).")
            for d in chosen:
                keys = document_keys(state, d)
                why = f" {d['label_explanation']}" if d.get("label_explanation") else ""
                lines.append(f"- {source_text(d)}: {d.get('local_label') or 'not labelled'}.{why}{cite(keys)}")
                cites += keys
        if want in ("support", "oppose"):
            shown = {d["id"] for d in by_dir[want]}
            extra = self._sentences_reading(state, want, exclude=shown)
            if extra:
                lines.append(f"Sentences read as {GERUND[want]} the claim in other sources:")
                for key, text in extra:
                    lines.append(f"- {text} [{key}]")
                    cites.append(key)
        if want != "all" and not by_dir[want] and report.get("evidence_gap"):
            lines.append("The investigation found too little evidence on the claim "
                         f"({report.get('verdict', {}).get('weighted', {}).get('label', 'insufficient evidence')}).")
        return ChatReply(text="\n".join(lines), citations=list(dict.fromkeys(cites)), tool="show_sources")

    def _sentences_reading(self, state: InvestigationState, direction: Direction, exclude: set[str],
                           limit: int = 5) -> list[tuple[str, str]]:
        """(key, text) of the firmest sentences whose stance was read as `direction`, outside `exclude`."""
        label = STANCE_OF[direction]
        reads = [(k, r) for k, r in stance_records(state).items() if r["label"] == label]
        reads = [(k, r) for k, r in reads if (p := SentenceKey.read(k)) and p.doc_id not in exclude]
        reads.sort(key=lambda kr: (-(kr[1]["support"] if label == "support" else kr[1]["refute"]), kr[0]))
        get = sentence_lookup(state, self.inv.services)
        out = [(k, text) for k, _ in reads[: limit * 2] if (text := get(k))]
        return out[:limit]

    def study_findings(self, study: str) -> ChatReply:
        """What one source of this investigation says: the source the question names (by id, or by
        the rarest words it shares with a title and the sentences), its label and finding, and its
        sentences closest to the question."""
        state = self._state()
        if not state:
            raise InputError("no investigation yet: state a claim first.")
        docs = self._candidate_documents(state)
        if not docs:
            return ChatReply(text="This investigation gathered no sources.", tool="study_findings")
        views = {d["id"]: d for d in self._report().get("documents", [])}
        match = match_study(study, docs, views)
        if match is None:
            listing = "; ".join(document_text(d) for d in list(docs.values())[:8])
            return ChatReply(text=f"No source of this investigation matches {study.strip()!r}. Its sources "
                             f"include: {listing}.", tool="study_findings")
        doc, others = match
        view = views.get(doc.id, {})
        label = view.get("local_label")
        head = document_text(doc)
        if label:
            head += f" is labelled {label}: it {verb(document_direction(view), 1)}."
        else:
            head += " was gathered but not weighed (it has no label)."
        lines = [head]
        cites: list[str] = []
        finding = view.get("finding") or {}
        finding_key = (str(SentenceKey.sentence(doc.id, finding["sentence"]))
                       if finding.get("text") and "sentence" in finding else None)
        if finding_key:
            lines.append(f"Its finding: {finding['text']} [{finding_key}]")
            cites.append(finding_key)
        picked = [i for i in study_sentences(study, doc) if str(SentenceKey.sentence(doc.id, i)) != finding_key]
        if not picked and not finding_key:
            picked = (cited_sentences(state, doc.id) or list(range(len(doc.sentences))))[:2]
        if picked:
            lines.append("It says:" if not finding_key else "On the question, it says:")
        for i in picked[:3]:
            if not 0 <= i < len(doc.sentences):
                continue
            key = str(SentenceKey.sentence(doc.id, i))
            read = stance_label(state, key)
            note = f" ({STANCE_READ[stance_direction(read)]})" if read else ""
            lines.append(f"- {doc.sentences[i]} [{key}]{note}")
            cites.append(key)
        if others:
            lines.append(("Another source that matches: " if len(others) == 1 else "Other sources that match: ")
                         + "; ".join(document_text(d) for d in others))
        return ChatReply(text="\n".join(lines), citations=list(dict.fromkeys(cites)), tool="study_findings")

    def _candidate_documents(self, state: InvestigationState) -> dict[str, Document]:
        """The documents a question about "the study" may mean: those in the report (the evidence,
        best first), then those the screen found to be evidence and those with a sentence assessed."""
        ids = [d["id"] for d in self._report().get("documents", [])]
        ids += list(screen_of(state).get("evidence") or [])
        ids += [p.doc_id for k in stance_records(state) if (p := SentenceKey.read(k))]
        gathered = gathered_documents(state)
        ordered = [d for d in dict.fromkeys(ids) if d in gathered]
        found = load_documents(state, self.inv.services, ordered)
        return {d: found[d] for d in ordered if d in found}

    def go_deeper(self, aspect: str, on_event: Callable[[ProgressEvent], None] | None = None) -> ChatReply:
        node = self._find_aspect(aspect)
        if node["id"] == "root":
            raise InputError(self._unsplit_claim())
        state = self._state()
        if tree_of(state).nodes[node["id"]].depth + 1 > DEPTH_MAX:
            raise InputError(f"'{node['name']}' is at the deepest level the hierarchy allows "
                             f"({count(DEPTH_MAX, 'level')}).")
        # Only the chosen aspect grows; the other leaves stay closed.
        run = self.inv.rerun_from(self._current(), "grow_hierarchy", grown_under(state, node["id"]),
                                  on_event=on_event)
        reply = self._finish(run)
        kids = [n for n in (run.report or {}).get("hierarchy", {}).get("nodes", [])
                if n["id"].startswith(node["id"] + ".")]
        if kids:
            # two sub-aspects may share a name; each name is said once, with the ids that carry it
            ids: dict[str, list[str]] = {}
            for n in kids:
                ids.setdefault(n["name"], []).append(n["id"])
            head = f"Grew '{node['name']}': " + "; ".join(f"{name} ({', '.join(i)})" for name, i in ids.items())
        else:
            head = (f"'{node['name']}' was not split: too few of its segments address both the claim and "
                    "the aspect (hierarchy.min_node_segments), or every proposed sub-aspect was off-claim.")
        reply.text = head + "\n\n" + reply.text
        reply.tool = "go_deeper"
        return reply

    def _unsplit_claim(self) -> str:
        """Why the claim, the report's one aspect, has no sub-aspects, from the warning the hierarchy
        step left (growing it again from the same findings splits it no further)."""
        warnings = [str(w) for w in self._report().get("warnings", [])]
        if any(w.startswith(NO_FACETS) for w in warnings):
            why = NO_FACETS
        elif any("proposed aspect(s) rejected" in w for w in warnings):
            why = "every aspect proposed under it was rejected, as too few segments address both the claim and it"
        else:
            why = "no aspect under it was found in its evidence"
        return (f"the claim as a whole is this report's one aspect and cannot be split further: {why} "
                "(ask why it is supported or disputed, or which sources support or oppose it).")

    def exclude_source(self, doc_id: str, on_event: Callable[[ProgressEvent], None] | None = None) -> ChatReply:
        doc_id = doc_id.strip()
        state = self._state()
        if doc_id not in gathered_documents(state):
            raise InputError(f"{doc_id!r} is not among this investigation's sources.")
        changes = without_source(state, doc_id)
        screen = changes.get("screen")
        if screen is not None and not screen.get("evidence"):
            # it was the last source that addresses the claim: the investigation ends as one without evidence
            changes.update(insufficient_evidence({**state, **changes}, self.inv.services, screen))  # type: ignore[typeddict-item]
        run = self.inv.rerun_from(self._current(), "assess", changes, on_event=on_event)
        reply = self._finish(run)
        reply.text = f"Ignoring {doc_id} and recomputing.\n\n" + reply.text
        reply.tool = "exclude_source"
        return reply

    def anti_claim_contribution(self) -> ChatReply:
        """What the opposite claim's search added (agent/chat/opposite.py)."""
        text, cites = anti_claim_answer(self._state(), self._report())
        return ChatReply(text=text, citations=cites, tool="anti_claim_contribution")

    def verdict(self) -> ChatReply:
        report = self._report()
        if not report:
            raise InputError("no finished investigation yet.")
        return ChatReply(text=summary_text(report), citations=explanation_keys(report), tool="verdict")

    def ask_evidence(self, question: str) -> ChatReply:
        """A free question, answered from the report's evidence (agent/chat/free.py): by the facet it
        asks about, else from the sentences of the report's documents that share its topic words."""
        state = self._state()
        if not state:
            raise InputError("no investigation yet: state a claim first.")
        report = self._report()
        if not report:
            raise InputError("the investigation has no report yet: ask again when it has finished.")
        evidence = ReportEvidence(report, lambda ids: load_documents(state, self.inv.services, ids),
                                  lambda view: document_keys(state, view))
        answer = answer_free(question, evidence)
        return ChatReply(text=answer.text, citations=list(dict.fromkeys(answer.citations)), tool="ask_evidence")
