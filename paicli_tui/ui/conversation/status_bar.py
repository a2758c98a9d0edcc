"""The bottom line: mode, model, tokens used in this conversation and
their estimated cost when the model has a price, workspace (P-7.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from paicli_tui.llm.types import Usage
from paicli_tui.present.figures import format_cost, format_tokens
from paicli_tui.records.cost import cost_of


def format_usage(usage: Usage, price: Any = None) -> str:
    """``in 3.5k · out 171 · cached 2.2k · ≈$0.0040`` (a cent or more: ``≈$0.02``): prompt tokens (cached
    included), completion tokens, cached ones when there are any, then the
    estimated cost when ``price`` (a config.Price or mapping) is known. Tokens
    paicli counted itself (the server sent no usage) are marked ``≈``; calls
    nobody counted are named, never shown as 0."""
    uncounted = usage.uncounted_calls
    if uncounted and not usage.total:
        return f"tokens unknown ({uncounted} call{'s' if uncounted != 1 else ''} without usage)"
    mark = "≈" if usage.estimated else ""
    parts = [f"in {mark}{format_tokens(usage.prompt_tokens, '')}", f"out {mark}{format_tokens(usage.completion_tokens, '')}"]
    if usage.cached_tokens:
        parts.append(f"cached {format_tokens(usage.cached_tokens, '')}")
    if uncounted:
        parts.append(f"+{uncounted} call{'s' if uncounted != 1 else ''} without usage")
    if price is not None:
        parts.append(format_cost(cost_of(usage, price), estimate=True))
    return " · ".join(parts)


def short_path(path: Path | str) -> str:
    text = str(path)
    home = str(Path.home())
    if home != "/" and (text == home or text.startswith(home + "/")):
        return "~" + text[len(home):]
    return text


class StatusBar(Horizontal):
    """Mode badge and hint, model, tokens and workspace."""

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        background: $panel;
        color: $foreground;
    }
    StatusBar > Static { width: auto; padding: 0 1; }
    StatusBar #status-mode { text-style: bold; color: $background; }
    StatusBar.-mode-auto #status-mode { background: $mode-auto; }
    StatusBar.-mode-plan #status-mode { background: $mode-plan; }
    StatusBar.-mode-ask #status-mode { background: $mode-ask; }
    StatusBar #status-hint { color: $text-muted; padding: 0 1 0 0; }
    StatusBar.-replay #status-hint { background: $warning; color: $background; text-style: bold; padding: 0 1; }
    StatusBar #status-model { color: $primary; }
    StatusBar #status-tokens { color: $text-muted; }
    StatusBar #status-workspace {
        width: 1fr;
        text-align: right;
        color: $text-muted;
        text-overflow: ellipsis;
        text-wrap: nowrap;
    }
    """

    mode: reactive[str] = reactive("auto")
    model_label: reactive[str] = reactive("")
    usage: reactive[Usage] = reactive(Usage)
    workspace: reactive[str] = reactive("")
    #: The model's price (config.Price or a mapping), None when unknown.
    price: Any = None

    def compose(self) -> ComposeResult:
        yield Static(id="status-mode")
        yield Static(Content("shift+tab to cycle"), id="status-hint")
        yield Static(id="status-model")
        yield Static(id="status-tokens")
        yield Static(id="status-workspace")

    def on_mount(self) -> None:
        self._show_mode(self.mode)

    def watch_mode(self, mode: str) -> None:
        if self.is_mounted:
            self._show_mode(mode)

    def _show_mode(self, mode: str) -> None:
        for name in ("auto", "plan", "ask"):
            self.set_class(name == mode, f"-mode-{name}")
        self.query_one("#status-mode", Static).update(Content(mode.upper()))

    def show_replay(self) -> None:
        """A REPLAY badge where the mode and its hint were: a replay has no
        approval mode to show or cycle."""
        self.add_class("-replay")
        self.query_one("#status-mode", Static).display = False
        self.query_one("#status-hint", Static).update(Content("REPLAY"))

    def watch_model_label(self, label: str) -> None:
        self.query_one("#status-model", Static).update(Content(label))

    def watch_usage(self, usage: Usage) -> None:
        self.refresh_usage()

    def refresh_usage(self) -> None:
        self.query_one("#status-tokens", Static).update(Content(format_usage(self.usage, self.price)))

    def watch_workspace(self, workspace: str) -> None:
        self.query_one("#status-workspace", Static).update(Content(short_path(workspace)))
