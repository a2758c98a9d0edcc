"""The slash commands the input understands: their argument hints and
one-line descriptions (the command menu, the palette and /help show them)
and what the menu offers for a partly typed command. Pure text handling:
the main screen decides what each command does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable


#: name → (argument hint, help line)
COMMANDS: dict[str, tuple[str, str]] = {
    "/plan": ("GOAL", "plan the goal as a task graph, review it, then run it"),
    "/team": ("GOAL", "run the goal with a planner, workers and a reviewer"),
    "/mode": ("auto|plan|ask", "set the approval mode (shift+tab cycles it)"),
    "/theme": ("[NAME]", "list the colour themes, or switch to NAME (remembered)"),
    "/model": ("[NAME]", "show the model, or switch to NAME"),
    "/permissions": ("", "list what is granted and the allow/deny rules; revoke or keep a grant"),
    "/undo": ("", "revert the file changes of the last turn, or of a run you pick; the diff first"),
    "/resume": ("", "go on with an interrupted /plan or /team run: completed work is kept"),
    "/skills": ("", "list the skills the agent can load (name, description, source)"),
    "/mcp": ("", "MCP servers: state, tools, resources, restart (@server:uri attaches one)"),
    "/hooks": ("[trust]", "your hooks and their last results; trust runs the workspace's"),
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


@dataclass(frozen=True)
class Choice:
    """One line of the completion menu: accepting it makes the input ``text``."""

    text: str  # the whole input after accepting, e.g. "/mode " or "/mode plan "
    label: str  # what the menu shows first, e.g. "/mode" or "plan"
    hint: str = ""  # the argument hint, e.g. "auto|plan|ask"
    description: str = ""


def command_choices(value: str, argument_choices: Callable[[str], Iterable[str]]) -> list[Choice]:
    """What the command menu offers for the input ``value``: every command
    whose name starts with what is typed (a lone ``/`` offers all), then,
    once a command and a space are typed, that command's argument choices
    (modes, theme names). Accepting always leaves a trailing space, so the
    next key starts the argument or a new word instead of gluing on."""
    if not value.startswith("/") or "\n" in value:
        return []
    name, space, argument = value.partition(" ")
    if not space:
        typed = name.lower()
        return [Choice(f"{command} ", command, hint, text) for command, (hint, text) in COMMANDS.items()
                if command.startswith(typed)]
    if " " in argument or name.lower() not in COMMANDS:
        return []
    return [Choice(f"{name} {choice} ", choice)
            for choice in argument_choices(name.lower()) if choice.startswith(argument)]


def needs_argument(value: str) -> bool:
    """Whether ``value`` is a command that cannot run without its argument
    (``/plan`` alone): Enter then completes it instead of sending it."""
    name, _, argument = value.strip().partition(" ")
    hint = COMMANDS.get(name.lower(), ("", ""))[0]
    return bool(hint) and not hint.startswith("[") and not argument.strip()
