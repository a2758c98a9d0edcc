"""`paicli` with no command: the full-screen app in the workspace.

Bad configuration or a bad ``--plan-file`` is reported as one line (exit 2)
before the screen opens; Textual is imported only after that. Settings
exactly as they passed validation before are validated again after the
first frame, off the UI thread (config/preview.py): pydantic is not
imported before it.

SIGTERM and SIGHUP cancel the run as Esc does and close the app: the ledger
gets ``run_cancelled`` and ``run_outcome``, every command process group is
killed, and the exit code is 143 (SIGTERM) or 129 (SIGHUP). A second signal,
or the run not stopping within CANCEL_GRACE_S, exits at once (see
paicli_tui/session/shutdown.py). Textual's Linux driver handles neither signal."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from paicli_tui.commands.common import (
    CommandError, fail, settings_from_args, settings_overrides, workspace_from_args,
)
from paicli_tui.commands import typeahead
from paicli_tui.config import secret_store
from paicli_tui.config.paths import ConfigError
from paicli_tui.config.preview import SettingsPreview, read_preview, remember_checked
from paicli_tui.session.shutdown import CANCEL_GRACE_S, SignalShutdown


def main(args: argparse.Namespace) -> int:
    try:
        preview = read_preview(settings_overrides(args))
        settings = None
        if preview is None or not preview.checked_before:
            settings = _validated(args, preview)
        else:
            # Before any thread starts (secret_store.py); validation repeats it.
            secret_store.capture(preview.resolved().api_key_env)
    except ConfigError as exc:
        return fail(str(exc), 2)
    try:
        workspace = workspace_from_args(args)
    except CommandError as exc:
        return fail(str(exc), exc.code)
    plan = None
    if getattr(args, "plan_file", None):
        from paicli_tui.plan.files import PlanFileError, load_plan_file

        try:
            plan = load_plan_file(Path(args.plan_file).expanduser())
        except PlanFileError as exc:
            return fail(str(exc), 2)

    from paicli_tui.session.starting import StartingSession
    from paicli_tui.ui.app import PaicliApp
    from paicli_tui.ui.bridge.approver import UiApprover
    from paicli_tui.ui.review.plan_reviewer import UIPlanReviewer

    try:
        conversation = _continued(args, workspace)
    except CommandError as exc:
        return fail(str(exc), exc.code)
    approver = UiApprover()
    reviewer = UIPlanReviewer()
    session_id = conversation.session if conversation is not None else None
    executor = None
    # A cluster is reached, or refused in one line, before the screen opens
    # (the preview leaves any executor but the local one to validation).
    if settings is not None and settings.executor.kind != "local":
        from paicli_tui.executors import ExecutorUnavailable, open_executor

        try:
            executor = open_executor(settings)  # [executor] in config.toml
        except ExecutorUnavailable as exc:
            return fail(str(exc), 2)

    def start_session():
        # Imported here, in the app's start-up thread: the first screen draws without it.
        from paicli_tui.session.live import Session

        # A ConfigError here closes the app with its one line and exit 2.
        checked = settings if settings is not None else _validated(args, preview)
        session = Session(checked, workspace, approver=approver, plan_reviewer=reviewer, session_id=session_id,
                          executor=executor)
        if conversation is not None and conversation.messages:
            session.restore_history(conversation.messages)  # compacted as any history is, once it grows
        return session

    # The session (ledger, knowledge, MCP servers) is built after the first frame.
    shown = settings if settings is not None else preview
    starting = StartingSession(shown, workspace, start_session)
    starting.session_id = session_id or ""
    app = PaicliApp(starting, approver=approver, theme=shown.theme, plan=plan,
                    earlier=conversation.turns if conversation is not None else ())
    reviewer.attach(app)
    shutdown = SignalShutdown(
        CANCEL_GRACE_S, on_signal=app.request_signal_exit, before_exit=_terminal_restorer()
    ).install()
    try:
        app.run()
    finally:
        typeahead.release()  # after Textual put back what it found: the held settings
        reviewer.close()
        approver.close()
        app.session.close(CANCEL_GRACE_S, reason=shutdown.reason if shutdown.signum else "cancelled by the user")
        if executor is not None:
            executor.close()
        shutdown.uninstall()
    if app.start_error:
        return fail(app.start_error, 2)
    if shutdown.signum is not None:
        return shutdown.exit_code
    return app.return_code or 0


def _validated(args: argparse.Namespace, preview: SettingsPreview | None):
    """The settings, validated; ConfigError in one line."""
    settings = settings_from_args(args)
    remember_checked(preview, list(type(settings).model_fields))
    return settings


def _continued(args: argparse.Namespace, workspace: Path):
    """The conversation `-c` or `--resume SESSION` continues, or None."""
    if not (getattr(args, "resume_session", None) or getattr(args, "continue_last", False)):
        return None  # before the imports: the ledger reader is not needed to start afresh
    from paicli_tui.records.conversation import last_session_of, read_conversation
    from paicli_tui.records.killed import held_by_a_process
    from paicli_tui.records.sessions import SessionNotFound, resolve_session

    if getattr(args, "resume_session", None):
        try:
            path = resolve_session(args.resume_session)
        except SessionNotFound as exc:
            raise CommandError(str(exc)) from None
    else:
        path = last_session_of(workspace)
        if path is None:
            raise CommandError(f"no earlier session of {workspace} to continue (see `paicli sessions`)", 1)
    if held_by_a_process(path):
        raise CommandError(f"session {path.stem} is open in another paicli", 1)
    conversation = read_conversation(path)
    if conversation.workspace and Path(conversation.workspace).resolve() != workspace:
        raise CommandError(f"session {path.stem} worked in {conversation.workspace}, not {workspace} "
                           "(use --workspace)")
    return conversation


#: Undo what the full-screen app set: kitty keys, mouse reporting, bracketed
#: paste, focus events, the alternate screen; show the cursor again.
_RESET_SEQUENCES = b"\x1b[<u\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?2004l\x1b[?1004l\x1b[?1049l\x1b[?25h"


def _terminal_restorer():
    """A function giving the terminal back as it is now, for an exit that
    cannot wait for Textual to do it (a second signal, a stuck run)."""
    import termios

    try:
        fd = sys.stdin.fileno()
        attrs = typeahead.original_attrs() or termios.tcgetattr(fd)
    except (OSError, ValueError, termios.error):
        return None

    def restore() -> None:
        try:
            termios.tcsetattr(fd, termios.TCSANOW, attrs)
            os.write(sys.stdout.fileno(), _RESET_SEQUENCES)
        except (OSError, ValueError, termios.error):
            pass

    return restore
