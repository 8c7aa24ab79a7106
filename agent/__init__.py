"""The investigation: settings, graph, planner, LLM gateway, reports, CLI, MCP server, sessions."""
