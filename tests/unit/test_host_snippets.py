"""The README's configuration blocks for MCP hosts: valid JSON that starts this server the way the CLI accepts."""

import json
import re
import shlex
import sys
import tomllib
from pathlib import Path

import pytest

from aftersales.cli.main import parser
from aftersales.settings import Settings
from tests.support import ROOT

README = (ROOT / "README.md").read_text()
SECTION = README.split("## Connecting from MCP hosts", 1)[1].split("\n## ", 1)[0]
BLOCKS = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", SECTION, re.S)]
SHELL = [line for block in re.findall(r"```sh\n(.*?)```", SECTION, re.S) for line in block.splitlines()]
SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
SETTINGS = {f"AFTERSALES_{name.upper()}" for name in Settings.model_fields}


def servers(block: dict) -> dict:
    """The host's map of servers: `mcpServers` (Claude Desktop, Cursor, Claude Code) or `servers` (VS Code)."""
    return block.get("mcpServers") or block["servers"]


def check_aftersales_command(command: str, args: list[str]) -> None:
    """The command is the console script this package installs, and it accepts the arguments."""
    assert Path(command).name in SCRIPTS, command
    assert (Path(sys.executable).parent / Path(command).name).exists()  # installed next to this interpreter
    assert Path(command).is_absolute(), "desktop hosts start servers with a short PATH"
    chosen = parser().parse_args(args)
    assert chosen.command == "serve" and chosen.stdio


def check_stdio(config: dict) -> None:
    """A launched server: aftersales itself, or uvx running its console script; an absolute data dir."""
    command, args = config["command"], config.get("args", [])
    if command == "uvx":
        assert args[0] == "--from" and args[2] in SCRIPTS
        check_aftersales_command(str(Path(sys.executable).parent / args[2]), args[3:])
    else:
        check_aftersales_command(command, args)
    env = config.get("env", {})
    assert set(env) <= SETTINGS and Path(env["AFTERSALES_DATA_DIR"]).is_absolute()


def check_http(config: dict, inputs: list[dict]) -> None:
    """The MCP endpoint with the bearer header (a VS Code input stands for the token)."""
    assert re.fullmatch(r"http://127\.0\.0\.1:8000/mcp", config["url"])
    assert config.get("type", "http") == "http"
    header = config["headers"]["Authorization"]
    assert header.startswith("Bearer ")
    for reference in re.findall(r"\$\{input:([\w-]+)\}", header):
        assert any(item["id"] == reference and item.get("password") for item in inputs)


def check_bridge(config: dict) -> None:
    """mcp-remote bridging stdio to the endpoint, with the header taken from the environment."""
    args = config["args"]
    assert "mcp-remote" in args and "http://127.0.0.1:8000/mcp" in args
    header = args[args.index("--header") + 1]
    name = re.fullmatch(r"Authorization:\$\{(\w+)\}", header)[1]
    assert config["env"][name].startswith("Bearer ")


@pytest.mark.parametrize("host", ["Claude Desktop", "VS Code", "Cursor", "Claude Code"])
def test_every_host_has_a_stdio_and_an_http_configuration(host):
    part = SECTION.split(f"**{host}**", 1)[1].split("\n**", 1)[0]
    configs = [c for b in re.findall(r"```json\n(.*?)```", part, re.S) for c in servers(json.loads(b)).values()]
    commands = [line for line in part.splitlines() if line.startswith("claude mcp add")]
    assert any(c.get("command", "npx") != "npx" for c in configs) or any("stdio" in line for line in commands)
    assert any("url" in c or c.get("command") == "npx" for c in configs) or any("http" in line for line in commands)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{number}" for number in range(1, len(BLOCKS) + 1)])
def test_each_json_block_parses_and_starts_this_server(block):
    for name, config in servers(block).items():
        assert name == "aftersales"
        if config.get("command") == "npx":
            check_bridge(config)
        elif "command" in config:
            check_stdio(config)
        else:
            check_http(config, block.get("inputs", []))


def test_the_claude_code_commands_add_the_same_servers():
    adds = [shlex.split(line) for line in SHELL if line.startswith("claude mcp add")]
    stdio = next(words for words in adds if "stdio" in words)
    separator = stdio.index("--")
    check_aftersales_command(stdio[separator + 1], stdio[separator + 2 :])
    assert stdio[separator - 1] == "aftersales" and "AFTERSALES_DATA_DIR=/home/you/.local/share/aftersales" in stdio
    http = next(words for words in adds if "http" in words)
    assert http[-3:] == ["http://127.0.0.1:8000/mcp", "--header", "Authorization: Bearer $AFTERSALES_TOKEN"]


def test_the_oauth_note_says_what_such_hosts_need():
    note = SECTION.split("**Hosts that try OAuth on a 401.**", 1)[1]
    assert "static `Authorization: Bearer <token>` header" in note
