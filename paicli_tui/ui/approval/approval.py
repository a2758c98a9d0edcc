"""The approval dialog (P-7.4, P-9.6): what a tool wants to do, shown once,
and the person's choices: yes, always (with its scope in words), no, no with
a reason for the agent, or edit before it runs. Dismissing it answers the
engine thread waiting on the request's Future (the app resolves it)."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static, TextArea

from paicli_tui.policy.approval import ApprovalAnswer, ApprovalRequest, Decision
from paicli_tui.ui.approval.diff_view import colour_diff

__all__ = ["ApprovalScreen", "colour_diff"]
FILE_TOOLS = ("write_file", "edit_file")
#: Other tools whose preview is a diff.
DIFF_TOOLS = ("revert_turn",)
NEW_FILE = "\n@@ -0,0 "
ALWAYS_LABELS = ("Always [a]", "Always, folder [d]")


def dialog_title(request: ApprovalRequest) -> Content:
    path = request.arguments.get("path")
    if request.tool in FILE_TOOLS and isinstance(path, str):
        verb = "editing" if request.tool == "edit_file" else "creating" if NEW_FILE in request.preview else "overwriting"
        return Content.assemble(("Allow ", "bold"), (f"{verb} ", "bold"), (path, "bold $accent"), ("?", "bold"))
    if request.tool == "execute_command":
        return Content.styled("Allow this command?", "bold")
    return Content.assemble(("Allow ", "bold"), (request.tool, "bold $accent"), ("?", "bold"))


def who_asks(request: ApprovalRequest) -> str:
    agent = "the agent" if request.actor in ("react", "") else request.actor
    return f"{agent} · {request.task}" if request.task else agent


class ApprovalScreen(ModalScreen[ApprovalAnswer]):
    CSS_PATH = Path(__file__).with_name("approval.tcss")

    BINDINGS = [
        Binding("y", "decide('yes')", "Yes", id="approval.yes"),
        Binding("w", "with_network", "Yes, with network", show=False, id="approval.with_network"),
        Binding("a", "always(0)", "Always", id="approval.always"),
        Binding("d", "always(1)", "Always for the folder", show=False, id="approval.always_folder"),
        Binding("n", "decide('no')", "No", id="approval.no"),
        Binding("r", "tell_why", "No, tell why", id="approval.reason"),
        Binding("e", "edit", "Edit", id="approval.edit"),
        Binding("escape", "back_or_no", "No", show=False, id="approval.escape"),
        Binding("ctrl+s", "run_edited", "Run edited", show=False, id="approval.run_edited"),
    ]

    def __init__(self, request: ApprovalRequest, queued: int = 0) -> None:
        super().__init__()
        self.request = request
        self.queued = queued

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="approval-dialog"):
            yield Static(dialog_title(request), id="approval-title")
            yield Static(Content(f"{who_asks(request)} — {request.reason}"), id="approval-reason",
                         classes="-risky" if request.risky else "")
            with VerticalScroll(id="approval-body"):
                yield from self._body()
            if request.grants:
                yield Static(self._scopes(), id="approval-scope")
            elif request.risky:
                yield Static(Content.styled("Asked every time: no grant or allow rule covers a risky command.",
                                            "$text-muted"), id="approval-scope")
            if self.queued:
                yield Static(Content(f"{self.queued} more waiting after this one"), id="approval-queued")
            with Vertical(id="approval-footer"):
                yield Input(placeholder="Why not? The agent reads this", id="approval-why")
                yield TextArea(self._editable_text(), id="approval-editor", soft_wrap=True, show_line_numbers=True)
                yield Static(Content.styled("Enter sends · Esc goes back", "$text-muted"), id="approval-why-hint")
                yield Button(Content("Run edited [ctrl+s]"), variant="warning", id="approval-run-edited", compact=True)
                with Horizontal(id="approval-buttons"):
                    yield from self._buttons()

    def _body(self) -> ComposeResult:
        request = self.request
        if request.tool in FILE_TOOLS or request.tool in DIFF_TOOLS:
            yield Static(colour_diff(request.preview), id="approval-preview")
        elif request.tool == "execute_command":
            yield Static(Content.assemble(("$ ", "bold $accent"), str(request.arguments.get("command", ""))),
                         id="approval-arguments")
            if request.workdir:
                yield Static(Content.styled(f"in {request.workdir}", "$text-muted"), id="approval-workdir")
        else:
            lines = [Content.assemble((f"{key}: ", "bold"), str(value)) for key, value in request.arguments.items()]
            yield Static(Content("\n").join(lines) if lines else Content("(no arguments)"), id="approval-arguments")

    def _scopes(self) -> Content:
        """What each Always button allows from now on, said in full."""
        lines = [Content.assemble((f"[{key}]", "bold"), " allows from now on: ", grant.describe())
                 for key, grant in zip("ad", self.request.grants)]
        return Content("\n").join(lines)

    def _buttons(self) -> ComposeResult:
        if self.request.network_choice:
            # Plain yes keeps the sandbox's default: the command runs offline.
            yield Button(Content("Yes, offline [y]"), variant="success", id="approval-yes", compact=True)
            yield Button(Content("Yes, with network [w]"), variant="warning", id="approval-network", compact=True)
        else:
            yield Button(Content("Yes [y]"), variant="success", id="approval-yes", compact=True)
        labels = ALWAYS_LABELS
        if self.request.grants and self.request.grants[0].kind == "tool":
            labels = ("Always [a]", "Always, whole server [d]")  # an MCP tool: this tool, or all of its server's
        for index, label in enumerate(labels[: len(self.request.grants)]):
            yield Button(Content(label), variant="primary", id=f"approval-always-{index}", compact=True)
        yield Button(Content("No [n]"), variant="error", id="approval-no", compact=True)
        yield Button(Content("No, tell why [r]"), id="approval-reason-button", compact=True)
        if self.request.editable:
            yield Button(Content("Edit [e]"), id="approval-edit", compact=True)

    def _editable_text(self) -> str:
        field = self.request.editable
        value = self.request.arguments.get(field, "") if field else ""
        return value if isinstance(value, str) else ""

    # -- choices -----------------------------------------------------------------

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        button = event.button.id or ""
        if button.startswith("approval-always-"):
            self.action_always(int(button.rsplit("-", 1)[1]))
        elif button == "approval-reason-button":
            self.action_tell_why()
        elif button == "approval-edit":
            self.action_edit()
        elif button == "approval-run-edited":
            self.action_run_edited()
        elif button == "approval-network":
            self.action_with_network()
        else:
            self.action_decide(button.removeprefix("approval-"))

    def _typing(self) -> bool:
        return self.has_class("-why") or self.has_class("-editing")

    def action_decide(self, answer: str) -> None:
        if not self._typing():
            self.dismiss(ApprovalAnswer(Decision(answer)))

    def action_with_network(self) -> None:
        if not self._typing() and self.request.network_choice:
            self.dismiss(ApprovalAnswer(Decision.YES, network=True))

    def action_always(self, index: int) -> None:
        if not self._typing() and index < len(self.request.grants):
            self.dismiss(ApprovalAnswer(Decision.ALWAYS, grant=self.request.grants[index]))

    def action_tell_why(self) -> None:
        if not self._typing():
            self.add_class("-why")
            self.query_one("#approval-why", Input).focus()

    def action_edit(self) -> None:
        if not self._typing() and self.request.editable:
            self.add_class("-editing")
            self.query_one("#approval-editor", TextArea).focus()

    def action_run_edited(self) -> None:
        if self.has_class("-editing"):
            text = self.query_one("#approval-editor", TextArea).text
            if self.request.tool == "execute_command":
                text = text.strip()
            self.dismiss(ApprovalAnswer(Decision.EDIT, edited=text))

    def action_back_or_no(self) -> None:
        if self._typing():
            self.remove_class("-why", "-editing")
            self.query_one("#approval-yes", Button).focus()
            return
        self.dismiss(ApprovalAnswer(Decision.NO))

    @on(Input.Submitted, "#approval-why")
    def _reason_given(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(ApprovalAnswer(Decision.NO, reason=event.value.strip()))
