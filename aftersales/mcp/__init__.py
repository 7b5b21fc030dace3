"""The MCP layer: thin tools over the services, and the server that carries them."""
