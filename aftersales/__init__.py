"""aftersales: an MCP tool server for refunds, returns, exchanges and repairs."""

__version__ = "0.1.0"
