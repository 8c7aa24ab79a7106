"""Read: what a text says about the claim. Owns the reading of the claim itself (kind, sub-claims,
anti-claim, components; claims extracted from a whole text), the aspect hierarchy the evidence is
read along, and the reading of each segment or abstract against the claim: relevance and
classification down the tree, coverage of the claim's relation, direction of a finding, stance and
argument scores (with the shipped stance_model/ and argument_model/ weights) and the learned
abstract-level decision. A reading says what a source states, never how much it counts: that is
appraise and weigh."""
