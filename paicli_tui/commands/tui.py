"""`paicli` with no command: the full-screen app in the workspace.

Bad configuration is reported as one line (exit 2) before the screen opens;
Textual is imported only after that."""

from __future__ import annotations

import argparse

from paicli_tui.commands.common import CommandError, fail, load_or_fail, workspace_from_args
from paicli_tui.config import ConfigError


def main(args: argparse.Namespace) -> int:
    settings = load_or_fail(args)
    if isinstance(settings, int):
        return settings
    try:
        workspace = workspace_from_args(args)
    except CommandError as exc:
        return fail(str(exc), exc.code)

    from paicli_tui.llm.types import ModelError
    from paicli_tui.session import Session
    from paicli_tui.ui.app import PaicliApp
    from paicli_tui.ui.approver import UiApprover

    approver = UiApprover()
    try:
        session = Session(settings, workspace, approver=approver)
    except (ConfigError, ModelError, ValueError) as exc:
        return fail(str(exc), 2)
    app = PaicliApp(session, approver=approver, theme=settings.theme)
    try:
        app.run()
    finally:
        approver.close()
        session.close()
    return app.return_code or 0
