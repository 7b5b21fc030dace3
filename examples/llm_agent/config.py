"""The agent's settings: each from its option, else its AFTERSALES_AGENT_* variable, else a default."""

import argparse
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Protocol = Literal["auto", "2026-07-28", "2025-11-25"]
PROTOCOLS: tuple[Protocol, ...] = ("auto", "2026-07-28", "2025-11-25")
TEST_MODEL = "test"


class SettingError(Exception):
    """What keeps the agent from running, in one line that names the setting to change."""


@dataclass(frozen=True)
class Config:
    """How to run: which model where, which protocol revision, and the limits."""

    model: str
    base_url: str | None
    api_key: str | None
    protocol: Protocol
    seed: int
    timeout: float
    tasks: str | None
    usage_log: Path | None


def parse(argv: Sequence[str] | None = None) -> Config:
    """The settings from the command line and the environment."""
    env = os.environ.get
    parser = argparse.ArgumentParser(prog="llm_agent", description="A reference LLM agent for aftersales eval.")
    parser.add_argument(
        "--model",
        default=env("AFTERSALES_AGENT_MODEL"),
        help="A pydantic-ai model string (openai:gpt-4.1, anthropic:claude-sonnet-4-5, ...), or test for the "
        "scripted test model (AFTERSALES_AGENT_MODEL).",
    )
    parser.add_argument(
        "--base-url",
        default=env("AFTERSALES_AGENT_BASE_URL"),
        help="An OpenAI-compatible endpoint to send the model to (AFTERSALES_AGENT_BASE_URL).",
    )
    parser.add_argument(
        "--protocol",
        choices=PROTOCOLS,
        default=env("AFTERSALES_AGENT_PROTOCOL", "auto"),
        help="The MCP revision: auto (negotiated; 2026-07-28 with this server), 2026-07-28 or 2025-11-25 "
        "(AFTERSALES_AGENT_PROTOCOL).",
    )
    parser.add_argument(
        "--seed", type=int, default=_number("AFTERSALES_AGENT_SEED", 0), help="Where the provider takes one."
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=_number("AFTERSALES_AGENT_TIMEOUT", 60.0),
        help="Seconds one model request or one MCP request may take (AFTERSALES_AGENT_TIMEOUT, default 60).",
    )
    parser.add_argument(
        "--tasks",
        default=env("AFTERSALES_AGENT_TASKS"),
        help="The test model only: the folder of tasks the harness runs (default the shipped tasks).",
    )
    parser.add_argument(
        "--usage-log",
        type=Path,
        default=env("AFTERSALES_AGENT_USAGE_LOG"),
        help="Append one JSON line of token usage per run to this file (AFTERSALES_AGENT_USAGE_LOG).",
    )
    args = parser.parse_args(argv)
    if not args.model:
        raise SettingError("no model: pass --model or set AFTERSALES_AGENT_MODEL (openai:gpt-4.1, or test)")
    if args.protocol not in PROTOCOLS:
        raise SettingError(f"AFTERSALES_AGENT_PROTOCOL is {args.protocol!r}: use one of {', '.join(PROTOCOLS)}")
    return Config(
        model=args.model,
        base_url=args.base_url or None,
        api_key=env("AFTERSALES_AGENT_API_KEY") or None,
        protocol=args.protocol,
        seed=args.seed,
        timeout=args.timeout,
        tasks=args.tasks,
        usage_log=args.usage_log,
    )


def required(name: str) -> str:
    """A variable the harness sets for every trial."""
    value = os.environ.get(name)
    if not value:
        raise SettingError(f"{name} is not set: run the agent under `aftersales eval --agent ...`, which sets it")
    return value


def _number(name: str, default: float) -> float:
    """A numeric variable (an int when its default is one), or its default."""
    text = os.environ.get(name)
    if not text:
        return default
    try:
        return type(default)(text)
    except ValueError:
        raise SettingError(f"{name} is {text!r}: it must be a number") from None
