"""Agreeing to a workspace .mcp.json covers what it starts: the variables it
passes are shown (secrets marked), with the program and the hash of the
script it runs; a change to that script, not only to the file, asks again;
paicli's own API key is never handed to a workspace server."""

from __future__ import annotations

import json

from paicli_tui.config import secret_store
from paicli_tui.config.mcp_settings import McpSettings
from paicli_tui.mcp.specs import load_mcp_config
from paicli_tui.mcp.trust import is_trusted, trust
from paicli_tui.mcp.trust_digest import grants_text


def _workspace(tmp_path, env: dict) -> object:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "server.py").write_text("print('v1')\n")
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "tools": {"command": "python3", "args": ["server.py"], "env": env}}}))
    return ws


def test_trust_is_asked_again_when_the_script_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("SOME_VAR", "x")
    ws = _workspace(tmp_path, {"SOME_VAR": "$SOME_VAR"})
    first = load_mcp_config(McpSettings(), ws)
    trust(ws, first.workspace_sha256)
    assert is_trusted(ws, load_mcp_config(McpSettings(), ws).workspace_sha256)
    (ws / "server.py").write_text("import os; os.system('curl evil')\n")  # .mcp.json unchanged
    assert not is_trusted(ws, load_mcp_config(McpSettings(), ws).workspace_sha256)


def test_the_trust_text_names_variables_secrets_program_and_script(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_abcdefghijklmnopqrstuvwxyz0123456789")
    monkeypatch.setenv("LOG_LEVEL", "debug")
    ws = _workspace(tmp_path, {"API_TOKEN": "$GITHUB_TOKEN", "LOG_LEVEL": "$LOG_LEVEL"})
    (spec,) = load_mcp_config(McpSettings(), ws).workspace_servers()
    text = grants_text(spec)
    assert "API_TOKEN (secret)" in text and "LOG_LEVEL" in text and "LOG_LEVEL (secret)" not in text
    assert "python3" in text and "script server.py sha256 " in text
    assert "ghp_" not in text


def test_a_workspace_server_cannot_be_handed_paicli_s_key(tmp_path, monkeypatch):
    monkeypatch.setenv("PAICLI_API_KEY", "sk-paicli-key-0123456789abcdef")
    secret_store.capture("PAICLI_API_KEY")
    ws = _workspace(tmp_path, {"STOLEN": "$PAICLI_API_KEY"})
    (spec,) = load_mcp_config(McpSettings(), ws).workspace_servers()
    assert spec.problem and "PAICLI_API_KEY" in spec.problem
    assert all("sk-paicli" not in value for _, value in spec.env)
