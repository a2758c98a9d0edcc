"""What a command sees of the environment (issue 12, class 1a): real
commands in a temporary workspace, run by the real execute_command tool."""

from __future__ import annotations

import json
import threading

import pytest

from paicli_tui.config.settings import Settings
from paicli_tui.llm.types import ToolCall
from paicli_tui.config.secret_names import looks_like_secret_name, looks_like_secret_value
from paicli_tui.policy.approval import AutoApprover
from paicli_tui.tools.base import ToolContext
from paicli_tui.tools.command_env import CommandEnvPolicy
from paicli_tui.agent.registry import ToolRegistry
from paicli_tui.tools.trusted_urls import TrustedUrls

CREDENTIALS = {
    "PAICLI_API_KEY": "paicli-key-value-1",
    "FOO_TOKEN": "foo-token-value-2",
    "MY_SECRET_THING": "secret-thing-value-3",
    "DB_PASSWORD": "db-password-value-4",
    "PGPASSWORD": "pg-password-value-5",
    "AWS_ACCESS_KEY_ID": "AKIAABCDEFGHIJKLMNOP",
    "AWS_SECRET_ACCESS_KEY": "aws-secret-value-6",
    "AWS_SESSION_TOKEN": "aws-session-value-7",
    "GOOGLE_APPLICATION_CREDENTIALS": "/home/u/gcp.json",
    "AZURE_CLIENT_SECRET": "azure-secret-value-8",
    "GH_TOKEN": "gh-token-value-9",
    "GITHUB_TOKEN": "github-token-value-10",
    "OPENAI_API_KEY": "openai-key-value-11",
    "ANTHROPIC_API_KEY": "anthropic-key-value-12",
    "HF_TOKEN": "hf-token-value-13",
    "NPM_TOKEN": "npm-token-value-14",
    "STRIPE_SECRET_KEY": "stripe-value-15",
    "INNOCENT_LOOKING": "https://user:hunter2@db.example/app",  # a password in a URL
    "SOME_SETTING": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",  # a token by its shape
}
HARMLESS = {"KEEP_ME": "kept-value", "SORT_KEY": "name", "TOKENIZERS_PARALLELISM": "false",
            "PAICLI_RUN_MAX_TOKENS": "1000", "SSH_AUTH_SOCK": "/tmp/agent.sock"}


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def environment(monkeypatch):
    for name, value in {**CREDENTIALS, **HARMLESS}.items():
        monkeypatch.setenv(name, value)


def run_command_tool(workspace, settings: Settings, command: str) -> str:
    registry = ToolRegistry(workspace, settings)
    ctx = ToolContext("react", threading.Event(), TrustedUrls(), AutoApprover(), approval_mode="ask")
    result = registry.execute(ToolCall("c1", "execute_command", json.dumps({"command": command})), ctx)
    assert result.ok, result.content
    return result.content


def test_a_command_sees_no_credentials_but_sees_path_and_home(workspace, environment):
    output = run_command_tool(workspace, Settings(provider="custom"), "env")
    names = {line.split("=", 1)[0] for line in output.splitlines() if "=" in line}
    assert not names & set(CREDENTIALS), names & set(CREDENTIALS)
    for value in CREDENTIALS.values():
        assert value not in output
    assert {"PATH", "HOME", *HARMLESS} <= names


def test_a_variable_expanded_in_the_command_is_empty(workspace, environment):
    output = run_command_tool(workspace, Settings(provider="custom"), 'echo "k=$PAICLI_API_KEY t=$FOO_TOKEN h=$HOME"')
    assert "k= t= h=/" in output


def test_the_configured_key_variable_is_removed_whatever_its_name(workspace, monkeypatch):
    monkeypatch.setenv("MY_LLM", "configured-key-value")
    output = run_command_tool(workspace, Settings(api_key_env="MY_LLM"), 'echo "k=$MY_LLM"')
    assert "k=\n" in output + "\n" and "configured-key-value" not in output


def test_pass_and_drop_settings_are_honoured(workspace, environment):
    settings = Settings(provider="custom", command_env_pass=["GH_TOKEN", "NPM_*"], command_env_drop=["KEEP_*", "GH_TOKEN"])
    output = run_command_tool(workspace, settings, 'echo "gh=$GH_TOKEN npm=${NPM_TOKEN:+set} keep=$KEEP_ME path=${PATH:+set}"')
    # drop wins over pass; a passed credential is there; an extra dropped name is gone
    assert "gh= npm=set keep= path=set" in output


def test_a_passed_credential_is_still_redacted_from_what_is_printed(workspace, environment):
    output = run_command_tool(workspace, Settings(command_env_pass=["NPM_TOKEN"]), 'echo "npm=$NPM_TOKEN"')
    assert "npm=[REDACTED]" in output and "npm-token-value-14" not in output


def test_pass_and_drop_lists_read_from_the_environment(monkeypatch):
    from paicli_tui.config.loading import load_settings

    monkeypatch.setenv("PAICLI_COMMAND_ENV_PASS", "GH_TOKEN, NPM_*")
    settings = load_settings()
    assert settings.command_env_pass == ["GH_TOKEN", "NPM_*"]


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "GITHUB_TOKEN", "CLIENT_SECRET", "MY_SECRET_X", "PGPASSWORD",
                                  "db_password", "NGROK_AUTHTOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID",
                                  "GOOGLE_APPLICATION_CREDENTIALS", "STRIPE_PRIVATE_KEY", "NPM_CONFIG__AUTH",
                                  "SENTRY_DSN", "DB_PASS"])
def test_credential_names(name):
    assert looks_like_secret_name(name)


@pytest.mark.parametrize("name", ["PATH", "HOME", "SORT_KEY", "TOKENIZERS_PARALLELISM", "PAICLI_MAX_TOKENS",
                                  "SSH_AUTH_SOCK", "PAICLI_API_KEY_ENV", "KEYBOARD", "PWD", "LANG"])
def test_ordinary_names(name):
    assert not looks_like_secret_name(name)


def test_values_that_are_credentials_whatever_the_name():
    assert looks_like_secret_value("postgres://app:s3cret@db:5432/app")
    assert looks_like_secret_value("sk-proj-abcdefghijklmnopqrstuvwx")
    assert not looks_like_secret_value("https://example.com/path")
    assert not looks_like_secret_value("/usr/local/bin:/usr/bin")


def test_policy_builds_from_a_mapping_without_touching_the_process_environment():
    policy = CommandEnvPolicy("MY_LLM", passed=("GH_TOKEN",))
    env = policy.build({"MY_LLM": "k", "GH_TOKEN": "t", "FOO_TOKEN": "f", "PATH": "/bin"})
    assert env == {"GH_TOKEN": "t", "PATH": "/bin"}
