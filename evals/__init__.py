"""Benchmark runners (`python -m evals.<name>` from the repository root); never part of pytest."""
