"""`paicli` with no command: the full-screen app in the workspace.

Bad configuration or a bad ``--plan-file`` is reported as one line (exit 2)
before the screen opens; Textual is imported only after that."""

from __future__ import annotations

import argparse
from pathlib import Path

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
    plan = None
    if getattr(args, "plan_file", None):
        from paicli_tui.ui.plan_edit_state import PlanFileError, load_plan_file

        try:
            plan = load_plan_file(Path(args.plan_file).expanduser())
        except PlanFileError as exc:
            return fail(str(exc), 2)

    from paicli_tui.llm.types import ModelError
    from paicli_tui.session import Session
    from paicli_tui.ui.app import PaicliApp
    from paicli_tui.ui.approver import UiApprover
    from paicli_tui.ui.plan_reviewer import UIPlanReviewer

    approver = UiApprover()
    reviewer = UIPlanReviewer()
    try:
        session = Session(settings, workspace, approver=approver, plan_reviewer=reviewer)
    except (ConfigError, ModelError, ValueError) as exc:
        return fail(str(exc), 2)
    app = PaicliApp(session, approver=approver, theme=settings.theme, plan=plan)
    reviewer.attach(app)
    try:
        app.run()
    finally:
        reviewer.close()
        approver.close()
        session.close()
    return app.return_code or 0
