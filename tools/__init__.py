"""Capabilities that know nothing of the investigation graph (see DESIGN.md: evals -> agent -> tools)."""
