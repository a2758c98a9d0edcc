"""Every option and command of `paicli` says what it does in --help."""

from __future__ import annotations

import argparse

from paicli_tui.cli import build_parser


def _parsers(parser: argparse.ArgumentParser, path: str = "paicli"):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{path} {name}")


def test_every_option_and_argument_has_help_text():
    missing = [f"{path}: {action.option_strings or action.dest}"
               for path, parser in _parsers(build_parser())
               for action in parser._actions
               if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) and not action.help]
    assert missing == []


def test_every_command_has_a_one_line_description():
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            described = {choice.dest for choice in action._choices_actions}
            assert described == set(action.choices)


def test_top_level_help_explains_modes_versus_approval():
    text = build_parser().format_help()
    assert "--mode react|plan|team" in text and "--approval auto|ask|plan" in text and "Shift+Tab" in text
