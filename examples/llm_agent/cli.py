"""The command: read the harness's variables, serve the customer, print the final answer (or one line why not)."""

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import anyio
from pydantic_ai.exceptions import AgentRunError

from examples.llm_agent.agent import Served, Trial, serve
from examples.llm_agent.config import Config, SettingError, parse, required


def main(argv: Sequence[str] | None = None) -> int:
    """Run one trial: the answer on stdout (exit 0), or one line on stderr (2: a setting to change; 1: a failed run)."""
    try:
        config = parse(argv)
        trial = Trial(
            mcp_url=required("AFTERSALES_MCP_URL"),
            token=required("AFTERSALES_TOKEN"),
            brief_file=Path(required("AFTERSALES_TASK_FILE")),
            customer_url=os.environ.get("AFTERSALES_CUSTOMER_URL"),  # conversation mode only
        )
        served = anyio.run(serve, config, trial)
    except SettingError as problem:
        print(f"llm_agent: {problem}", file=sys.stderr)
        return 2
    except AgentRunError as problem:  # the model misbehaved or ran past its limits: the trial is the agent's
        print(f"llm_agent: the run stopped: {' '.join(str(problem).split())}", file=sys.stderr)
        return 1
    if config.usage_log is not None:
        log_usage(config, served, config.usage_log)
    print(served.answer)
    return 0


def log_usage(config: Config, served: Served, log: Path) -> None:
    """Append the run's token usage, as the model reports it, to the usage log."""
    usage = served.usage
    line = {
        "task_id": served.task_id,
        "trial": served.trial,
        "model": config.model,
        "protocol": served.protocol,
        "requests": usage.requests,
        "tool_calls": usage.tool_calls,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "descriptions": served.descriptions,
    }
    with log.open("a", encoding="utf-8") as file:
        file.write(json.dumps(line) + "\n")
