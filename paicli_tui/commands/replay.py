"""`paicli replay SESSION [--speed X | --instant] [--text]`: a past run
played back from its ledger alone (no model, no tools).

``--text`` prints it as `paicli run` did (instant unless ``--speed`` is
given); otherwise the run screen opens and plays it at ``--speed`` (default
1 = the recorded pace).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time

from paicli_tui.commands.common import fail
from paicli_tui.records.sessions import SessionNotFound, resolve_session


def _speed(args: argparse.Namespace, default: float | None) -> float | None:
    if getattr(args, "instant", False):
        return None
    return args.speed if args.speed is not None else default


def main(args: argparse.Namespace) -> int:
    if args.speed is not None and args.speed <= 0:
        return fail(f"--speed must be above 0, got {args.speed}", 2)
    try:
        path = resolve_session(args.session)
    except SessionNotFound as exc:
        return fail(str(exc), 1)
    if args.text:
        from paicli_tui.present.text_replay import replay_text

        warnings: list[str] = []
        try:
            replay_text(path, sys.stdout, sys.stderr, speed=_speed(args, None), warnings=warnings)
        except BrokenPipeError:
            raise  # our reader quit: not the ledger's fault (cli.main stops quietly)
        except OSError as exc:
            return fail(f"cannot read {path}: {exc}", 1)
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
        return 0
    return _replay_on_screen(args, path, _speed(args, 1.0))


#: Seconds to wait for the app to come up before playback starts.
APP_READY_TIMEOUT_S = 15.0


def _replay_on_screen(args: argparse.Namespace, path, speed: float | None) -> int:
    """The full-screen app on a ReplaySession: the main screen shows the
    transcript, and each plan/team run opens the run screen at its
    ``run_started`` event, exactly as a live run does."""
    from paicli_tui.commands.common import load_or_fail
    from paicli_tui.session.replay import ReplaySession

    settings = load_or_fail(args)
    if isinstance(settings, int):
        return settings
    try:
        session = ReplaySession(path, settings)
    except OSError as exc:
        return fail(f"cannot read {path}: {exc}", 1)

    from paicli_tui.ui.app import PaicliApp

    app = PaicliApp(session, theme=settings.theme, remember_theme=False)

    def player() -> None:
        if not _wait_until_running(app, session):
            return
        try:
            session.play(speed)
        except RuntimeError:
            session.cancel()  # the app closed while playing

    thread = threading.Thread(target=player, name="paicli-replay", daemon=True)
    thread.start()
    try:
        app.run()
    finally:
        session.close()
        thread.join(timeout=2)
    for warning in session.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def _wait_until_running(app, session) -> bool:
    deadline = time.monotonic() + APP_READY_TIMEOUT_S
    while time.monotonic() < deadline and not session.stopped:
        if app.is_running and app.main_screen.is_attached:
            return True
        time.sleep(0.05)
    return False
