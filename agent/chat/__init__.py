"""The chat investigation: a claim starts an investigation, follow-ups are answered from the
session's evidence, and every answer cites the sentences it rests on.

Follow-ups of the kinds the chat answers from templates (which sources support or oppose, what a
given study found, why an aspect is disputed, go deeper, ignore a source, the anti-claim search, the
verdict) are recognised by a keyword router, without the model (`questions`); any other question
goes to the LLM's tool choice (native tool calls or the JSON-schema action choice of the gateway)
among the engine's tools, and to the closest evidence sentences when the model cannot choose. The
answers are composed from stored evidence (never free LLM text, `wording`), so each line carries
its citations ("docid#sentence"), and a line with nothing to cite carries none.

The transcript and the session's investigations persist in <data_dir>/chats/<id>.json; the
investigations themselves live in the graph's checkpointer, so `claimscope chat --session ID`
continues with everything kept.
"""

from claimscope.agent.chat.engine import (
    TOOL_NAMES,
    TOOLS,
    ChatEngine,
    ChatMessage,
    ChatReply,
    ChatSession,
    chats_dir,
)
from claimscope.agent.chat.questions import Direction, direction_in, keyword_route, match_study
from claimscope.agent.chat.wording import review_prompt, summary_text

__all__ = [
    "TOOLS", "TOOL_NAMES", "ChatEngine", "ChatMessage", "ChatReply", "ChatSession", "Direction", "chats_dir",
    "direction_in", "keyword_route", "match_study", "review_prompt", "summary_text",
]
