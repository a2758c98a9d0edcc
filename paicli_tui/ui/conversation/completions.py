"""What the completion menu offers for the text and cursor in the prompt,
and what accepting a row does. Plain Python: the editor shows the rows in
its CompletionMenu and applies the chosen one.

After ``/`` at the start (cursor at the end): the commands, then the
command's argument choices (``slash_commands.command_choices``). After an
``@`` word: the resources of ready MCP servers (``server:uri``), then
workspace files, each ranked for what follows the ``@`` (``file_mentions``);
accepting inserts ``@path `` and the path is attached, or ``@server:uri ``,
which attaches the resource when sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from paicli_tui.ui.conversation.completion_menu import MenuItem
from paicli_tui.ui.conversation.file_mentions import WorkspaceFileIndex, mention_at, rank
from paicli_tui.ui.conversation.slash_commands import COMMANDS, command_choices, needs_argument

#: Files offered at most for one query.
FILE_ROWS = 50
#: MCP resources offered at most for one query (they come first).
RESOURCE_ROWS = 20


@dataclass(frozen=True)
class Offer:
    """A menu row and what accepting it does: text[start:end] becomes ``insert``."""

    item: MenuItem
    insert: str
    start: int
    end: int
    path: str = ""  # a file mention: the path to attach
    complete: bool = False  # a command already fully typed: Enter sends it
    resource: bool = False  # an MCP resource (server:uri), attached when sent


def offers_for(text: str, cursor: int, argument_choices: Callable[[str], Iterable[str]],
               files: WorkspaceFileIndex | None, resources: Iterable[str] = ()) -> list[Offer]:
    if text.startswith("/") and cursor == len(text):
        typed = text.rstrip()
        return [Offer(MenuItem(choice.label, choice.hint, choice.description), choice.text, 0, len(text),
                      complete=typed == choice.text.rstrip() and not needs_argument(typed))
                for choice in command_choices(text, argument_choices)]
    mention = mention_at(text, cursor)
    if mention is None:
        return []
    offers = [Offer(MenuItem(uri, "MCP resource"), f"@{uri} ", mention.start, cursor, resource=True)
              for uri in rank(mention.query, list(resources), RESOURCE_ROWS)]
    if files is not None:
        offers += [Offer(MenuItem(path), f"@{path} ", mention.start, cursor, path=path)
                   for path in files.search(mention.query, limit=FILE_ROWS)]
    return offers


def menu_title(text: str, offers: list[Offer]) -> str:
    """"files", "commands", or the command being completed with its hint ("/theme [NAME]")."""
    if not offers:
        return ""
    if any(offer.resource for offer in offers):
        return "MCP resources and files" if any(offer.path for offer in offers) else "MCP resources"
    if offers[0].path:
        return "files"
    name, space, _ = text.partition(" ")
    return f"{name} {COMMANDS[name.lower()][0]}" if space and name.lower() in COMMANDS else "commands"
