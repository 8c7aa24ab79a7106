"""One module per prompt: named inputs (a pydantic model), an output model, a temperature."""
