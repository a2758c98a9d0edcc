"""Which MCP servers a session gets (P-9.1): config.toml tables, the
workspace's .mcp.json, variables from the environment, secrets kept out."""

from __future__ import annotations

import json

import pytest

from paicli_tui.config.settings import ConfigError, Settings

from paicli_tui.config.loading import load_settings
from paicli_tui.config.mcp_settings import McpSettings
from paicli_tui.mcp.specs import load_mcp_config
from paicli_tui.mcp.trust import is_trusted, trust
from paicli_tui.session.mcp_wiring import with_server_secrets, workspace_trusted
from paicli_tui.policy.redaction import Redactor


def settings(**servers) -> McpSettings:
    return McpSettings(servers=servers)


def test_a_stdio_server_gets_only_the_variables_it_names(tmp_path):
    mcp = settings(gh={"command": "npx", "args": ["-y", "server-github", "--repo=${REPO:-paicli}"],
                       "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "$GITHUB_TOKEN", "MODE": "fast"},
                       "env_from": ["HTTPS_PROXY"]})
    environ = {"GITHUB_TOKEN": "ghp_" + "a" * 36, "HTTPS_PROXY": "http://proxy:3128", "OTHER_SECRET": "nope"}
    [spec] = load_mcp_config(mcp, tmp_path, environ).servers
    assert spec.transport == "stdio" and spec.source == "config" and spec.cwd == str(tmp_path)
    assert spec.args == ("-y", "server-github", "--repo=paicli")
    assert dict(spec.env) == {"GITHUB_PERSONAL_ACCESS_TOKEN": environ["GITHUB_TOKEN"], "MODE": "fast",
                              "HTTPS_PROXY": "http://proxy:3128"}
    assert spec.secrets == (environ["GITHUB_TOKEN"],) and not spec.problem
    assert "ghp_" not in repr(spec)


def test_what_the_person_is_shown_hides_secrets_read_into_args_or_url(tmp_path):
    mcp = settings(cli={"command": "srv", "args": ["--token=${API_TOKEN}", "--verbose"]},
                   web={"url": "https://x.example/mcp?key=${WEB_API_KEY}"})
    specs = {s.name: s for s in load_mcp_config(mcp, tmp_path, {"API_TOKEN": "t0ken-value", "WEB_API_KEY": "k3y-value"}).servers}
    assert specs["cli"].args[0] == "--token=t0ken-value" and specs["cli"].target() == "srv --token=[REDACTED] --verbose"
    assert specs["web"].target() == "https://x.example/mcp?key=[REDACTED]"


def test_an_unset_variable_keeps_only_that_server_from_starting(tmp_path):
    mcp = settings(a={"command": "a", "env": {"API_TOKEN": "$MISSING_TOKEN"}}, b={"url": "http://127.0.0.1:1/mcp"})
    specs = {s.name: s for s in load_mcp_config(mcp, tmp_path, {}).servers}
    assert specs["a"].problem == "environment variable MISSING_TOKEN is not set"
    assert not specs["b"].problem and specs["b"].transport == "http"


def test_header_secrets_are_named_and_their_values_redacted(tmp_path):
    mcp = settings(docs={"url": "https://docs.example/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}",
                                                                         "X-Team": "core"}})
    config = load_mcp_config(mcp, tmp_path, {"DOCS_TOKEN": "s3cret-value"})
    [spec] = config.servers
    assert dict(spec.headers)["Authorization"] == "Bearer s3cret-value"
    redactor = with_server_secrets(Redactor(), config)
    assert redactor.text("sent Bearer s3cret-value") == "sent Bearer [REDACTED]"


@pytest.mark.parametrize("table, message", [
    ({"command": "x", "env": {"GITHUB_TOKEN": "ghp_literal"}}, "env.GITHUB_TOKEN: write the NAME of an environment variable"),
    ({"url": "https://x/mcp", "headers": {"Authorization": "Bearer abc"}}, "headers.Authorization: name an environment"),
    ({"command": "x", "url": "http://x/mcp"}, "either command"),
    ({}, "either command"),
    ({"url": "ftp://x"}, "must start with http:// or https://"),
])
def test_config_toml_refuses_literal_secrets_and_unclear_servers(tmp_path, table, message):
    path = tmp_path / "config.toml"
    lines = ["[mcp.servers.s]"] + [f"{key} = {json.dumps(value)}" for key, value in table.items() if not isinstance(value, dict)]
    lines += [f"{key} = {{ {', '.join(f'{k} = {json.dumps(v)}' for k, v in value.items())} }}"
              for key, value in table.items() if isinstance(value, dict)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_settings(path=path)
    assert message in str(raised.value) and "mcp.servers.s" in str(raised.value)
    assert "\n" not in str(raised.value).strip().split("\n")[0]


@pytest.mark.parametrize("name", ["a__b", "-x", "with space", "x" * 33])
def test_server_names_must_fit_in_tool_names(name):
    with pytest.raises(ValueError, match="mcp__NAME__TOOL"):
        Settings(mcp={"servers": {name: {"command": "x"}}})


def test_the_workspace_file_in_the_form_other_agents_write(tmp_path):
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "server-files", "."], "env": {"API_KEY": "literal-key-123"}},
        "web": {"type": "http", "url": "http://127.0.0.1:8000/mcp", "headers": {"X-Api-Key": "${WEB_KEY}"}},
        "old": {"type": "sse", "url": "http://127.0.0.1:8000/sse"},
        "bad name": {"command": "x"},
        "taken": {"command": "y"},
    }}), encoding="utf-8")
    config = load_mcp_config(settings(taken={"command": "mine"}), tmp_path, {"WEB_KEY": "k" * 12})
    specs = {s.name: s for s in config.servers}
    assert specs["taken"].source == "config" and specs["taken"].command == "mine"
    assert specs["files"].source == "workspace" and specs["files"].args == ("-y", "server-files", ".")
    assert specs["web"].transport == "http" and dict(specs["web"].headers) == {"X-Api-Key": "k" * 12}
    assert set(config.secrets()) == {"literal-key-123", "k" * 12}
    assert config.workspace_file == tmp_path / ".mcp.json" and len(config.workspace_sha256) == 64
    joined = "\n".join(config.warnings)
    assert "'old': the old SSE transport is not supported" in joined
    assert "'bad name'" in joined and "server 'taken' is also in config.toml" in joined


@pytest.mark.parametrize("text, warning", [
    ("{not json", "not readable JSON"),
    ('{"servers": {}}', 'no "mcpServers" object'),
])
def test_an_unreadable_workspace_file_is_one_warning(tmp_path, text, warning):
    (tmp_path / ".mcp.json").write_text(text, encoding="utf-8")
    config = load_mcp_config(McpSettings(), tmp_path, {})
    assert config.servers == [] and len(config.warnings) == 1 and warning in config.warnings[0]


def test_the_workspace_file_can_be_left_unread(tmp_path):
    (tmp_path / ".mcp.json").write_text('{"mcpServers": {"x": {"command": "x"}}}', encoding="utf-8")
    assert load_mcp_config(McpSettings(workspace_file=False), tmp_path, {}).servers == []


def test_agreement_is_kept_per_workspace_and_file_content(tmp_path, paicli_home):
    (tmp_path / ".mcp.json").write_text('{"mcpServers": {"x": {"command": "x"}}}', encoding="utf-8")
    config = load_mcp_config(McpSettings(), tmp_path, {})
    warnings: list[str] = []
    assert not workspace_trusted(config, tmp_path, warnings, flag=False)
    assert len(warnings) == 1 and "(x)" in warnings[0] and "--trust-mcp" in warnings[0]
    assert workspace_trusted(config, tmp_path, [], flag=True)
    path = trust(tmp_path, config.workspace_sha256)
    assert path.parent == paicli_home and is_trusted(tmp_path, config.workspace_sha256)
    assert workspace_trusted(config, tmp_path, [], flag=False)
    assert not is_trusted(tmp_path / "other", config.workspace_sha256)
    assert not is_trusted(tmp_path, "0" * 64)  # the file changed
    trust(tmp_path, "f" * 64)
    assert not is_trusted(tmp_path, config.workspace_sha256)  # one agreement per workspace: the newest


def test_a_broken_trust_file_trusts_nothing_and_says_so(tmp_path, paicli_home):
    (tmp_path / ".mcp.json").write_text('{"mcpServers": {"x": {"command": "x"}}}', encoding="utf-8")
    (paicli_home / "mcp-trust.toml").write_text("[[workspace]]\npath = 3\n", encoding="utf-8")
    warnings: list[str] = []
    assert not workspace_trusted(load_mcp_config(McpSettings(), tmp_path, {}), tmp_path, warnings, flag=False)
    assert "mcp-trust.toml" in warnings[0] and "no workspace .mcp.json is trusted" in warnings[0]
