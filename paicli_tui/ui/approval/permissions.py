"""/permissions (P-9.6): every grant and rule in force, and what each allows.
Session grants can be revoked or kept for the workspace; grants kept for the
workspace can be revoked; rules from config.toml are shown, edited there."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from paicli_tui.policy.grants import Grant, GrantStore

SOURCES = {"session": "this session", "workspace": "kept for this workspace", "config": "config.toml"}
HINT = "r revoke · k keep for this workspace · esc close — a grant never skips the risk check; deny beats allow"


class PermissionsScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_name("permissions.tcss")

    BINDINGS = [
        Binding("r,delete", "revoke", "Revoke", id="permissions.revoke"),
        Binding("k", "keep", "Keep for this workspace", id="permissions.keep"),
        Binding("escape,q", "close", "Close", id="permissions.close"),
    ]

    def __init__(self, session) -> None:
        super().__init__()
        self.session = session

    @property
    def grants(self) -> GrantStore:
        return self.session.grants

    def compose(self) -> ComposeResult:
        with Vertical(id="permissions-dialog"):
            yield Static(Content.styled("Permissions", "bold"), id="permissions-title")
            yield OptionList(id="permissions-list")
            yield Static(Content.styled(HINT, "$text-muted"), id="permissions-hint")

    def on_mount(self) -> None:
        self._fill()

    def _entries(self) -> list[tuple[str, Grant]]:
        grants = self.grants
        return [*(("allow", g) for g in grants.session_grants), *(("allow", g) for g in grants.kept_grants),
                *(("allow", g) for g in grants.allow_rules), *(("deny", g) for g in grants.deny_rules)]

    def _fill(self) -> None:
        options = self.query_one("#permissions-list", OptionList)
        highlighted = options.highlighted
        options.clear_options()
        entries = self._entries()
        if not entries:
            options.add_option(Option(Content.styled(
                "Nothing granted yet: answer Always [a] in an approval dialog, or add [permissions] allow/deny "
                "rules to config.toml", "italic"), disabled=True))
            return
        for index, (effect, grant) in enumerate(entries):
            badge = Content.styled(f"{effect:<5} ", "bold $error" if effect == "deny" else "bold $success")
            where = Content.styled(f"  ({SOURCES[grant.source]}: {grant.rule})", "$text-muted")
            options.add_option(Option(Content.assemble(badge, grant.describe(deny=effect == "deny"), where),
                                      id=str(index)))
        if highlighted is not None:
            options.highlighted = min(highlighted, len(entries) - 1)
        elif entries:
            options.highlighted = 0

    def _selected(self) -> Grant | None:
        options = self.query_one("#permissions-list", OptionList)
        entries = self._entries()
        index = options.highlighted
        if index is None or index >= len(entries):
            return None
        return entries[index][1]

    def action_revoke(self) -> None:
        grant = self._selected()
        if grant is None:
            return
        if grant.source == "config":
            self.notify("rules from config.toml are changed there", severity="warning", markup=False)
            return
        self.session.revoke_grant(grant)
        self.notify(f"revoked: {grant.describe()}", markup=False)
        self._fill()

    def action_keep(self) -> None:
        grant = self._selected()
        if grant is None or grant.source != "session":
            self.notify("only a grant of this session can be kept", severity="warning", markup=False)
            return
        try:
            path = self.session.keep_grant(grant)
        except OSError as exc:
            self.notify(f"could not keep the grant: {exc}", severity="error", markup=False)
            return
        self.notify(f"kept for this workspace in {path}", markup=False)
        self._fill()

    def action_close(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected)
    def _selected_with_enter(self, event: OptionList.OptionSelected) -> None:
        event.stop()
