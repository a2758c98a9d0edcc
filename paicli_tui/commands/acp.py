"""``paicli acp``: an Agent Client Protocol agent on stdio, for editors
(Zed, JetBrains, Toad). The protocol owns stdout; everything else paicli
or a command prints goes to stderr, which editors keep as the agent's log."""

from __future__ import annotations

import argparse
import asyncio
import sys

from paicli_tui.commands.common import fail, load_or_fail


def main(args: argparse.Namespace) -> int:
    settings = load_or_fail(args)
    if isinstance(settings, int):
        return settings
    problem = settings.resolved().problem()
    if problem:
        return fail(problem, 2)
    from paicli_tui.session.shutdown import exit_now, kill_live_groups

    try:
        asyncio.run(_serve(settings))
    except KeyboardInterrupt:
        pass
    finally:
        kill_live_groups()
    sys.stderr.flush()
    # Engine threads still winding down (a model stream, a stuck tool) must
    # not keep the editor waiting for the process to end.
    exit_now(0, "the ACP client disconnected")
    return 0


async def _serve(settings) -> None:
    import signal

    from acp import run_agent

    from paicli_tui.acp.server import PaicliAcpAgent
    from paicli_tui.acp.stdio import protected_stdio

    reader, writer = await protected_stdio()
    agent = PaicliAcpAgent(settings)
    loop = asyncio.get_running_loop()
    serving = asyncio.current_task()
    for sig in (signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, serving.cancel)  # type: ignore[union-attr]
    try:
        # The SDK names the streams from the editor's side: input_stream is
        # what we write to, output_stream what we read.
        await run_agent(agent, input_stream=writer, output_stream=reader)
    except asyncio.CancelledError:
        pass
    finally:
        await agent.close()
