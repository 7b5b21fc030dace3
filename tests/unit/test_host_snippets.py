"""docs/hosts.md's configuration blocks for MCP hosts: valid JSON that starts this server the way the CLI accepts."""

import json
import re
import shlex
import sys
import tomllib
from pathlib import Path

import pytest

from aftersales.cli.main import parser
from aftersales.settings import Settings
from tests.support import ROOT, docs

SECTION = docs.section(docs.page("docs/hosts.md"), "## Connecting from MCP hosts")
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


def is_bridge(config: dict) -> bool:
    """The block starts `npx` (mcp-remote) rather than this server."""
    return Path(config.get("command", "")).name == "npx"


def check_stdio(config: dict) -> None:
    """A launched server: aftersales itself, or uvx running its console script; an absolute data dir."""
    command, args = config["command"], config.get("args", [])
    if Path(command).name == "uvx":
        assert Path(command).is_absolute(), "desktop hosts start servers with a short PATH: uvx too"
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
    assert Path(config["command"]).is_absolute(), "desktop hosts start servers with a short PATH: npx too"
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
    assert any("command" in c and not is_bridge(c) for c in configs) or any("stdio" in line for line in commands)
    assert any("url" in c or is_bridge(c) for c in configs) or any("http" in line for line in commands)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{number}" for number in range(1, len(BLOCKS) + 1)])
def test_each_json_block_parses_and_starts_this_server(block):
    for name, config in servers(block).items():
        assert name == "aftersales"
        if is_bridge(config):
            check_bridge(config)
        elif "command" in config:
            check_stdio(config)
        else:
            check_http(config, block.get("inputs", []))


# `claude mcp add [options] <name> <commandOrUrl> [args...]`: options that take one value, and those that take every
# word after them up to the next option or `--` (so a name written after `--env` is read as a variable).
SINGLE = {"-t", "--transport", "-s", "--scope", "--callback-port", "--client-id"}
VARIADIC = {"-e", "--env", "-H", "--header"}


def claude_mcp_add(words: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """The positional words and the options of a `claude mcp add` line, read the way Claude Code reads them."""
    assert words[:3] == ["claude", "mcp", "add"]
    positional: list[str] = []
    options: dict[str, list[str]] = {}
    rest = words[3:]
    while rest:
        word = rest.pop(0)
        if word == "--":
            return positional + rest, options
        if word in SINGLE:
            options.setdefault(word.lstrip("-"), []).append(rest.pop(0))
        elif word in VARIADIC:
            values = options.setdefault({"-e": "env", "-H": "header"}.get(word, word.lstrip("-")), [])
            while rest and not rest[0].startswith("-"):
                values.append(rest.pop(0))
        else:
            positional.append(word)
    return positional, options


def test_the_claude_code_stdio_line_names_the_server_before_env_and_the_command_after_the_separator():
    adds = [shlex.split(line) for line in SHELL if line.startswith("claude mcp add")]
    words = next(words for words in adds if "stdio" in words)
    (name, command, *args), options = claude_mcp_add(words)
    assert name == "aftersales"
    assert words.index("aftersales") < words.index("--env") < words.index("--") == words.index(command) - 1
    assert options["env"] == ["AFTERSALES_DATA_DIR=/home/you/.local/share/aftersales"]
    assert all(re.fullmatch(r"[A-Z_]+=\S+", variable) for variable in options["env"])
    check_aftersales_command(command, args)


def test_the_claude_code_http_line_adds_the_endpoint_with_the_bearer_header():
    adds = [shlex.split(line) for line in SHELL if line.startswith("claude mcp add")]
    words = next(words for words in adds if "http" in words)
    positional, options = claude_mcp_add(words)
    assert positional == ["aftersales", "http://127.0.0.1:8000/mcp"]
    assert options == {"transport": ["http"], "header": ["Authorization: Bearer $AFTERSALES_TOKEN"]}


def test_the_oauth_note_says_what_such_hosts_need():
    note = SECTION.split("**Hosts that try OAuth on a 401.**", 1)[1]
    assert "static `Authorization: Bearer <token>` header" in note
