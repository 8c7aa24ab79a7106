"""Find: getting documents and the segments they are read by. Owns the evidence store (Qdrant
layout, ingest, fused dense + keyword search), the sentence embeddings and BM25 keyword vectors it
indexes, the readers that turn user files into documents, and the scholarly sources (Semantic
Scholar, Google Scholar, OpenAlex, Crossref). Nothing here knows what the claim says about the
evidence: it returns documents and segments ranked for a query, and reports a failing source rather
than raising."""
