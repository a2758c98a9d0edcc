"""The run screen's heading says where the tasks run when they do not run here."""

from __future__ import annotations

from paicli_tui.ui.run.run_screen import RunScreen
from tests.ui.run_host import HostApp, HostSession, screen_text, survey_plan


async def heading(where: str) -> str:
    app = HostApp(HostSession(2))
    async with app.run_test(size=(120, 36)) as pilot:
        screen = RunScreen(survey_plan("task"), "Survey the project", ["worker-1", "worker-2"], kind="plan",
                           tick=False, where=where)
        await app.push_screen(screen)
        await pilot.pause()
        return screen_text(app).splitlines()[0]


async def test_the_heading_names_the_ray_cluster_the_tasks_run_on():
    assert "tasks on ray @ 10.0.0.5:6379" in await heading("ray @ 10.0.0.5:6379")


async def test_a_local_run_keeps_its_heading_as_it_was():
    text = await heading("local")
    assert "/plan · Survey the project" in text and "tasks on" not in text


async def test_a_plan_run_after_the_review_names_the_cluster_from_its_first_frame():
    """The app opens the run screen when the person approves the plan,
    before the run's record says where it runs: the session's executor does."""
    from paicli_tui.executors.ray_executor import RayExecutor
    from paicli_tui.ui.run.run_screens import open_run_screen

    session = HostSession(2)
    session.executor = RayExecutor(None, "ray @ 10.0.0.5:6379")
    app = HostApp(session)
    async with app.run_test(size=(120, 36)) as pilot:
        open_run_screen(app, survey_plan("task"), "Survey the project")
        await pilot.pause()
        assert "tasks on ray @ 10.0.0.5:6379" in screen_text(app).splitlines()[0]
