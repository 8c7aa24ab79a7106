"""The chat investigation: a claim starts an investigation, follow-ups are answered from the
session's evidence, and every answer cites the sentences it rests on.

Follow-ups are routed by the LLM's tool choice (native tool calls or the JSON-schema action choice
of the gateway) among the tools below; when the model fails, a keyword router decides. The answers
themselves are composed from stored evidence (never free LLM text), so each line can carry its
citations ("docid#sentence").

The transcript and the session's investigations persist in <data_dir>/chats/<id>.json; the
investigations themselves live in the graph's checkpointer, so `claimscope chat --session ID`
continues with everything kept.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, cast

from pydantic import BaseModel, Field

from claimscope.agent.graph.events import ProgressEvent
from claimscope.agent.graph.readers import cited_sentences, evidence_segments, stance_label
from claimscope.agent.graph.state import InvestigationState
from claimscope.agent.investigation import Investigator, RunResult, default_options
from claimscope.tools.errors import InputError
from claimscope.tools.llm import LLMError, ToolSpec
from claimscope.tools.models import SentenceKey

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
    ToolSpec(name="show_sources", description="List the sources that support, oppose or are neutral on the claim.",
             parameters={"type": "object", "properties": {"stance": {"enum": ["support", "oppose", "neutral"]}},
                         "required": ["stance"]}),
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
        self.options = dict(options or {})
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
        """The LLM picks a tool; on failure (or an unusable pick) the keyword router does."""
        llm = self.inv.services.llm
        choose = getattr(llm, "choose_action", None)
        if choose is not None:
            try:
                context = f"current claim: {self._state().get('claim', '')}\naspects: " + ", ".join(
                    n["name"] for n in self._nodes()) + f"\nuser: {text}"
                choice = choose(ROUTER_SYSTEM, context, TOOLS)
                if choice.tool in TOOL_NAMES:
                    return choice.tool, dict(choice.arguments)
            except LLMError:
                pass
        return keyword_route(text)

    def call(self, tool: str, args: dict[str, Any], on_event: Callable[[ProgressEvent], None] | None = None
             ) -> ChatReply:
        try:
            if tool == "investigate":
                return self.investigate(str(args.get("claim", "")), on_event)
            if tool == "explain_aspect":
                return self.explain_aspect(str(args.get("aspect", "")))
            if tool == "show_sources":
                return self.show_sources(str(args.get("stance", "oppose")))
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
            return ChatReply(text=str(exc), tool=tool)

    # ------------------------------------------------------------------ helpers
    def _state(self) -> InvestigationState:
        return cast(InvestigationState, self.inv.state(self.session.current) if self.session.current else {})

    def _current(self) -> str:
        """The session of the investigation under discussion; InputError before there is one."""
        if not self.session.current:
            raise InputError("no investigation yet: state a claim first.")
        return self.session.current

    def _report(self) -> dict[str, Any]:
        return self._state().get("report") or {}

    def _nodes(self) -> list[dict[str, Any]]:
        return [n for n in self._report().get("hierarchy", {}).get("nodes", []) if n["id"] != "root"]

    def _find_aspect(self, name: str) -> dict[str, Any]:
        nodes = self._nodes()
        if not nodes:
            raise InputError("there is no aspect hierarchy yet: investigate a claim first.")
        by_id = {n["id"]: n for n in nodes}
        lead = re.match(r"\s*(\d+(?:\.\d+)*)\b", name)
        if lead and lead.group(1) in by_id:
            return by_id[lead.group(1)]
        name = re.sub(r"\b(is|so|disputed|supported|controversial|refuted)\b", " ", name, flags=re.I).strip()
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
        return ChatReply(text=summary_text(report), citations=_explanation_keys(report), run=run, tool="report")

    # ------------------------------------------------------------------ tools
    def investigate(self, claim: str, on_event: Callable[[ProgressEvent], None] | None = None) -> ChatReply:
        opts = default_options(self.inv.services.settings, **self.options)
        run = self.inv.run(claim, opts, on_event=on_event)
        self.session.investigations.append(run.thread_id)
        self.save()
        return self._finish(run)

    def _review(self, thread: str, text: str, on_event: Callable[[ProgressEvent], None] | None) -> ChatReply:
        import json

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
            return ChatReply(text=str(exc), tool="review")
        return self._finish(run)

    def explain_aspect(self, aspect: str) -> ChatReply:
        node = self._find_aspect(aspect)
        c = node.get("consensus") or {}
        lines = [f"Aspect {node['id']} '{node['name']}': {c.get('label', 'no consensus')} "
                 f"(support {c.get('support', 0)}, neutral {c.get('neutral', 0)}, oppose {c.get('oppose', 0)})."]
        cites: list[str] = []
        for p in node.get("perspectives", []):
            keys = [str(SentenceKey.sentence(x['doc_id'], x['sentence'])) for x in p.get("citations", [])]
            lines.append(f"{p['stance']}: {p['summary']} [{', '.join(keys)}]")
            cites += keys
        for seg in node.get("top_segments", [])[:5]:
            key = str(SentenceKey.sentence(seg['doc_id'], seg['sentence']))
            lines.append(f"- ({seg['stance']}) {seg['text']} [{key}]")
            cites.append(key)
        if len(lines) == 1:
            lines.append("No evidence sentences were classified under this aspect.")
        return ChatReply(text="\n".join(lines), citations=list(dict.fromkeys(cites)), tool="explain_aspect")

    def show_sources(self, stance: str) -> ChatReply:
        want = {"support": 1, "supporting": 1, "oppose": -1, "opposing": -1, "refute": -1, "neutral": 0}.get(
            stance.lower())
        if want is None:
            raise InputError("stance must be support, oppose or neutral.")
        docs = self._report().get("documents", [])
        from claimscope.tools.verdict import LocalLabel

        chosen = []
        for d in docs:
            label = d.get("local_label")
            score = LocalLabel(label).score if label else 0.0
            sign = (score > 0) - (score < 0)
            if sign == want:
                chosen.append(d)
        if not chosen:
            return ChatReply(text=f"No assessed source is {stance}.", tool="show_sources")
        state = self._state()
        lines, cites = [], []
        for d in chosen:
            keys = [str(SentenceKey.sentence(d["id"], i)) for i in cited_sentences(state, d["id"])]
            lines.append(f"- {d['id']} {d['title']} ({d.get('year') or 'n.d.'}): {d.get('local_label')} - "
                         f"{d.get('label_explanation', '')} [{', '.join(keys)}]")
            cites += keys
        return ChatReply(text="\n".join(lines), citations=cites, tool="show_sources")

    def go_deeper(self, aspect: str, on_event: Callable[[ProgressEvent], None] | None = None) -> ChatReply:
        node = self._find_aspect(aspect)
        state = self._state()
        tree = state["tree"]
        tree["nodes"][node["id"]]["expanded"] = False
        options = dict(state.get("options") or {})
        depth = tree["nodes"][node["id"]]["depth"] + 1
        if depth > 3:
            raise InputError("the hierarchy is at its deepest (3 levels).")
        options["depth"] = max(int(options.get("depth", 2)), depth)
        # Deeper nodes stay closed: only the chosen aspect grows.
        for nid, n in tree["nodes"].items():
            if nid != node["id"] and not n.get("children"):
                n["expanded"] = True
        run = self.inv.rerun_from(self._current(), "grow_hierarchy",
                                  {"tree": tree, "options": options}, on_event=on_event)
        reply = self._finish(run)
        kids = [n for n in (run.report or {}).get("hierarchy", {}).get("nodes", [])
                if n["id"].startswith(node["id"] + ".")]
        if kids:
            head = f"Grew '{node['name']}': " + "; ".join(n["name"] for n in kids)
        else:
            head = (f"'{node['name']}' was not split: too few of its segments address both the claim and "
                    "the aspect (hierarchy.min_node_segments), or every proposed sub-aspect was off-claim.")
        reply.text = head + "\n\n" + reply.text
        reply.tool = "go_deeper"
        return reply

    def exclude_source(self, doc_id: str, on_event: Callable[[ProgressEvent], None] | None = None) -> ChatReply:
        doc_id = doc_id.strip()
        docs = self._state().get("documents") or {}
        if doc_id not in docs:
            raise InputError(f"{doc_id!r} is not among this investigation's sources.")
        run = self.inv.rerun_from(self._current(), "assess", {"documents": {doc_id: None}}, on_event=on_event)
        reply = self._finish(run)
        reply.text = f"Ignoring {doc_id} and recomputing.\n\n" + reply.text
        reply.tool = "exclude_source"
        return reply

    def anti_claim_contribution(self) -> ChatReply:
        state = self._state()
        docs = state.get("documents") or {}
        only = [d for d, v in docs.items() if v.get("found_by") == ["anti_claim"]]
        anti = (state.get("analysis") or {}).get("anti_claim", "")
        by_id = {d["id"]: d for d in self._report().get("documents", [])}
        lines = [f"The anti-claim was: {anti!r}. It found {len(only)} of {len(docs)} documents that the claim "
                 "query did not."]
        cites: list[str] = []
        for d in only:
            view = by_id.get(d)
            if view is None:
                continue
            keys = [str(SentenceKey.sentence(d, i)) for i in cited_sentences(state, d)]
            lines.append(f"- {d} {view['title']}: {view.get('local_label')} [{', '.join(keys)}]")
            cites += keys
        return ChatReply(text="\n".join(lines), citations=cites, tool="anti_claim_contribution")

    def verdict(self) -> ChatReply:
        report = self._report()
        if not report:
            raise InputError("no finished investigation yet.")
        return ChatReply(text=summary_text(report), citations=_explanation_keys(report), tool="verdict")

    def ask_evidence(self, question: str) -> ChatReply:
        """The evidence sentences closest to the question among this investigation's documents."""
        state = self._state()
        if not state:
            raise InputError("no investigation yet: state a claim first.")
        segs = evidence_segments(state, self.inv.services, question, k=5)
        if not segs:
            return ChatReply(text="The gathered evidence says nothing on that.", tool="ask_evidence")
        lines = ["From the gathered evidence:"]
        for s in segs:
            st = stance_label(state, s.key) or "not assessed"
            lines.append(f"- ({st}) {s.text} [{s.key}]")
        return ChatReply(text="\n".join(lines), citations=[s.key for s in segs], tool="ask_evidence")


_ROUTES: list[tuple[str, re.Pattern[str]]] = [
    ("go_deeper", re.compile(r"\b(deeper|drill|expand|more detail)\b", re.I)),
    ("exclude_source", re.compile(r"\b(ignore|exclude|drop|remove|without)\b", re.I)),
    ("anti_claim_contribution", re.compile(r"anti.?claim|opposite claim|counter.?claim", re.I)),
    ("explain_aspect", re.compile(r"\b(why|aspect|disputed|controvers)", re.I)),
    ("show_sources", re.compile(r"\b(sources?|papers?|studies|documents?)\b", re.I)),
    ("verdict", re.compile(r"\b(verdict|conclusion|summary|overall)\b", re.I)),
]


def keyword_route(text: str) -> tuple[str, dict[str, Any]]:
    """Deterministic routing for when the model cannot choose."""
    for tool, pattern in _ROUTES:
        if not pattern.search(text):
            continue
        if tool == "exclude_source":
            m = re.search(r"(?:source|document|paper|doc)?\s*([A-Za-z0-9_.:/-]*\d[A-Za-z0-9_.:/-]*)", text)
            if m:
                return tool, {"doc_id": m.group(1)}
            continue
        if tool in ("go_deeper", "explain_aspect"):
            m = re.search(r"aspect\s+['\"]?([^'\"?]+)", text, re.I) or re.search(r"on\s+['\"]?([^'\"?]+)", text, re.I)
            return tool, {"aspect": (m.group(1) if m else text).strip()}
        if tool == "show_sources":
            stance = ("oppose" if re.search(r"oppos|refut|against|contradict", text, re.I)
                      else "neutral" if re.search(r"neutral", text, re.I) else "support")
            return tool, {"stance": stance}
        return tool, {}
    return "ask_evidence", {"question": text}


def _explanation_keys(report: dict[str, Any]) -> list[str]:
    return [str(SentenceKey.sentence(c['doc_id'], c['sentence'])) for s in report.get("explanation", {}).get("sentences", [])
            for c in s.get("citations", [])]


def summary_text(report: dict[str, Any]) -> str:
    if not report:
        return "The investigation ended without a report."
    v = report.get("verdict", {})
    w = v.get("weighted", {})
    score = w.get("score")
    lines = [f"Verdict: {w.get('label', 'n/a')}"
             + (f" (score {score:+.2f}, confidence {v.get('confidence', 0):.2f})" if score is not None else "")]
    for node in report.get("hierarchy", {}).get("nodes", []):
        if node["id"] != "root" and "." not in node["id"]:
            c = node.get("consensus") or {}
            lines.append(f"  [{node['id']}] {node['name']}: {c.get('label', 'n/a')}")
    for s in report.get("explanation", {}).get("sentences", []):
        keys = ", ".join(str(SentenceKey.sentence(c['doc_id'], c['sentence'])) for c in s.get("citations", []))
        flag = "" if s.get("status") == "supported" else " (interpretation)"
        lines.append(f"{s['text']} [{keys}]{flag}")
    for w_ in report.get("warnings", [])[:5]:
        lines.append(f"! {w_}")
    return "\n".join(lines)


def review_prompt(pending: dict[str, Any]) -> str:
    import json

    summary = json.dumps(pending.get("summary", {}), indent=1)[:3000]
    return (f"Review point '{pending.get('point')}'. Found:\n{summary}\n"
            f"You may {pending.get('actions', 'accept')}. Type 'accept' or a JSON decision.")
