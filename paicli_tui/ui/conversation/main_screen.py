"""The main screen (P-7.1): transcript, input line, status bar.

It turns what the person types into session calls and paints what the app
drains from the event pump. It never waits on the engine: session calls
return at once and everything they cause arrives later as events. A plan
given on the command line (``--plan-file``) is started once it is mounted.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen

from paicli_tui import events as ev
from paicli_tui.config import MODES
from paicli_tui.ui.conversation.painter import TranscriptPainter
from paicli_tui.ui.review.plan_edit_state import id_prefix_of
from paicli_tui.ui.common.figures import session_price
from paicli_tui.ui.approval.permissions import PermissionsScreen
from paicli_tui.ui.conversation.command_provider import SlashCommandProvider
from paicli_tui.ui.conversation.composer import Composer
from paicli_tui.ui.conversation.slash_commands import SlashCommand, help_text, parse_slash
from paicli_tui.ui.conversation.prompt_editor import PromptEditor
from paicli_tui.ui.conversation.status_bar import StatusBar, short_path
from paicli_tui.ui.conversation.transcript import Transcript

if TYPE_CHECKING:
    from paicli_tui.ui.app import PaicliApp


@dataclass(frozen=True)
class JobEnded:
    """A submitted input finished (posted from the engine thread)."""

    outcome: Any = None
    error: BaseException | None = None

    @classmethod
    def from_future(cls, future: Future) -> "JobEnded":
        if future.cancelled():
            return cls(error=RuntimeError("cancelled before it started"))
        error = future.exception()
        return cls(error=error) if error is not None else cls(outcome=future.result())


class MainScreen(Screen):
    CSS_PATH = Path(__file__).with_name("main_screen.tcss")
    COMMANDS = {SlashCommandProvider}

    BINDINGS = [
        # Screen binds shift+tab to focus-previous; the main screen owns it.
        Binding("shift+tab", "cycle_mode", "Cycle mode", show=False, id="main.cycle_mode"),
        Binding("escape", "cancel_turn", "Cancel", show=False, id="main.cancel_turn"),
    ]

    app: "PaicliApp"

    def __init__(self, session: Any, *, plan: Any = None) -> None:
        super().__init__(id="main")
        self.session = session
        self.plan = plan
        self.painter: TranscriptPainter | None = None
        self._early: list[Any] = []
        # Whether the running job already told the person how it ended.
        self._job_reported = True

    def compose(self) -> ComposeResult:
        yield Transcript(id="transcript")
        yield Composer(self.argument_choices, self.session.workspace, id="composer",
                       placeholder="Ask paicli · / commands · @ files · shift+enter new line")
        yield StatusBar(id="status")

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    @property
    def prompt(self) -> PromptEditor:
        return self.query_one(PromptEditor)

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    @property
    def ready(self) -> bool:
        """Mounted and not being torn down: safe to paint."""
        return self.painter is not None and self.is_attached and bool(self.query(StatusBar))

    async def on_mount(self) -> None:
        self.painter = TranscriptPainter(self.transcript)
        status = self.status
        status.mode = self.session.approval_mode
        status.model_label = self.session.model_label
        status.price = session_price(self.session)
        status.usage = self.session.usage
        status.workspace = str(self.session.workspace)
        await self.transcript.add_line(
            f"paicli · {self.session.model_label} · {short_path(self.session.workspace)} — "
            "type a goal, or /help for commands",
            "muted",
        )
        settings = getattr(self.session, "settings", None)
        problem = settings.resolved().problem() if settings is not None else None
        problems = [problem] if problem else []
        problems += getattr(self.session, "warnings", [])
        for line in problems:
            # Said up front rather than after a failed request; the app stays usable.
            await self.transcript.add_line(line, "warning")
        self.prompt.focus()
        if self.plan is not None:
            await self.start_plan(self.plan)

    async def start_plan(self, plan: Any) -> None:
        """Run a ready plan (a plan file): /team for ``step_`` ids, else /plan;
        the review screen opens on it as it would after planning."""
        command = "/team" if id_prefix_of(plan) == "step" else "/plan"
        await self.transcript.add_user(f"{command} {plan.goal}".rstrip() + "  (plan file)")
        start = self.session.start_team if command == "/team" else self.session.start_plan
        await self._start_job(lambda: start(plan.goal, plan))

    # -- painting (called by the app once per frame) ----------------------------

    async def paint(self, items: list[Any]) -> None:
        if not self.ready:  # not mounted yet (or closing): keep them for later
            self._early.extend(items)
            return
        if self._early:
            items, self._early = [*self._early, *items], []
        summary = await self.painter.paint(items)
        if summary.prices and self.status.price is None:
            # A replay has no configured price: the recorded run carries it.
            self.status.price = next(iter(summary.prices.values()))
            self.status.refresh_usage()
        if summary.usage_changed:
            self.status.usage = self.session.usage
        if summary.mode is not None:
            self.status.mode = summary.mode
        if any(isinstance(i, ev.RunFinished) or isinstance(i, ev.AgentFinished) and i.actor == "react" for i in items):
            self._job_reported = True
        for item in summary.other:
            if isinstance(item, JobEnded):
                await self._job_ended(item)
        self.prompt.show_busy(bool(self.session.busy))

    async def _job_ended(self, ended: JobEnded) -> None:
        reported, self._job_reported = self._job_reported, True
        if ended.error is not None:
            await self.transcript.add_line(f"✗ {ended.error}", "error")
            return
        outcome = ended.outcome
        kind = getattr(outcome, "kind", "")
        if kind == "command":
            await self.transcript.add_line(getattr(outcome, "text", ""), "muted")
        elif not getattr(outcome, "ok", True) and not reported:
            text = getattr(outcome, "text", "") or "no details"
            await self.transcript.add_line(f"{kind} {str(getattr(outcome, 'status', '')).lower()}: {text}", "warning")

    # -- input -------------------------------------------------------------------

    async def on_prompt_editor_submitted(self, event: PromptEditor.Submitted) -> None:
        event.stop()
        await self.handle_input(event.text, shown=event.shown, attachments=event.attachments)

    async def handle_input(self, text: str, *, shown: str = "", attachments: tuple[str, ...] = ()) -> None:
        """What Enter does with a line (the palette runs commands through here too)."""
        text = text.strip()
        if not text:
            return
        command = parse_slash(text)
        if command is None or command.name in ("/plan", "/team"):
            await self._submit(text, shown=shown.strip(), attachments=attachments)
        else:
            await self.run_command(command)

    def start_typing(self, text: str) -> None:
        """Put ``text`` in the prompt for the person to finish (``/plan ``)."""
        self.prompt.load_text(text)
        self.prompt.focus()

    async def _submit(self, text: str, *, echo: bool = True, shown: str = "",
                      attachments: tuple[str, ...] = ()) -> None:
        if echo:
            await self.transcript.add_user(shown or text)
        if attachments and (text.startswith(("/plan", "/team")) or self.session.approval_mode == "plan"):
            await self.transcript.add_line("attached files go with ordinary turns; a /plan or /team run does not "
                                           "read them", "warning")
            attachments = ()
        submit = self.session.submit
        await self._start_job(lambda: submit(text, attachments) if attachments else submit(text))

    async def _start_job(self, start) -> None:
        try:
            future = start()
        except Exception as exc:  # SessionBusy and friends: say so, stay usable
            await self.transcript.add_line(str(exc), "warning")
            return
        self._job_reported = False
        self.prompt.show_busy(True)
        pump = self.app.pump
        future.add_done_callback(lambda done: pump.put(JobEnded.from_future(done)))

    async def run_command(self, command: SlashCommand) -> None:
        t = self.transcript
        match command.name:
            case "/mode":
                await self._set_mode(command.argument)
            case "/theme":
                if not command.argument:
                    await t.add_line("themes: " + ", ".join(self.app.theme_names()), "info")
                elif problem := self.app.switch_theme(command.argument):
                    await t.add_line(problem, "error")
            case "/model":
                await self._set_model(command.argument)
            case "/clear":
                await t.clear()
                await self._submit("/clear", echo=False)
            case "/permissions":
                self.app.push_screen(PermissionsScreen(self.session))
            case "/help":
                await t.add_line(help_text(), "info")
            case "/quit":
                self.app.exit()
            case _:
                await t.add_line(f"unknown command {command.name}: /help lists the commands", "error")

    async def _set_model(self, name: str) -> None:
        if not name:
            await self.transcript.add_line(f"model: {self.session.model_label} (/model NAME switches)", "info")
            return
        try:
            label = self.session.set_model(name)
        except Exception as exc:  # SessionBusy / ValueError: say so, stay usable
            await self.transcript.add_line(str(exc), "warning")
            return
        self.status.model_label = label
        self.status.price = session_price(self.session)
        await self.transcript.add_line(f"model: {label}", "info")

    async def _set_mode(self, name: str) -> None:
        name = name.lower()
        if name not in MODES:
            await self.transcript.add_line(f"unknown mode {name!r}: choose one of {', '.join(MODES)}", "error")
            return
        self.session.approval_mode = name
        self.status.mode = name

    def argument_choices(self, command: str) -> list[str]:
        if command == "/mode":
            return list(MODES)
        if command == "/theme":
            return self.app.theme_names()
        return []

    # -- actions -----------------------------------------------------------------

    def action_cycle_mode(self) -> None:
        self.status.mode = self.session.cycle_mode()

    def action_cancel_turn(self) -> None:
        if self.session.busy:
            self.session.cancel()
            self.notify("cancelling…", timeout=2)

