"""Weigh: readings and appraisals into a verdict. Owns the graded local labels, the per-aspect
consensus, the weighted and unweighted global verdict with its confidence, and the check that the
parts of one report (verdict, root consensus, local labels) do not contradict each other. It reads
labels and weights, never texts."""
