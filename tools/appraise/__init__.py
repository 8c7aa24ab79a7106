"""Appraise: how far a source can be trusted, independently of what it says about the claim. Owns
the study design and sample size of a document (patterns and the small fitted choosers shipped as
study_design_model.json and sample_size_model.json), the intervention / comparator / outcome of a
finding for the evidence table, retraction and correction notices, and the reputation prior with
ClaimTrust propagation over the documents' stance graph."""
