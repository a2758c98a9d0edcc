"""The slash commands the main screen runs itself (everything but /plan,
/team and /clear, which are jobs for the session). Each one is echoed as
typed; one that does not open a screen also leaves one line saying what it
did, so a command never succeeds silently."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paicli_tui.config.presets import MODES
from paicli_tui.present.figures import session_price
from paicli_tui.ui.conversation.slash_commands import SlashCommand

if TYPE_CHECKING:
    from paicli_tui.ui.conversation.main_screen import MainScreen

#: Commands the session runs as a job: queued while a turn runs.
JOB_COMMANDS = frozenset({"/plan", "/team", "/clear"})


class CommandRunner:
    def __init__(self, screen: "MainScreen") -> None:
        self.screen = screen

    async def run(self, command: SlashCommand) -> None:
        screen = self.screen
        t = screen.transcript
        # The command as typed, not the keys of the screen it opens: the screen shows those itself.
        await t.add_user(f"{command.name} {command.argument}".rstrip())
        match command.name:
            case "/mode":
                await self._set_mode(command.argument)
            case "/theme":
                await self._set_theme(command.argument)
            case "/model":
                await self._set_model(command.argument)
            case "/copy":
                await self._copy_last_answer()
            case "/permissions":
                from paicli_tui.ui.approval.permissions import PermissionsScreen

                screen.app.push_screen(PermissionsScreen(screen.session))
            case "/undo":
                await self._open_undo()
            case "/resume":
                await self._open_resume()
            case "/skills":
                await self._open_skills()
            case "/mcp":
                from paicli_tui.ui.mcp.mcp_screen import McpScreen

                screen.app.push_screen(McpScreen(screen.session))
            case "/hooks":
                await self._hooks(command.argument)
            case "/save" | "/memory" | "/index" | "/search" | "/graph":
                from paicli_tui.ui.knowledge.commands import run_knowledge_command

                await run_knowledge_command(screen, command)
            case "/help":
                screen.app.action_show_help()
            case "/quit":
                screen.app.exit()
            case _:
                await t.add_line(f"unknown command {command.name}: /help lists the commands", "error")

    async def _open_resume(self) -> None:
        from paicli_tui.records.resumable import resumable_runs
        from paicli_tui.session.port import ResumeRun
        from paicli_tui.ui.resume.picker import ResumePicker

        screen = self.screen
        if screen.session.is_replay:
            await screen.transcript.add_line("a replay cannot resume a run", "warning")
            return
        if screen.session.busy:
            await screen.transcript.add_line("a run is going: /resume once it ends (Esc cancels it)", "warning")
            return
        runs = resumable_runs(screen.session.workspace, own=screen.session.session_id)
        if not runs:
            await screen.transcript.add_line("no interrupted /plan or /team run of this workspace to resume", "info")
            return

        async def chosen(choice) -> None:
            if choice is None:
                return
            how, state = choice
            await screen.transcript.add_line(f"resuming the /{state.kind} run of session {state.session} "
                                             f"({state.progress}; stopped: {state.stopped})", "info")
            await screen._start_job(lambda: screen.session.submit(ResumeRun(state, edit=how == "edit")))

        screen.app.push_screen(ResumePicker(runs), chosen)

    async def _open_undo(self) -> None:
        from paicli_tui.ui.undo.undo_screen import UndoScreen

        screen = self.screen
        checkpoints = screen.session.checkpoints
        if checkpoints is None:
            await screen.transcript.add_line("undo is not available in this session", "warning")
        elif screen.session.busy:
            await screen.transcript.add_line("a run is going: /undo once it ends (Esc cancels it)", "warning")
        else:
            screen.app.push_screen(UndoScreen(checkpoints))

    async def _open_skills(self) -> None:
        from paicli_tui.ui.skills.skills_screen import SkillsScreen

        screen = self.screen
        screen.app.push_screen(SkillsScreen(screen.session.skills(), screen.session.user_skills_dir))

    async def _hooks(self, argument: str) -> None:
        screen = self.screen
        runner = getattr(screen.session, "hooks", None)
        if runner is None:
            await screen.transcript.add_line("hooks are not available in this session", "warning")
        elif argument.lower() == "trust":
            trusted = runner.trust(remember=True)
            line = (f"trusted and remembered {len(trusted)} workspace hook(s): " + "; ".join(h.command for h in trusted)
                    if trusted else "no workspace hook is waiting for your yes")
            await screen.transcript.add_line(line, "muted")
        elif argument:
            await screen.transcript.add_line(f"usage: /hooks [trust], not /hooks {argument}", "error")
        else:
            from paicli_tui.ui.hooks.hooks_screen import HooksScreen

            screen.app.push_screen(HooksScreen(runner))

    async def _set_mode(self, name: str) -> None:
        name = name.lower()
        if name not in MODES:
            await self.screen.transcript.add_line(f"unknown mode {name!r}: choose one of {', '.join(MODES)}", "error")
            return
        if name == self.screen.session.approval_mode:
            from paicli_tui.ui.conversation.mode_words import mode_line

            await self.screen.transcript.add_line(mode_line(name) + " (already)", "muted")
            return
        # The session's mode_changed event brings the echo line and the placeholder.
        self.screen.session.approval_mode = name
        self.screen.status.mode = name

    async def _set_theme(self, name: str) -> None:
        app, t = self.screen.app, self.screen.transcript
        if not name:
            await t.add_line(app.theme_listing(), "info")
        elif problem := app.switch_theme(name):
            await t.add_line(problem, "error")
        else:
            await t.add_line(f"theme: {name} (remembered)", "muted")

    async def _set_model(self, name: str) -> None:
        screen = self.screen
        if not name:
            await screen.transcript.add_line(f"model: {screen.session.model_label} (/model NAME switches)", "info")
            for line in _server_lines(screen.session):
                await screen.transcript.add_line(line, "muted")
            return
        try:
            label = screen.session.set_model(name)
        except Exception as exc:  # SessionBusy / ValueError: say so, stay usable
            await screen.transcript.add_line(str(exc), "warning")
            return
        screen.status.model_label = label
        screen.status.price = session_price(screen.session)
        screen.status.refresh_usage()
        await screen.transcript.add_line(f"model: {label}", "muted")

    async def _copy_last_answer(self) -> None:
        screen = self.screen
        answer = screen.painter.last_answer if screen.painter is not None else ""
        if not answer:
            await screen.transcript.add_line("nothing to copy yet: no answer in this conversation", "muted")
            return
        screen.app.copy_to_clipboard(answer)
        await screen.transcript.add_line(f"copied the last answer ({len(answer):,} characters)", "muted")


def _server_lines(session) -> list[str]:
    """What the probe learnt about a local model server (nothing before the
    first call, or for a remote provider)."""
    from paicli_tui.llm.server_probe import known
    from paicli_tui.present.server_text import server_lines

    settings = getattr(session, "settings", None)
    if settings is None:
        return []
    info = known(settings.resolved().base_url)
    return server_lines(info, settings) if info is not None else []
