"""Which MCP servers a session has, resolved and ready to start (P-9.1).

Two sources: ``[mcp.servers.NAME]`` in config.toml, and the workspace's
``.mcp.json`` in the ``{"mcpServers": {…}}`` form other agents write:

    {"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "server-files", "."]},
        "docs": {"type": "http", "url": "http://127.0.0.1:8000/mcp",
                 "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}}}

``$NAME``, ``${NAME}`` and ``${NAME:-default}`` in args, env values, url and
header values are read from paicli's environment here; a variable that is not
set keeps that one server from starting (it gets a ``problem``), never the
others. A config.toml server wins over a workspace server of the same name.
No SDK import: this is only reading and checking.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from paicli_tui.config import secret_store
from paicli_tui.config.mcp_settings import REFERENCE, McpServerSettings, McpSettings, secret_header, server_name_problem
from paicli_tui.config.secret_names import looks_like_secret_name
from paicli_tui.mcp.trust_digest import script_hashes, trust_digest

WORKSPACE_FILE = ".mcp.json"


@dataclass(frozen=True)
class ServerSpec:
    name: str
    source: str
    """``config`` (config.toml) or ``workspace`` (.mcp.json)."""
    transport: str
    """``stdio`` or ``http`` (streamable HTTP)."""
    command: str = ""
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    cwd: str = ""
    url: str = ""
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    timeout: float | None = None
    trust_read_only: bool = True
    problem: str = ""
    """Why it cannot start (a variable not set, a transport paicli lacks)."""
    secrets: tuple[str, ...] = field(default=(), repr=False)
    """Values read for credential-looking names: kept out of every record."""
    scripts: tuple[tuple[str, str], ...] = ()
    """(word, sha256) of each workspace file its command line names."""

    def target(self) -> str:
        """What the server is, for the person: the command line or the URL,
        with the secret values read into them shown as [REDACTED]."""
        text = self.url if self.transport == "http" else " ".join([self.command, *self.args])
        for secret in sorted(self.secrets, key=len, reverse=True):
            text = text.replace(secret, "[REDACTED]")
        return text


@dataclass
class McpConfig:
    servers: list[ServerSpec]
    workspace_file: Path | None = None
    """The workspace's .mcp.json when it exists and lists servers."""
    workspace_sha256: str = ""
    warnings: list[str] = field(default_factory=list)

    def secrets(self) -> list[str]:
        return [secret for spec in self.servers for secret in spec.secrets]

    def workspace_servers(self) -> list[ServerSpec]:
        return [spec for spec in self.servers if spec.source == "workspace"]


def load_mcp_config(settings: McpSettings, workspace: Path, environ: Mapping[str, str] | None = None) -> McpConfig:
    held = secret_store.captured()
    environ = {**os.environ, **held} if environ is None else environ
    config = McpConfig([])
    for name, server in settings.servers.items():
        if server.enabled:
            config.servers.append(_from_settings(name, server, workspace, environ))
    if settings.workspace_file:
        # paicli's API key goes only to servers the person configured: a
        # cloned repository's .mcp.json naming it finds it unset.
        _add_workspace_file(config, workspace, {k: v for k, v in environ.items() if k not in held})
    return config


def _from_settings(name: str, server: McpServerSettings, workspace: Path, environ: Mapping[str, str]) -> ServerSpec:
    resolver = _Resolver(environ)
    if server.url is not None:
        return resolver.spec(name, "config", "http", url=server.url, headers=server.headers, timeout=server.timeout,
                             trust_read_only=server.trust_read_only)
    env = dict(server.env)
    for variable in server.env_from:
        env.setdefault(variable, "$" + variable)
    cwd = str((workspace / server.cwd).resolve()) if server.cwd else str(workspace)
    return resolver.spec(name, "config", "stdio", command=server.command or "", args=server.args, env=env, cwd=cwd,
                         timeout=server.timeout, trust_read_only=server.trust_read_only)


def _add_workspace_file(config: McpConfig, workspace: Path, environ: Mapping[str, str]) -> None:
    path = workspace / WORKSPACE_FILE
    if not path.is_file():
        return
    try:
        raw = path.read_bytes()
        data = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        config.warnings.append(f"{path}: not readable JSON ({_reason(exc)}); its MCP servers are ignored")
        return
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        config.warnings.append(f'{path}: no "mcpServers" object; its MCP servers are ignored')
        return
    taken = {spec.name for spec in config.servers}
    for name, entry in servers.items():
        problem = server_name_problem(name) if isinstance(name, str) else "a server name must be a string"
        if problem:
            config.warnings.append(f"{path}: {problem}; skipped")
            continue
        if name in taken:
            config.warnings.append(f"{path}: server {name!r} is also in config.toml; the config.toml one is used")
            continue
        spec = _from_json(name, entry, workspace, environ)
        if isinstance(spec, str):
            config.warnings.append(f"{path}: server {name!r}: {spec}; skipped")
            continue
        if spec.transport == "stdio":
            spec = replace(spec, scripts=script_hashes(spec.command, spec.args, spec.cwd, workspace))
        config.servers.append(spec)
    if config.workspace_servers():
        config.workspace_file = path
        config.workspace_sha256 = trust_digest(raw, config.workspace_servers())


def _from_json(name: str, entry: Any, workspace: Path, environ: Mapping[str, str]) -> ServerSpec | str:
    if not isinstance(entry, dict):
        return "not an object"
    kind = entry.get("type") or ("http" if "url" in entry else "stdio")
    resolver = _Resolver(environ, literal_secrets=True)
    strings = _strings(entry, "args", list) or []
    env = _strings(entry, "env", dict) or {}
    headers = _strings(entry, "headers", dict) or {}
    if isinstance(strings, str) or isinstance(env, str) or isinstance(headers, str):
        return next(v for v in (strings, env, headers) if isinstance(v, str))
    if kind in ("http", "streamable-http", "streamableHttp"):
        url = entry.get("url")
        if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
            return "an http server needs a url starting with http:// or https://"
        return resolver.spec(name, "workspace", "http", url=url, headers=headers)
    if kind == "sse":
        return "the old SSE transport is not supported; use a streamable HTTP url (type \"http\")"
    if kind != "stdio":
        return f"unknown type {kind!r} (use stdio or http)"
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        return "a stdio server needs a command"
    cwd = entry.get("cwd")
    where = str((workspace / cwd).resolve()) if isinstance(cwd, str) and cwd else str(workspace)
    return resolver.spec(name, "workspace", "stdio", command=command, args=strings, env=env, cwd=where)


def _strings(entry: dict, key: str, kind: type) -> Any:
    value = entry.get(key)
    if value is None:
        return None
    if kind is list and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
        return f"{key} must be a list of strings"
    if kind is dict and (not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values())):
        return f"{key} must be an object of strings"
    return value


class _Resolver:
    """Expands variable references and collects the values that are secrets:
    those of credential-looking variables, and whatever fills a
    credential-looking env key or header."""

    def __init__(self, environ: Mapping[str, str], *, literal_secrets: bool = False) -> None:
        self.environ = environ
        self.literal_secrets = literal_secrets
        self.missing: list[str] = []
        self.secrets: list[str] = []

    def spec(self, name: str, source: str, transport: str, *, command: str = "", args=(), env=None, cwd: str = "",
             url: str = "", headers=None, timeout: float | None = None, trust_read_only: bool = True) -> ServerSpec:
        args = tuple(self.expand(arg) for arg in args)
        env_pairs = tuple((key, self.expand(value, looks_like_secret_name(key))) for key, value in (env or {}).items())
        header_pairs = tuple((key, self.expand(value, secret_header(key))) for key, value in (headers or {}).items())
        url = self.expand(url)
        problem = ""
        if self.missing:
            names = ", ".join(dict.fromkeys(self.missing))
            problem = f"environment variable {names} is not set"
        return ServerSpec(name, source, transport, command=command, args=args, env=env_pairs, cwd=cwd, url=url,
                          headers=header_pairs, timeout=timeout, trust_read_only=trust_read_only, problem=problem,
                          secrets=tuple(s for s in self.secrets if len(s) >= 4))

    def expand(self, text: str, secret: bool = False) -> str:
        def replace(match) -> str:
            token = match.group(0)
            inner = token[2:-1] if token.startswith("${") else token[1:]
            variable, _, default = inner.partition(":-")
            value = self.environ.get(variable)
            if value is None or (value == "" and ":-" in inner):
                if ":-" in inner:
                    value = default
                else:
                    self.missing.append(variable)
                    return ""
            if secret or looks_like_secret_name(variable):
                self.secrets.append(value)
            return value

        expanded = REFERENCE.sub(replace, text)
        if secret and self.literal_secrets and not REFERENCE.search(text):
            # A workspace file may hold a literal token: keep it out of records.
            self.secrets.append(text.split()[-1] if text.split() else text)
        return expanded


def _reason(exc: BaseException) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8"
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno}"
    return getattr(exc, "strerror", None) or type(exc).__name__
