"""The slash commands the input line understands, and their completion.
Pure text handling: the main screen decides what each command does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable


#: name → (argument hint, help line)
COMMANDS: dict[str, tuple[str, str]] = {
    "/plan": ("GOAL", "plan the goal as a task graph, review it, then run it"),
    "/team": ("GOAL", "run the goal with a planner, workers and a reviewer"),
    "/mode": ("auto|plan|ask", "set the approval mode (shift+tab cycles it)"),
    "/theme": ("[NAME]", "list the themes, or switch to NAME (remembered)"),
    "/model": ("[NAME]", "show the model, or switch to NAME"),
    "/permissions": ("", "list what is granted and the allow/deny rules; revoke or keep a grant"),
    "/undo": ("", "revert the file changes of the last turn, or of a run you pick; the diff first"),
    "/skills": ("", "list the skills the agent can load (name, description, source)"),
    "/mcp": ("", "MCP servers: state, tools, resources, restart (@server:uri attaches one)"),
    "/copy": ("", "copy the last answer to the clipboard"),
    "/save": ("FACT", "keep a fact for later sessions and every agent"),
    "/memory": ("", "list, search and delete saved facts"),
    "/index": ("", "build or refresh the code index"),
    "/search": ("QUERY", "search the code index: path, lines, symbol"),
    "/graph": ("SYMBOL", "where SYMBOL is defined, called and imported"),
    "/clear": ("", "forget the conversation, clear the transcript and its token count"),
    "/help": ("", "every key of every screen, the commands and the focus order"),
    "/quit": ("", "leave paicli"),
}



@dataclass(frozen=True)
class SlashCommand:
    name: str  # "/mode"
    argument: str  # "plan"


def parse_slash(text: str) -> SlashCommand | None:
    """``/mode plan`` → SlashCommand("/mode", "plan"); plain text → None."""
    text = text.strip()
    if not text.startswith("/"):
        return None
    name, _, argument = text.partition(" ")
    return SlashCommand(name.lower(), argument.strip())


def complete(value: str, argument_choices: Callable[[str], Iterable[str]]) -> str | None:
    """The full line a prefix completes to, or None. ``argument_choices``
    gives the possible arguments for a command (modes, theme names)."""
    if not value.startswith("/"):
        return None
    name, space, argument = value.partition(" ")
    if not space:
        matches = [command for command in COMMANDS if command.startswith(name.lower())]
        return matches[0] if len(matches) >= 1 and matches[0] != name else None
    if " " in argument:
        return None
    for choice in argument_choices(name.lower()):
        if choice.startswith(argument) and choice != argument:
            return f"{name} {choice}"
    return None
