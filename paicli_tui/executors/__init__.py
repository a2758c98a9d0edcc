"""Where a plan's tasks run: the executor seam (docs/executors.md).

The scheduler, review, merge-back, budgets and the ledger stay in this
process; an executor only decides where an agent's turn in a task's tree
runs: ``local`` (the worker thread that took the task, as always) or
``ray`` (a remote task on a Ray cluster; the ``[ray]`` extra)."""

from paicli_tui.executors.base import Executor, ExecutorUnavailable, RunningTurn, TurnJob, run_turn
from paicli_tui.executors.choose import open_executor, recorded_choice
from paicli_tui.executors.local import LocalExecutor

__all__ = ["Executor", "ExecutorUnavailable", "LocalExecutor", "RunningTurn", "TurnJob", "open_executor", "recorded_choice",
           "run_turn"]
