"""The provider presets, the approval modes and the endpoint checks: what
the first screen needs from the settings, without the settings' model
(pydantic's import is most of the start-up time paicli adds to Textual's;
see preview.py)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

#: base_url, default model and key variable per provider (P-1.2), each one
#: checked against the provider's documentation in docs/providers.md, and
#: ``response_format``: which structured output the server takes
#: (``json_schema``, ``json_object_schema``, ``json_object`` or ``none``;
#: llm/structured_output.py shows each form), used when
#: ``structured_output = "auto"``. The local servers (vllm, lmstudio) serve
#: whatever model was loaded: "local" stands in until --model names it.
PRESETS: dict[str, dict[str, str]] = {
    "openai": {"base_url": "https://api.openai.com/v1", "model": "gpt-4o-mini", "api_key_env": "OPENAI_API_KEY",
               "response_format": "json_schema"},
    "deepseek": {"base_url": "https://api.deepseek.com/v1", "model": "deepseek-chat", "api_key_env": "DEEPSEEK_API_KEY",
                 "response_format": "json_object"},
    "glm": {"base_url": "https://open.bigmodel.cn/api/paas/v4", "model": "glm-4.6", "api_key_env": "ZHIPUAI_API_KEY",
            "response_format": "json_object"},
    "ollama": {"base_url": "http://127.0.0.1:11434/v1", "model": "qwen2.5-coder", "api_key_env": "",
               "response_format": "json_schema"},
    # llama.cpp's servers take the schema beside json_object (llama-cpp-python
    # answers the json_schema form with HTTP 500): docs/providers.md.
    "llamacpp": {"base_url": "http://127.0.0.1:8080/v1", "model": "local", "api_key_env": "",
                 "response_format": "json_object_schema"},
    "openrouter": {"base_url": "https://openrouter.ai/api/v1", "model": "openai/gpt-4o-mini",
                   "api_key_env": "OPENROUTER_API_KEY", "response_format": "json_schema"},
    "vllm": {"base_url": "http://127.0.0.1:8000/v1", "model": "local", "api_key_env": "",
             "response_format": "json_schema"},
    "lmstudio": {"base_url": "http://127.0.0.1:1234/v1", "model": "local", "api_key_env": "",
                 "response_format": "json_schema"},
    "custom": {"base_url": "http://127.0.0.1:8000/v1", "model": "default", "api_key_env": "PAICLI_API_KEY",
               "response_format": "json_schema"},
    "demo": {"base_url": "http://demo.invalid/v1", "model": "demo", "api_key_env": "", "response_format": "json_schema"},
}

#: What the settings are when none are configured.
DEFAULT_PROVIDER = "openai"
DEFAULT_THEME = "paicli-dark"
DEFAULT_MODE = "auto"

#: Approval modes in Shift+Tab order (P-6.5).
MODES = ("auto", "plan", "ask")


def next_mode(mode: str) -> str:
    return MODES[(MODES.index(mode) + 1) % len(MODES)]


def checked_mode(mode: str) -> str:
    """``mode`` if it is an approval mode, else a ValueError naming the choices."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    return mode


@dataclass(frozen=True)
class ResolvedProvider:
    """The endpoint, model and key variable a provider's settings come to."""

    base_url: str
    model: str
    api_key_env: str

    def api_key(self) -> str | None:
        """The key from the environment or, once captured out of it, from
        paicli's memory; None when unset/empty."""
        from paicli_tui.config import secret_store

        return secret_store.read(self.api_key_env)

    def missing_key(self) -> str | None:
        """A one-line problem when a remote server will need a key that is
        not set; None when the key is there or the server is local (a local
        llama.cpp / Ollama server usually needs none)."""
        if not self.api_key_env or self.api_key() is not None:
            return None
        if is_local_url(self.base_url):
            return None
        return (
            f"{self.api_key_env} is not set: {self.base_url} needs an API key "
            f"(export {self.api_key_env}=…, or try `paicli --demo`)"
        )

    def problem(self) -> str | None:
        """What stops this provider from working, as one line: a base URL
        that is not an http(s) URL comes first (a key check on it would
        mislead), then a missing key."""
        return base_url_problem(self.base_url) or self.missing_key()


def resolve_provider(provider: str, base_url: str | None, model: str | None,
                     api_key_env: str | None) -> ResolvedProvider:
    """What the preset fills in where the settings name nothing."""
    preset = PRESETS[provider]
    return ResolvedProvider(
        base_url=(base_url or preset["base_url"]).rstrip("/"),
        model=model or preset["model"],
        api_key_env=api_key_env if api_key_env is not None else preset["api_key_env"],
    )


def is_local_url(url: str) -> bool:
    """True for a loopback host: 127.0.0.0/8, ``localhost``, ``::1``."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return host in ("localhost", "::1") or host.startswith("127.")


def base_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be an OpenAI-compatible base URL, or None."""
    example = "(e.g. http://127.0.0.1:8080/v1)"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        return f"base URL {_shown(url)} is not a URL: its host or port cannot be read {example}"
    if parts.scheme.lower() not in ("http", "https"):
        if "://" not in url:
            return f"base URL {_shown(url)} is not a URL: it needs http:// or https:// and a host {example}"
        return f"base URL {_shown(url)} uses {parts.scheme}://, which paicli cannot use: use http:// or https://"
    host = parts.hostname or ""
    if not host or any(ch.isspace() for ch in url):
        return f"base URL {_shown(url)} is not a URL: it has no host, or spaces in it {example}"
    return None


def _shown(url: str) -> str:
    # user:password@ in a URL is a credential: never echo it.
    try:
        parts = urlsplit(url)
    except ValueError:
        return repr(url)
    if "@" in parts.netloc:
        url = parts._replace(netloc="…@" + parts.netloc.rsplit("@", 1)[1]).geturl()
    return repr(url)
