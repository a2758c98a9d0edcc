"""The main screen (P-7.1): transcript, queued inputs, the composer (command
menu and prompt editor), status bar.

It turns what the person types into session calls and paints what the app
drains from the event pump. It never waits on the engine: session calls
return at once and everything they cause arrives later as events. Input
submitted while a turn runs is queued and sent when it ends. A plan given
on the command line (``--plan-file``) is started once it is mounted.

Everything Enter sends, and every command the palette runs, goes through
``submit_text``. Focus order: Tab goes input → transcript → input (with the
menu open, Tab accepts its row first); Esc from anywhere comes back to the
input. The transcript's scroll keys also work from the input.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from textual import events
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen

from paicli_tui import events as ev
from paicli_tui.config.presets import MODES
from paicli_tui.llm.types import Usage
from paicli_tui.plan.model import id_prefix_of
from paicli_tui.present.figures import session_price
from paicli_tui.session.starting import STARTING_HINT, StartingSession
from paicli_tui.session.port import (
    AgentTurn, ClearConversation, PlanRun, TeamRun, command_for_input, command_text,
)
from paicli_tui.ui.bridge.pump_items import JobEnded
from paicli_tui.ui.conversation.command_provider import SlashCommandProvider
from paicli_tui.ui.conversation.command_runner import JOB_COMMANDS, CommandRunner
from paicli_tui.ui.conversation.composer import Composer
from paicli_tui.ui.conversation.mode_words import mode_line, placeholder_for
from paicli_tui.ui.conversation.mcp_progress import McpProgress
from paicli_tui.ui.conversation.new_below import NewBelow
from paicli_tui.ui.conversation.painter import TranscriptPainter
from paicli_tui.ui.conversation.prompt_editor import PromptEditor
from paicli_tui.ui.conversation.queued_inputs import QueuedInput, QueuedInputs
from paicli_tui.ui.conversation.slash_commands import parse_slash
from paicli_tui.ui.conversation.status_bar import StatusBar, short_path
from paicli_tui.ui.conversation.transcript import Transcript

if TYPE_CHECKING:
    from paicli_tui.plan.model import Plan
    from paicli_tui.session.port import SessionPort
    from paicli_tui.ui.app import PaicliApp


class MainScreen(Screen):
    CSS_PATH = Path(__file__).with_name("main_screen.tcss")
    #: Keys typed while the app starts go to the input, not the transcript.
    AUTO_FOCUS = "#prompt"
    COMMANDS = {SlashCommandProvider}

    BINDINGS = [
        # Screen binds shift+tab to focus-previous; the main screen owns it.
        Binding("shift+tab", "cycle_mode", "Cycle the mode: auto → plan → ask", show=False, id="main.cycle_mode"),
        Binding("escape", "escape", "Back to the input; there, cancel the running turn", show=False,
                id="main.cancel_turn"),
        # Priority: the input would take them for its own cursor.
        Binding("pageup,shift+pageup", "scroll_transcript('page_up')", "Scroll the transcript up a page",
                show=False, priority=True, id="main.page_up"),
        Binding("pagedown,shift+pagedown", "scroll_transcript('page_down')", "Scroll the transcript down a page",
                show=False, priority=True, id="main.page_down"),
        Binding("ctrl+home", "scroll_transcript('home')", "Transcript: to the top", show=False, priority=True,
                id="main.transcript_home"),
        Binding("ctrl+end", "scroll_transcript('end')", "Transcript: to the end (follows new text again)",
                show=False, priority=True, id="main.transcript_end"),
        Binding("up", "edit_queued", "Edit the last queued input (on an empty input)", show=False, priority=True,
                id="main.edit_queued"),
    ]

    app: "PaicliApp"

    def __init__(self, session: "SessionPort", *, plan: "Plan | None" = None,
                 earlier: "Sequence[tuple[str, str]]" = ()) -> None:
        super().__init__(id="main")
        self.session = session
        self.plan = plan
        #: A continued conversation's turns (``user`` | ``answer`` | ``outcome``, text).
        self.earlier = list(earlier)
        self.painter: TranscriptPainter | None = None
        self.commands = CommandRunner(self)
        self._early: list[Any] = []
        self._told_read_only = False
        #: Provider problems the transcript already states in full (with the fix).
        self._problems_told: set[str] = set()
        # Whether the running job already told the person how it ended.
        self._job_reported = True
        # Usage counted before the last /clear: the status shows this conversation's.
        self._usage_before = Usage()
        self._echoed_mode = session.approval_mode
        self._busy_shown: bool | None = None

    def compose(self) -> ComposeResult:
        yield Transcript(id="transcript")
        yield NewBelow(id="new-below")
        with Vertical(id="bottom"):
            yield McpProgress(id="mcp-progress")
            yield QueuedInputs(id="queued")
            yield Composer(self.argument_choices, self.session.workspace, id="composer",
                           placeholder=self.placeholder_text(), resources=self.mcp_resources)
            yield StatusBar(id="status")

    def mcp_resources(self) -> list[str]:
        """``server:uri`` of the resources of the MCP servers that are ready."""
        mcp = getattr(self.session, "mcp", None)
        return mcp.resource_uris() if mcp is not None else []

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
    def queued(self) -> QueuedInputs:
        return self.query_one(QueuedInputs)

    @property
    def ready(self) -> bool:
        """Mounted and not being torn down: safe to paint."""
        return self.painter is not None and self.is_attached and bool(self.query(StatusBar))

    async def on_mount(self) -> None:
        new_below = self.query_one(NewBelow)
        self.watch(self.transcript, "new_below", lambda shown: setattr(new_below, "display", shown))
        self.painter = TranscriptPainter(self.transcript, replay=bool(self.read_only_reason))
        status = self.status
        status.mode = self.session.approval_mode
        status.model_label = self.session.model_label
        status.price = session_price(self.session)
        status.usage = self.conversation_usage()
        status.workspace = str(self.session.workspace)
        if self.read_only_reason:
            # A replay: no goal to type, no key or model to complain about.
            status.show_replay()
            self.prompt.read_only = True
            await self.transcript.add_line(self.session.intro, "muted")
            problems = list(self.session.warnings)
        else:
            await self.transcript.add_line(
                f"paicli · {self.session.model_label} · {short_path(self.session.workspace)} — "
                "type a goal · / commands · @ files · shift+enter new line · F1 help",
                "muted",
            )
            await self._show_earlier()
            problem = self.session.settings.resolved().problem()
            problems = [problem] if problem else []
            problems += self.session.warnings
        for line in problems:
            # Said up front rather than after a failed request; the app stays usable.
            await self.transcript.add_line(line, "warning")
            self._problems_told.add(line)
        self.prompt.focus()
        self._seed_mcp_progress()
        # A screen's after-refresh callbacks run once it has been drawn.
        self.call_after_refresh(self.app.start_session)
        if self.plan is not None and not self.starting:
            await self.start_plan(self.plan)

    @property
    def starting(self) -> bool:
        """The session is still being built (the first screen came first)."""
        return isinstance(self.session, StartingSession)

    def session_ready(self, session: "SessionPort") -> None:
        """The real session replaces the stand-in: say what it found, then
        send what was typed meanwhile."""
        self.session = session
        self.run_worker(self._session_started(), group="session-start")

    async def _session_started(self) -> None:
        if not self.ready:  # not mounted yet: on_mount reads the real session
            return
        status = self.status
        status.mode = self.session.approval_mode
        status.model_label = self.session.model_label
        status.price = session_price(self.session)
        self.prompt.placeholder = self.placeholder_text()
        for line in self.session.warnings:
            await self.transcript.add_line(line, "warning")
        self._seed_mcp_progress()
        if self.plan is not None:
            await self.start_plan(self.plan)
        else:
            await self._send_next_queued()

    def _seed_mcp_progress(self) -> None:
        if self.session.mcp is not None:
            self.query_one(McpProgress).seed((s.name, s.state) for s in self.session.mcp.statuses())

    async def _show_earlier(self) -> None:
        """The turns of the conversation this session continues."""
        if not self.earlier:
            return
        for kind, text in self.earlier:
            if kind == "user":
                await self.transcript.add_user(text)
            else:
                await self.transcript.add_answer(text, title="answer" if kind == "answer" else "run")
        turns = sum(1 for kind, _ in self.earlier if kind == "user")
        await self.transcript.add_line(f"continuing session {self.session.session_id}: {turns} earlier "
                                       f"turn{'s' if turns != 1 else ''} above; the conversation goes on", "muted")

    async def start_plan(self, plan: "Plan") -> None:
        """Run a ready plan (a plan file): /team for ``step_`` ids, else /plan;
        the review screen opens on it as it would after planning."""
        command = TeamRun(plan.goal, plan) if id_prefix_of(plan) == "step" else PlanRun(plan.goal, plan)
        await self.transcript.add_user(command_text(command) + "  (plan file)")
        await self._start_job(lambda: self.session.submit(command))

    # -- what the person sees besides the transcript -----------------------------

    def conversation_usage(self) -> Usage:
        return self.session.usage - self._usage_before

    def placeholder_text(self) -> str:
        """What Enter will do now: the hook the input's placeholder is set through."""
        if self.read_only_reason:
            return f"{self.session.model_label} — read-only: nothing you type is sent · Ctrl+C twice quits"
        if self.starting:
            return STARTING_HINT
        return placeholder_for(self.session.approval_mode, bool(self.session.busy))

    def show_busy(self) -> None:
        busy = bool(self.session.busy) and not self.read_only_reason  # a replay playing is not a turn to cancel
        self.prompt.show_busy(busy)
        if busy != self._busy_shown:
            self._busy_shown = busy
            self.prompt.placeholder = self.placeholder_text()

    # -- painting (called by the app once per frame) ----------------------------

    async def paint(self, items: list[Any]) -> None:
        if not self.ready:  # not mounted yet (or closing): keep them for later
            self._early.extend(items)
            return
        if self._early:
            items, self._early = [*self._early, *items], []
        for item in items:
            if isinstance(item, ev.McpServerChanged):
                self.query_one(McpProgress).server_changed(item.server, item.state)
        summary = await self.painter.paint(items)
        if summary.prices and self.status.price is None:
            # A replay has no configured price: the recorded run carries it.
            self.status.price = next(iter(summary.prices.values()))
            self.status.refresh_usage()
        if summary.usage_changed:
            self.status.usage = self.conversation_usage()
        if summary.mode is not None:
            await self._mode_changed(summary.mode)
        if any(isinstance(i, ev.RunFinished) or isinstance(i, ev.AgentFinished) and i.actor == "react" for i in items):
            self._job_reported = True
        for item in summary.other:
            if isinstance(item, JobEnded):
                await self._job_ended(item)
        self.show_busy()

    async def _mode_changed(self, mode: str) -> None:
        self.status.mode = mode
        if mode != self._echoed_mode:
            self._echoed_mode = mode
            await self.transcript.add_line(mode_line(mode), "muted")
        self.prompt.placeholder = self.placeholder_text()

    async def _job_ended(self, ended: JobEnded) -> None:
        reported, self._job_reported = self._job_reported, True
        if ended.error is not None:
            await self.transcript.add_line(f"✗ {ended.error}", "error")
        elif (outcome := ended.outcome) is not None:
            status = outcome.status.lower()
            if outcome.kind == "command":
                await self.transcript.add_line(outcome.text, "muted")
            elif status == "cancelled" and not reported:
                await self.transcript.add_line(outcome.text or "cancelled", "muted")
            elif not outcome.ok and not reported:
                await self.transcript.add_line(f"{outcome.kind} {status}: {outcome.text or 'no details'}", "warning")
        await self._send_next_queued()

    # -- input -------------------------------------------------------------------

    async def on_prompt_editor_submitted(self, event: PromptEditor.Submitted) -> None:
        event.stop()
        await self.submit_text(event.text, shown=event.shown, attachments=event.attachments, pastes=event.pastes)

    async def submit_text(self, text: str, *, shown: str = "", attachments: tuple[str, ...] = (),
                          pastes: tuple[tuple[str, str], ...] = ()) -> None:
        """What Enter does with the editor's text (and what the palette's
        commands go through): run a command of the screen's own at once,
        queue the rest while a turn runs, else send. ``shown`` is the text
        as the editor showed it (long pastes collapsed to their ``pastes``
        tokens), ``attachments`` the files its ``@`` mentions attach."""
        text = text.strip()
        if not text:
            skip_wait = getattr(self.session, "skip_wait", None)
            if self.read_only_reason and skip_wait is not None:
                skip_wait()  # Enter in a replay plays on past a recorded pause
            return
        command = parse_slash(text)
        if self.read_only_reason and not (command is not None and command.name not in JOB_COMMANDS):
            # A replay sends nothing and queues nothing; its own commands (/help, /copy) still work.
            self.prompt.clear()
            if not self._told_read_only:
                self._told_read_only = True
                await self.transcript.add_line(self.read_only_reason, "warning")
            return
        if command is not None and command.name not in JOB_COMMANDS:
            await self.commands.run(command)
        elif self.session.busy or self.queued.items or self.starting:
            self.queued.add(QueuedInput(text, shown.strip(), tuple(attachments), tuple(pastes)))
        else:
            await self._submit(text, shown=shown.strip(), attachments=tuple(attachments))

    async def _submit(self, text: str, *, shown: str = "", attachments: tuple[str, ...] = ()) -> bool:
        command = command_for_input(text, self.session.approval_mode, attachments)
        if isinstance(command, ClearConversation):
            await self.transcript.clear()
            self._problems_told.clear()
            self._usage_before = self.session.usage
            self.status.usage = self.conversation_usage()
            return await self._start_job(lambda: self.session.submit(command))
        problem = getattr(self.session, "provider_problem", lambda: None)()
        if problem:
            # Refused at once, with the fix; the text stays for after the fix.
            await self.transcript.add_line(self._refusal(problem), "error")
            self.prompt.put_back(shown or text, (), attachments)
            return False
        await self.transcript.add_user(shown or text)
        if attachments and not isinstance(command, AgentTurn):
            await self.transcript.add_line("attached files go with ordinary turns; a /plan or /team run does not "
                                           "read them", "warning")
        return await self._start_job(lambda: self.session.submit(command))

    def _refusal(self, problem: str) -> str:
        """The fix is written out once; a refusal after that points at it."""
        told = problem.removeprefix("Not sent: ")
        if told not in self._problems_told:
            self._problems_told.add(told)
            return problem
        return f"Not sent: {told.split(':', 1)[0]} (the fix is above)"

    def start_typing(self, text: str) -> None:
        """Put ``text`` in the prompt for the person to finish (``/plan ``)."""
        self.prompt.load_text(text)
        self.prompt.focus()

    async def _start_job(self, start) -> bool:
        try:
            future = start()
        except Exception as exc:  # SessionBusy and friends: say so, stay usable
            await self.transcript.add_line(str(exc), "warning")
            return False
        self._job_reported = False
        self.app.turn_started()
        self.show_busy()
        pump = self.app.pump
        future.add_done_callback(lambda done: pump.put(JobEnded.from_future(done)))
        return True

    async def _send_next_queued(self) -> None:
        if self.session.busy:
            return
        queued = self.queued.pop_next()
        if queued is not None and not await self._submit(queued.text, shown=queued.shown,
                                                          attachments=queued.attachments):
            self._return_to_input([queued, *self.queued.take_all()])

    def _return_to_input(self, inputs: list[QueuedInput]) -> None:
        """Queued inputs back into the editor, after what is there, each as
        it was typed: long pastes still collapsed, its files still attached."""
        for queued in inputs:
            self.prompt.put_back(queued.shown or queued.text, queued.pastes, queued.attachments)
        if inputs:
            self.prompt.focus()

    def argument_choices(self, command: str) -> list[str]:
        if command == "/mode":
            return list(MODES)
        if command == "/theme":
            return self.app.theme_names()
        return []

    # -- actions -----------------------------------------------------------------

    def action_cycle_mode(self) -> None:
        self.status.mode = self.session.cycle_mode()

    def action_escape(self) -> None:
        if self.focused is not self.prompt:
            self.prompt.focus()
            return
        if self.read_only_reason:
            return  # a replay has no turn of the person's to cancel: Esc leaves it playing
        self.cancel_turn()

    def cancel_turn(self) -> bool:
        """Interrupt the running turn (Esc, Ctrl+C). What was queued is not
        sent: it goes back into the input. False when nothing runs."""
        if not self.session.busy:
            return False
        self.session.cancel()
        self.notify("cancelling…", timeout=2)
        queued = self.queued.take_all()
        if queued:
            self._return_to_input(queued)
            self.notify("the queued input is back in the input, not sent", timeout=4)
        return True

    def action_scroll_transcript(self, where: str) -> None:
        transcript = self.transcript
        match where:
            case "page_up":
                transcript.scroll_page_up(animate=False)
            case "page_down":
                transcript.scroll_page_down(animate=False)
            case "home":
                transcript.scroll_home(animate=False)
            case "end":
                transcript.follow()

    def action_edit_queued(self) -> None:
        if self.focused is not self.prompt or self.prompt.text or not self.queued.items:
            raise SkipAction()  # the editor's own Up (history, the menu, the cursor)
        self._return_to_input([self.queued.pop_last()])

    def on_key(self, event: events.Key) -> None:
        # The replay's editor is read-only, so the first character typed is where to say why.
        if self.read_only_reason and event.is_printable and not self._told_read_only:
            self._told_read_only = True
            self.run_worker(self.transcript.add_line(self.read_only_reason, "warning"))

    def on_text_area_changed(self, event: PromptEditor.Changed) -> None:
        if event.text_area is self.prompt:
            self.question_mark_opens_help(event.text_area.text)
            if self.read_only_reason and event.text_area.text and not self._told_read_only:
                self._told_read_only = True  # once: the first key says why nothing will be sent
                self.run_worker(self.transcript.add_line(self.read_only_reason, "warning"))

    @property
    def read_only_reason(self) -> str:
        """Set when the session takes no input (a replay)."""
        return self.session.read_only_reason

    def question_mark_opens_help(self, value: str) -> None:
        """A lone ``?`` typed into the empty editor opens the help. Read from
        the editor's own change, not a key binding: a binding sees a burst of
        keys before the editor has taken the earlier ones."""
        if value == "?":
            self.prompt.clear()
            self.app.action_show_help()
