"""The ``[mcp]`` part of config.toml (P-9.1), checked when the file is read.

    [mcp.servers.github]                 # a server paicli starts (stdio)
    command = "npx"
    args = ["-y", "@modelcontextprotocol/server-github"]
    env = { GITHUB_PERSONAL_ACCESS_TOKEN = "$GITHUB_TOKEN" }

    [mcp.servers.docs]                   # a server that is already running
    url = "https://docs.example.com/mcp"
    headers = { Authorization = "Bearer ${DOCS_TOKEN}" }

Secrets are written as the NAME of an environment variable (``$NAME`` or
``${NAME}``) and read from paicli's environment when the server starts: a
literal value under a credential-looking name is refused here, so a secret
never sits in config.toml. Pydantic only: the SDK is not imported.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from paicli_tui.config.secret_names import looks_like_secret_name

#: A server name becomes part of tool names (``mcp__NAME__tool``), so it must
#: be a plain word and must not hold the ``__`` separator.
SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
#: ``$NAME``, ``${NAME}`` or ``${NAME:-default}``.
REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}|\$[A-Za-z_][A-Za-z0-9_]*")
#: Header names that carry credentials whatever the secret-name rules say.
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "x-api-key", "api-key"})


def server_name_problem(name: str) -> str | None:
    if not SERVER_NAME.match(name) or "__" in name:
        return (f"MCP server name {name!r}: use letters, digits, '-' and single '_' (at most 32 characters); "
                "it becomes part of the tool names mcp__NAME__TOOL")
    return None


def secret_header(name: str) -> bool:
    return name.lower() in CREDENTIAL_HEADERS or looks_like_secret_name(name.replace("-", "_"))


class McpServerSettings(BaseModel):
    """One server: ``command`` (stdio, paicli starts it) or ``url``
    (streamable HTTP, already running)."""

    model_config = ConfigDict(extra="forbid")

    command: str | None = None
    """The program to start; it speaks MCP on its stdin and stdout."""
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    """Variables the server gets besides PATH, HOME, USER, SHELL, TERM and
    LOGNAME; a value may name variables of paicli's environment
    (``"$GITHUB_TOKEN"``). Nothing else of paicli's environment is passed."""
    env_from: list[str] = Field(default_factory=list)
    """Variables passed from paicli's environment unchanged, by name."""
    cwd: str | None = None
    """Where the server starts; the workspace when unset."""
    url: str | None = None
    """Streamable HTTP endpoint, e.g. ``http://127.0.0.1:8000/mcp``."""
    headers: dict[str, str] = Field(default_factory=dict)
    """HTTP headers; a value may name environment variables as ``env`` does."""
    timeout: float | None = Field(None, gt=0)
    """Seconds one tool call may take; ``tool_timeout`` when unset."""
    enabled: bool = True
    trust_read_only: bool = True
    """Let a tool the server marks read-only (``readOnlyHint``) run unasked
    in auto mode. The mark is the server's claim: false asks for every call."""

    @model_validator(mode="after")
    def _one_transport(self) -> "McpServerSettings":
        if (self.command is None) == (self.url is None):
            raise ValueError("give either command (a server paicli starts) or url (streamable HTTP), not both")
        if self.url is not None and not self.url.lower().startswith(("http://", "https://")):
            raise ValueError(f"url {self.url!r} must start with http:// or https://")
        return self

    @field_validator("env")
    @classmethod
    def _no_literal_secrets(cls, env: dict[str, str]) -> dict[str, str]:
        for key, value in env.items():
            if looks_like_secret_name(key) and not REFERENCE.search(value):
                raise ValueError(f"env.{key}: write the NAME of an environment variable (\"${key}\"), "
                                 "never the secret itself")
        return env

    @field_validator("headers")
    @classmethod
    def _no_literal_header_secrets(cls, headers: dict[str, str]) -> dict[str, str]:
        for key, value in headers.items():
            if secret_header(key) and not REFERENCE.search(value):
                raise ValueError(f"headers.{key}: name an environment variable in the value "
                                 "(\"Bearer ${TOKEN}\"), never the secret itself")
        return headers


class McpSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    servers: dict[str, McpServerSettings] = Field(default_factory=dict)
    startup_timeout: float = Field(20.0, gt=0)
    """Seconds a server gets to start, answer and list its tools and
    resources; the first run waits for servers still starting at most this
    long after the session began."""
    workspace_file: bool = True
    """Read the workspace's ``.mcp.json`` (its servers still start only
    after you agree to that file once)."""
    max_resource_chars: int = Field(20_000, ge=1_000)
    """Characters of one ``@server:uri`` attachment; longer content is cut."""

    @field_validator("servers")
    @classmethod
    def _names(cls, servers: dict[str, McpServerSettings]) -> dict[str, McpServerSettings]:
        for name in servers:
            problem = server_name_problem(name)
            if problem:
                raise ValueError(problem)
        return servers
