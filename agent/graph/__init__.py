"""The investigation as a LangGraph state machine: state schemas, steps, planner, wiring."""
