"""Text: the plain-text handling every stage shares. Owns sentence splitting for scientific text,
the language a claim is written in, and the checks on model-written text (loops, script drift,
echoed instructions). Knows nothing of claims or evidence, so every other tools package may use it."""
