"""/mcp (P-9.1): each MCP server's state, tools and resources; restart one;
agree to the workspace's .mcp.json. Reads the manager's snapshots a few
times a second: servers change state on the engine loop, never here."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from paicli_tui.config.paths import ConfigError
from paicli_tui.ui.mcp.mcp_view import NO_SERVERS, server_details, server_line

if TYPE_CHECKING:
    from paicli_tui.session.port import SessionPort

HINT = "r restart · esc close"
TRUST_HINT = "t agree to .mcp.json and start it · r restart · esc close"
REFRESH_S = 0.5


class McpScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_name("mcp_screen.tcss")

    BINDINGS = [
        Binding("r", "restart", "Restart the highlighted server", id="mcp.restart"),
        Binding("t", "trust", "Agree to this workspace's .mcp.json and start its servers", id="mcp.trust"),
        Binding("escape,q", "close", "Close", id="mcp.close"),
    ]

    def __init__(self, session: "SessionPort") -> None:
        super().__init__()
        self.session = session
        self._shown: list = []

    @property
    def manager(self):
        return self.session.mcp

    def compose(self) -> ComposeResult:
        # Title and keys sit in the border, so a short terminal never cuts them off.
        with Vertical(id="mcp-dialog") as dialog:
            dialog.border_title = "MCP servers"
            yield OptionList(id="mcp-list")
            with VerticalScroll(id="mcp-details-scroll"):
                yield Static(id="mcp-details")

    def on_mount(self) -> None:
        self._refresh()
        self.set_interval(REFRESH_S, self._refresh, name="mcp-refresh")

    def _statuses(self) -> list:
        return self.manager.statuses() if self.manager is not None else []

    def _refresh(self) -> None:
        statuses = self._statuses()
        options = self.query_one("#mcp-list", OptionList)
        hint = TRUST_HINT if self.manager is not None and self.manager.untrusted else HINT
        self.query_one("#mcp-dialog").border_subtitle = hint
        if not statuses:
            if not self._shown:
                options.clear_options()
                options.add_option(Option(Content.styled(NO_SERVERS, "italic"), disabled=True))
                self._shown = [None]
            self._show_details(None)
            return
        if statuses != self._shown:
            highlighted = options.highlighted
            options.clear_options()
            options.add_options([Option(server_line(s), id=s.name) for s in statuses])
            options.highlighted = min(highlighted or 0, len(statuses) - 1)
            self._shown = statuses
        self._show_details(self._selected())

    def _selected(self):
        options = self.query_one("#mcp-list", OptionList)
        index = options.highlighted
        if index is None or not self._shown or self._shown[0] is None or index >= len(self._shown):
            return None
        return self._shown[index]

    def _show_details(self, status) -> None:
        details = self.query_one("#mcp-details", Static)
        details.update(server_details(status) if status is not None else "")

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_details(self._selected())

    @on(OptionList.OptionSelected)
    def _selected_with_enter(self, event: OptionList.OptionSelected) -> None:
        event.stop()

    def action_restart(self) -> None:
        status = self._selected()
        if status is None or self.manager is None:
            return
        if status.state == "untrusted":
            self.notify("this server comes from the workspace's .mcp.json: press t to agree to start it first",
                        severity="warning", markup=False)
            return
        if self.manager.restart(status.name):
            self.notify(f"restarting {status.name}…", markup=False)
            self._refresh()

    def action_trust(self) -> None:
        manager = self.manager
        if manager is None or not manager.untrusted:
            self.notify("nothing to agree to: no workspace .mcp.json server is waiting", markup=False)
            return
        try:
            started = manager.trust_workspace()
        except (OSError, ConfigError) as exc:
            self.notify(f"could not keep your agreement: {exc}", severity="error", markup=False)
            return
        self.notify(f"starting {', '.join(started)}; kept your yes for this .mcp.json", markup=False)
        self._refresh()

    def action_close(self) -> None:
        self.dismiss(None)
