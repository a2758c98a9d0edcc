"""`paicli memory list|search|add|keep|delete`: the workspace's facts, for
scripts (P-9.4). ``list`` shows facts waiting for the person's yes first. ``--json`` prints one JSON object per fact."""

from __future__ import annotations

import argparse
import json
import time

from paicli_tui.commands.common import CommandError, fail, workspace_from_args


def main(args: argparse.Namespace) -> int:
    from paicli_tui.knowledge.service import Knowledge
    from paicli_tui.knowledge.memory.database import DatabaseError
    from paicli_tui.knowledge.memory.facts import FactError

    try:
        knowledge = Knowledge(workspace_from_args(args))
    except CommandError as exc:
        return fail(str(exc), exc.code)
    try:
        return _run(args, knowledge)
    except FactError as exc:
        return fail(str(exc), 2)
    except DatabaseError as exc:
        return fail(str(exc), 1)
    finally:
        knowledge.close()


def _run(args: argparse.Namespace, knowledge) -> int:
    action = args.memory_command
    if action == "add":
        fact = knowledge.save_by_person(" ".join(args.fact))
        _show([fact], args.json) if args.json else print(f"saved fact {fact.id}: {fact.text}")
        return 0
    if action == "delete":
        missing = [fact_id for fact_id in args.ids if not knowledge.delete_fact(fact_id)]
        for fact_id in missing:
            print(f"paicli: no fact {fact_id} (paicli memory list shows the ids)")
        deleted = len(args.ids) - len(missing)
        if deleted:
            print(f"deleted {deleted} fact{'s' if deleted != 1 else ''}")
        return 1 if missing else 0
    if action == "keep":
        missing = [fact_id for fact_id in args.ids if knowledge.keep_fact(fact_id) is None]
        for fact_id in missing:
            print(f"paicli: fact {fact_id} is not waiting for a yes (paicli memory list shows those that are)")
        kept = len(args.ids) - len(missing)
        if kept:
            print(f"kept {kept} fact{'s' if kept != 1 else ''}")
        return 1 if missing else 0
    if action == "search":
        facts = knowledge.memory.search(" ".join(args.query), args.limit)
    else:
        facts = [*knowledge.memory.pending(args.limit), *knowledge.memory.recent(args.limit)][: args.limit]
    if not facts and not args.json:
        print("no facts saved for this workspace" if action == "list" else "no fact matches")
        return 0 if action == "list" else 1
    _show(facts, args.json)
    return 0 if facts or action == "list" else 1


def _show(facts, as_json: bool) -> None:
    for fact in facts:
        if as_json:
            print(json.dumps({"id": fact.id, "text": fact.text, "source": fact.source, "agent": fact.agent,
                              "run": fact.run, "created": round(fact.created, 3), "status": fact.status},
                             ensure_ascii=False))
        else:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(fact.created))
            waiting = "[waiting for your yes: paicli memory keep|delete ID] " if fact.status == "pending" else ""
            print(f"{fact.id:>5}  {when}  {fact.provenance():<24.24}  {waiting}{fact.text}")
