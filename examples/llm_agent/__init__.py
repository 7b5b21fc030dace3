"""A reference customer-service agent driven by a language model: pydantic-ai over this server's MCP tools.

Run by `aftersales eval --agent "python examples/llm_agent --model openai:gpt-4.1"` (or `python -m
examples.llm_agent` from the repository). Its instructions are the server's `after_sales_agent` prompt, its tools
are the server's tools (pydantic-ai's MCP toolset on the trial's bearer token) and, in a conversation, one tool to
talk to the customer. `--model test` replaces the model with pydantic-ai's deterministic FunctionModel playing the
task's reference solution, so the plumbing is tested without a network. docs/testing-agents.md, "The reference LLM
agent", says how to point it at a provider.
"""
