"""The Textual app: wiring only. It owns the event pump and drains it once
per frame into every screen that paints (opening a run screen where a run
starts), shows approval requests one at a time, loads and remembers themes,
and binds the app-wide keys (Ctrl+C interrupts, then quits; F1 helps).
What the screens show lives in them."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import time
from pathlib import Path
from collections import deque
from typing import TYPE_CHECKING, Any, Sequence

from textual.app import App
from textual.binding import Binding

from paicli_tui.session.shutdown import exit_code_for, signal_name
from paicli_tui.session.starting import StartingSession
from paicli_tui.policy.approval import ApprovalAnswer, Decision
from paicli_tui.ui.bridge.approver import ApprovalPrompt, UiApprover, resolve
from paicli_tui.ui.bridge.conflict_resolver import ConflictPrompt, UiConflictResolver
from paicli_tui.ui.run.run_screens import RunScreens
from paicli_tui.ui.conversation.main_screen import MainScreen
from paicli_tui.ui import startup_gc
from paicli_tui.ui.themes import DEFAULT_DARK, VARIABLE_DEFAULTS, load_themes

if TYPE_CHECKING:
    from paicli_tui.plan.model import Plan
    from paicli_tui.session.port import SessionPort

log = logging.getLogger(__name__)

#: Least seconds between two drains of the event pump (P-7.6).
FRAME_SECONDS = 1 / 30
#: Seconds the first Ctrl+C (with nothing running) stays armed.
QUIT_WINDOW_SECONDS = 2.0


def warm_first_use() -> None:
    """Import every screen's module in the idle time after start-up (off the
    UI thread, which only waits if it asks for one at that moment): F1
    reads every screen's keys, and /memory, /mcp, the palette's commands
    would otherwise pay their imports on the first key."""
    from paicli_tui.ui.help.key_table import import_ui_modules

    try:
        import_ui_modules()
    except Exception:  # noqa: BLE001 - only a warm-up: the first use imports (and reports) it again
        log.debug("warming the screens failed", exc_info=True)


class PaicliApp(App[None]):
    # Absolute, so subclasses (tests) defined elsewhere still find it.
    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "paicli"

    BINDINGS = [
        # Priority: Input and Screen bind ctrl+c to copy.
        Binding("ctrl+c", "interrupt", "Copy the selection; else cancel the running turn; else, twice, quit",
                show=False, priority=True, id="app.quit"),
        Binding("f1", "show_help", "Help: every key of every screen", show=False, id="app.help"),
        # Priority: the Keys panel (Ctrl+P → Keys) is a docked widget, not a screen, so the
        # screen's own Esc would otherwise act behind it.
        Binding("escape", "hide_keys_panel", "Close the keys panel", show=False, priority=True,
                id="app.hide_keys_panel"),
    ]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "hide_keys_panel":
            return bool(self.screen.query("HelpPanel"))
        return True

    def action_hide_keys_panel(self) -> None:
        self.action_hide_help_panel()

    def __init__(
        self,
        session: "SessionPort",
        *,
        approver: UiApprover | None = None,
        theme: str | None = None,
        remember_theme: bool = True,
        plan: "Plan | None" = None,
        earlier: "Sequence[tuple[str, str]]" = (),
    ) -> None:
        """``plan``: a plan (from ``--plan-file``) to start once the app is up;
        ``earlier``: a continued conversation's turns, shown first."""
        super().__init__()
        self.session = session
        self.approver = approver or UiApprover()
        self.pump = self.approver.pump
        # A merge conflict waits for the person on the run screen; a replayed
        # session has no isolation to resolve.
        self.conflicts = UiConflictResolver(self.pump)
        self._unsubscribe = self._listen_to(session)
        self._wanted_theme = theme or session.settings.theme or DEFAULT_DARK
        self._remember_theme = remember_theme
        self._remembered_theme = ""
        self._own_themes: list[str] = []
        self._approvals: deque[ApprovalPrompt] = deque()
        self._asking: ApprovalPrompt | None = None
        self._quit_armed = False
        self._cancel_sent = False
        self._signal_loop: asyncio.AbstractEventLoop | None = None
        self._pending_signal: int | None = None
        self._paint_lock = asyncio.Lock()
        self._frame_timer: Any = None
        self._ui_context: contextvars.Context | None = None
        self._last_frame = 0.0  # when the last frame's drain started: frames are paced from it
        self._frame_ended = 0.0
        self._unmounted = False
        self._gc_timer: Any = None
        self._deep_gc_timer: Any = None
        self._last_display = 0.0
        #: Seconds without a frame before the held full collection runs.
        self.quiet_seconds = startup_gc.QUIET_SECONDS
        #: Seconds with nothing drawn before the deep collection.
        self.deep_quiet_seconds = startup_gc.DEEP_QUIET_S
        #: Why the session could not start (the app then exits with 2).
        self.start_error = ""
        self.main_screen = MainScreen(session, plan=plan, earlier=earlier)
        self.run_screens = RunScreens(self)

    def _listen_to(self, session: "SessionPort"):
        if session.isolation is not None:
            session.isolation.resolver = self.conflicts
        return session.bus.subscribe(self.pump.put)

    def start_session(self) -> None:
        """After the main screen's first frame (it calls this): build the
        real session in a thread (its imports, ledger, knowledge and MCP
        servers take most of a second) while the screen already takes keys.
        Started any earlier, the thread's imports share the interpreter with
        the first frame and delay it."""
        if not isinstance(self.session, StartingSession):
            return
        starting = self.session

        def build() -> None:
            try:
                session = starting.start()
            except Exception as exc:  # bad settings the loader let through: one line, exit 2
                self._call_from_thread_or(lambda: self._session_failed(exc), None)
                return
            self._call_from_thread_or(lambda: self._adopt_session(session), session)
            warm_first_use()

        threading.Thread(target=build, name="paicli-session-start", daemon=True).start()

    def _call_from_thread_or(self, callback, orphan: "SessionPort | None") -> None:
        try:
            self.call_from_thread(callback)
        except RuntimeError:  # the app quit while the session started: nobody else will close it
            if orphan is not None:
                orphan.close(1.0)

    def _adopt_session(self, session: "SessionPort") -> None:
        starting, self.session = self.session, session
        self._unsubscribe()
        self._unsubscribe = self._listen_to(session)
        if session.approval_mode != starting.approval_mode:  # Shift+Tab pressed while it started
            session.approval_mode = starting.approval_mode
        self.main_screen.session_ready(session)

    def _session_failed(self, exc: Exception) -> None:
        self.start_error = str(exc)
        self.exit(return_code=2)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

    # -- lifecycle ---------------------------------------------------------------

    def on_mount(self) -> None:
        self._signal_loop = asyncio.get_running_loop()
        if self._pending_signal is not None:  # arrived before the loop ran
            self._exit_on_signal(self._pending_signal)
        self._install_themes()
        # Pushed rather than returned by get_default_screen, which would skip
        # loading the screen's own stylesheet.
        self.push_screen(self.main_screen)
        # No polling: the pump wakes the app when the first event arrives
        # after a drain, so an idle app costs nothing.
        # The waker runs the scheduling in the app's context (Textual's
        # timers need the active app), taken here, on the UI thread.
        self._ui_context = contextvars.copy_context()
        self.pump.set_waker(self._wake_from_thread)
        self._schedule_frame()
        self.call_after_refresh(self._freeze_startup_objects)

    def _freeze_startup_objects(self) -> None:
        # A full garbage collection walks every object: with the app, its
        # widgets and the imported libraries that was a 60–70 ms stall in
        # the middle of streaming (bench/ui_stream.py). What exists once the
        # app is up lives as long as the app; leave it out of those walks.
        if self._unmounted:
            # Queued before the app closed early: holding now would outlive the
            # app and stop full collections for the rest of the process.
            startup_gc.resume()
            return
        startup_gc.freeze_and_resume()
        startup_gc.hold_full_collections()

    async def on_unmount(self) -> None:
        self._unmounted = True
        startup_gc.resume()
        startup_gc.release_full_collections()
        self.pump.set_waker(None)
        self._unsubscribe()
        self.approver.close()
        self.conflicts.close()

    # -- SIGTERM / SIGHUP (issue 12) ------------------------------------------------

    def request_signal_exit(self, signum: int) -> None:
        """Called by the SIGTERM/SIGHUP handler (paicli_tui.session.shutdown). Python
        runs it in the main thread, in the middle of whatever the event loop
        was doing: only hand the work to the loop, never touch state here."""
        loop = self._signal_loop
        if loop is None or loop.is_closed():
            self._pending_signal = signum
            return
        loop.call_soon_threadsafe(self._exit_on_signal, signum)

    def _exit_on_signal(self, signum: int) -> None:
        """As Esc then quit: cancel the run (the engine records its outcome
        while the session closes), leave with 128 + the signal number."""
        self.session.cancel(f"{signal_name(signum)} received")
        self.exit(return_code=exit_code_for(signum))

    # -- themes (P-7.5) ------------------------------------------------------------

    def _install_themes(self) -> None:
        themes, problems = load_themes()
        for theme in themes:
            self.register_theme(theme)
        for problem in problems:
            self.notify(f"{problem} (skipped)", severity="warning", timeout=8, markup=False)
        self._own_themes = [theme.name for theme in themes]
        fallback = DEFAULT_DARK if DEFAULT_DARK in self._own_themes else "textual-dark"
        wanted = self._wanted_theme
        if wanted not in self.available_themes:
            self.notify(f"theme {wanted!r} not found; using {fallback}", severity="warning", markup=False)
            wanted = fallback
        self.theme = wanted
        self._remembered_theme = wanted
        self.theme_changed_signal.subscribe(self, self._theme_changed)

    def theme_names(self) -> list[str]:
        """paicli's and the person's themes first, then Textual's own."""
        own = [name for name in self._own_themes if name in self.available_themes]
        return own + sorted(name for name in self.available_themes if name not in own)

    def theme_listing(self) -> str:
        own = [name for name in self._own_themes if name in self.available_themes]
        textual = sorted(name for name in self.available_themes if name not in own)
        return f"themes: {', '.join(own)} · Textual's: {', '.join(textual)} (/theme NAME switches; Ctrl+P too)"

    def switch_theme(self, name: str) -> str | None:
        """Switch to a theme; returns a one-line problem, or None."""
        if name not in self.available_themes:
            return f"unknown theme {name!r}: /theme lists them ({', '.join(self.theme_names()[:4])}, …)"
        self.theme = name
        return None

    def _theme_changed(self, theme) -> None:
        if theme.name == self._remembered_theme or not self._remember_theme:
            return
        self._remembered_theme = theme.name
        from paicli_tui.config.loading import remember  # pydantic: not before the first frame

        try:
            remember("theme", theme.name)
        except OSError as exc:
            self.notify(f"could not remember the theme: {exc}", severity="warning", markup=False)

    # -- painting (P-7.6) ------------------------------------------------------------

    def _wake_from_thread(self) -> None:
        loop = self._signal_loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._schedule_frame, context=self._ui_context)
        except RuntimeError:  # the loop closed meanwhile: the app is gone
            pass

    def _schedule_frame(self) -> None:
        """Drain the pump one frame after the last drain (at once if that is
        past): bursts are painted at most FRAME_SECONDS apart."""
        if self._frame_timer is not None or not len(self.pump):
            return
        # (A Timer needs a positive delay.)
        delay = max(0.001, self._last_frame + FRAME_SECONDS - time.monotonic())
        self._frame_timer = self.set_timer(delay, self._frame_due, name="event-pump")

    async def _frame_due(self) -> None:
        self._frame_timer = None
        await self.drain_events()
        # Whatever arrived while painting already woke us; this catches an
        # item put between the drain and the timer being cleared.
        self._schedule_frame()
        self._collect_later()

    def _collect_later(self) -> None:
        """The full collection waits for a quiet moment (startup_gc.py):
        one timer at most, none once it ran, so an idle app stays idle."""
        if startup_gc.full_overdue():
            startup_gc.collect_full()
        elif startup_gc.holding() and self._gc_timer is None:
            self._gc_timer = self.set_timer(self.quiet_seconds, self._collect_if_quiet, name="quiet-gc")

    def _collect_if_quiet(self) -> None:
        self._gc_timer = None
        busy_for = self._frame_ended + self.quiet_seconds - time.monotonic()
        if busy_for > 0:  # frames went on meanwhile: wait for the quiet after them
            self._gc_timer = self.set_timer(busy_for, self._collect_if_quiet, name="quiet-gc")
            return
        if startup_gc.deep_overdue():
            startup_gc.collect_deep()
            return
        startup_gc.collect_full()
        if self._deep_gc_timer is None and startup_gc.deep_worth_it():
            self._deep_gc_timer = self.set_timer(self.deep_quiet_seconds, self._collect_deep_if_idle, name="deep-gc")

    def _collect_deep_if_idle(self) -> None:
        """The walk of every object waits until nothing has been drawn for
        deep_quiet_seconds (no key, no stream): the person is away."""
        self._deep_gc_timer = None
        busy_for = max(self._frame_ended, self._last_display) + self.deep_quiet_seconds - time.monotonic()
        if busy_for > 0:
            self._deep_gc_timer = self.set_timer(busy_for, self._collect_deep_if_idle, name="deep-gc")
        elif startup_gc.holding():
            startup_gc.collect_deep()

    def post_display_hook(self) -> None:
        self._last_display = time.monotonic()

    async def drain_events(self) -> None:
        """Paint everything queued since the last frame, in one pass."""
        async with self._paint_lock:
            self._last_frame = time.monotonic()
            await self._paint_frame()
            # Quiet is counted from the frame's end: a collection due during
            # a long frame would otherwise run the moment it ended.
            self._frame_ended = time.monotonic()

    async def _paint_frame(self) -> None:
        try:
            items = self.pump.drain()
            events = []
            for item in items:
                if isinstance(item, ApprovalPrompt):
                    self._approvals.append(item)
                elif isinstance(item, ConflictPrompt):
                    self._show_conflict(item)
                else:
                    events.append(item)
            await self.main_screen.paint(events)
            # Every other screen that paints (run, review) gets them too,
            # even while a dialog covers it.
            await self.run_screens.paint(events, skip=self.main_screen)
            self._show_next_approval()
        except Exception as exc:  # a painting bug must not take the session down
            log.exception("painting failed")
            self.notify(f"display error: {exc}", severity="error", markup=False)

    # -- approvals (P-7.4) ------------------------------------------------------------

    def _show_next_approval(self) -> None:
        while self._asking is None and self._approvals:
            prompt = self._approvals.popleft()
            if prompt.answer.done():  # denied meanwhile (cancel, closing)
                continue
            from paicli_tui.ui.approval.approval import ApprovalScreen

            self._asking = prompt
            screen = ApprovalScreen(prompt.request, queued=len(self._approvals))
            self.push_screen(screen, callback=self._approval_answered)

    def _approval_answered(self, answer: ApprovalAnswer | None) -> None:
        prompt, self._asking = self._asking, None
        if prompt is not None:
            resolve(prompt.answer, answer or Decision.NO)
        self._show_next_approval()

    def _show_conflict(self, prompt: ConflictPrompt) -> None:
        from paicli_tui.ui.run.conflict_screen import ConflictScreen
        from paicli_tui.workspace.resolver import Decision

        if not prompt.answer.done():
            self.push_screen(ConflictScreen(prompt.conflict),
                             callback=lambda decision: resolve(prompt.answer, decision or Decision("fail")))

    # -- keys ------------------------------------------------------------------------

    def action_interrupt(self) -> None:
        """Ctrl+C: copy what the mouse selected; else interrupt the running
        turn (as Esc does); with nothing running, or after the turn was
        interrupted, twice within QUIT_WINDOW_SECONDS quits. A replay has no
        turn to interrupt: twice quits at once."""
        selected = self.screen.get_selected_text()
        if selected:
            self.copy_to_clipboard(selected)
            self.screen.clear_selection()
            self.notify(f"copied the selection ({len(selected):,} characters)", timeout=3, markup=False)
            return
        if self.session.busy and not self._cancel_sent and not getattr(self.session, "is_replay", False):
            # Once per turn: a turn that does not stop (a dialog waiting on
            # the person, a stuck call) must still let the person quit.
            self._cancel_sent = True
            self._quit_armed = False
            self.main_screen.cancel_turn()
            return
        if self._quit_armed:
            self.exit()
            return
        self._quit_armed = True
        self.notify("Press Ctrl+C again to quit", timeout=QUIT_WINDOW_SECONDS, markup=False)
        self.set_timer(QUIT_WINDOW_SECONDS, self._disarm_quit)

    def _disarm_quit(self) -> None:
        self._quit_armed = False

    def turn_started(self) -> None:
        """A new job began: the next Ctrl+C cancels it again."""
        self._cancel_sent = False

    def action_show_help(self) -> None:
        from paicli_tui.ui.help.help_screen import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())
