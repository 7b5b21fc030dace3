"""The web app: the MCP endpoint plus health and readiness probes."""
