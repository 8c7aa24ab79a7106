"""Capabilities that know nothing of the investigation graph (docs/architecture.md: evals -> agent
-> tools -> prompts), grouped by the stage of an investigation they serve: `find` (documents and
their segments), `read` (a text against the claim), `appraise` (how far a source can be trusted),
`weigh` (labels into a verdict), `explain` (what the reader is shown), with `text` (sentences and
words) beneath them all. `errors`, `llm` and `models` are shared by every stage."""
