"""The prompt editor (P-7.1): a multi-line TextArea that sends on Enter.

What the main screen (and anything else) may rely on:

- ``PromptEditor.Submitted``: posted on Enter with ``text`` (what to send:
  collapsed pastes expanded), ``shown`` (the text as it looked, pastes as
  ``[pasted N lines]``), ``attachments`` (workspace paths mentioned with
  ``@path``) and ``pastes`` (the (token, text) pairs in ``shown``). The
  editor has already cleared itself and remembered the text. Blank input
  posts nothing.
- ``text`` (TextArea's, what is in the editor), ``value`` (the same, and
  settable), ``clear()``, ``load_text(text)`` (replaces the text and puts
  the cursor at its end), ``put_back(shown, pastes, attachments)`` (an input
  that was taken away, a queued one, back after what is there, as it was
  typed), ``focus()``, ``show_busy(busy)``, ``prompt_history``.

Keys: Enter sends (or accepts the highlighted menu row); Shift+Enter,
Ctrl+J, Alt+Enter and Ctrl+Enter insert a newline (terminals differ in
which of these they can send: a plain terminal sends only Ctrl+J; kitty's
protocol sends Shift/Alt/Ctrl+Enter as ``ESC [ 13 ; m u``, xterm's
modifyOtherKeys as ``ESC [ 27 ; m ; 13 ~``; a legacy Alt+Enter, ``ESC CR``,
reaches Textual 8.2.8 as plain Enter, indistinguishable, and sends). Up/Down walk the history
only from the first/last line, else move the cursor; with the menu open they
move its highlight. Tab accepts the menu row, Esc closes the menu.

Keys are resolved here, in arrival order. Textual resolves a widget's
non-priority bindings only once the key has bubbled back up to the App,
several message hops after the focused widget saw it, while printable keys
are inserted at the first hop: in a burst (``Ctrl+U`` "text" ``Enter`` in
one write, as a fast typist, a paste of keys or tmux send-keys produces)
the text was inserted first, then Ctrl+U deleted it and Enter sent nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widgets import TextArea

from paicli_tui.ui.conversation import pasted_blocks
from paicli_tui.ui.conversation.completion_menu import CompletionMenu
from paicli_tui.ui.conversation.completions import Offer, menu_title, offers_for
from paicli_tui.ui.conversation.file_mentions import WorkspaceFileIndex, mention_at, mentioned_paths
from paicli_tui.ui.conversation.prompt_history import Entry, PromptHistory

ArgumentChoices = Callable[[str], Iterable[str]]
#: Rows of text before the editor scrolls.
MAX_ROWS = 8
#: Seconds the cursor blinks after the last key (GTK's default rest is the same).
CURSOR_BLINK_S = 10.0
#: xterm's modifyOtherKeys reports Shift+Enter as ESC [27;2;13~, which
#: Textual names "shift+\r"; Ctrl+Enter becomes "ctrl+\r", and Alt+Enter
#: (ESC [27;3;13~) loses its alt and arrives as a bare "\r" (plain Enter
#: is "enter"). These become the names the bindings use.
KEY_ALIASES = {"shift+\r": "shift+enter", "ctrl+\r": "ctrl+enter", "\r": "alt+enter"}


class PromptEditor(TextArea):
    DEFAULT_CSS = f"""
    PromptEditor {{
        height: auto;
        max-height: {MAX_ROWS + 2};
    }}
    """

    BINDINGS = [
        Binding("enter", "submit", "Send; with the menu open, take its row", show=False, id="prompt.submit"),
        Binding("shift+enter,ctrl+j,alt+enter,ctrl+enter", "newline",
                "New line (whichever of these the terminal sends)", show=False, id="prompt.newline"),
        Binding("up", "up", "Previous input, from the first line; in the menu, the row above", show=False,
                id="prompt.history_back"),
        Binding("down", "down", "Next input, from the last line; in the menu, the row below", show=False,
                id="prompt.history_forward"),
        Binding("tab", "accept", "Take the menu's row (/ commands, @ files), with a space after", show=False,
                id="prompt.complete"),
        Binding("escape", "close_menu", "Close the menu", show=False, id="prompt.close_menu"),
    ]

    class Submitted(Message):
        def __init__(self, editor: "PromptEditor", text: str, shown: str, attachments: tuple[str, ...],
                     pastes: tuple[tuple[str, str], ...] = ()) -> None:
            super().__init__()
            self.editor = editor
            self.text = text
            self.shown = shown
            self.attachments = attachments
            self.pastes = pastes

        @property
        def control(self) -> "PromptEditor":
            return self.editor

    class FilesListed(Message):
        """The workspace's file list is ready (posted from the listing thread)."""

    def __init__(self, argument_choices: ArgumentChoices, *, menu: CompletionMenu, history: PromptHistory,
                 files: WorkspaceFileIndex | None = None, resources: Callable[[], list[str]] | None = None,
                 placeholder: str = "", **kwargs) -> None:
        super().__init__(soft_wrap=True, tab_behavior="focus", show_line_numbers=False, compact=False,
                         highlight_cursor_line=False, placeholder=placeholder, **kwargs)
        self.argument_choices = argument_choices
        self.menu = menu
        self.prompt_history = history
        self.files = files
        #: ``server:uri`` of the ready MCP servers' resources, asked for as the menu opens.
        self.resources = resources
        self._pastes = pasted_blocks.PastedBlocks()
        self._picked: list[str] = []  # paths accepted from the @ picker
        self._offers: list[Offer] = []
        self._completing = True  # False while the text came from history or load_text
        self._closed_on: str | None = None  # the text the menu was closed on (Esc)
        self._warned = ""
        self._listing = False
        self._memo: tuple[tuple, list[Offer]] | None = None
        self._cursor_rest: Timer | None = None
        self._cursor_rested = False

    def on_mount(self) -> None:
        self._warn_once()
        self._wake_cursor()

    def _wake_cursor(self) -> None:
        """Blink for CURSOR_BLINK_S after the last key, then stay lit: a
        cursor blinking forever repaints twice a second in an idle app."""
        if self._cursor_rested:  # only what _rest_cursor stopped: blinking switched off stays off
            self._cursor_rested = False
            self.cursor_blink = True
        if self._cursor_rest is not None:
            self._cursor_rest.stop()
        self._cursor_rest = self.set_timer(CURSOR_BLINK_S, self._rest_cursor)

    def _rest_cursor(self) -> None:
        self._cursor_rest = None
        if self.cursor_blink:
            self._cursor_rested = True
            self.cursor_blink = False

    # -- the public surface ------------------------------------------------------------

    @property
    def value(self) -> str:
        return self.text

    @value.setter
    def value(self, text: str) -> None:
        self.load_text(text)

    def load_text(self, text: str) -> None:
        super().load_text(text)
        self.move_cursor(self.document.end)
        self._completing = False
        self._refresh_menu()

    def put_back(self, shown: str, pastes: tuple[tuple[str, str], ...] = (),
                 attachments: tuple[str, ...] = ()) -> None:
        """An input that was taken out of the editor (queued while a turn
        ran) back in, on a line of its own after what is there: its long
        pastes still collapsed and sent whole, its picked files still
        attached. No menu opens on it: Enter sends it as it is."""
        for token, block in pastes:
            kept = self._pastes.adopt(token, block)
            if kept != token:
                shown = shown.replace(token, kept)
        self._picked.extend(path for path in attachments if path not in self._picked)
        current = self.text.rstrip()
        self.load_text(f"{current}\n{shown}" if current.strip() else shown)

    def clear(self):
        self._pastes.clear()
        self._picked.clear()
        result = super().clear()
        self._completing = True
        self._refresh_menu()
        return result

    def show_busy(self, busy: bool) -> None:
        """Say on the border that a turn is running and Esc stops it."""
        title = "● working · esc cancels" if busy else None
        # Setting a border title always repaints, and a repaint of the main
        # screen under the run screen repaints all of the run screen: only
        # when it changes.
        if (self.border_title or None) != title:
            self.border_title = title

    # -- keys (see the module docstring for why here) -----------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        self._wake_cursor()
        key = KEY_ALIASES.get(event.key, event.key)
        # The lookup App._check_bindings does once the key is back at the App
        # (focused widget first, keymap applied, up to the first modal), done
        # at the first hop instead. Private API: textual is pinned (8.2.8).
        for namespace, bindings in self.screen._modal_binding_chain:
            for binding in bindings.key_to_bindings.get(key, ()):
                if not binding.priority and await self.app.run_action(binding.action, namespace):
                    event.stop()
                    event.prevent_default()  # TextArea's own handler must not insert it too
                    return

    async def _on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()
        text = pasted_blocks.normalise(event.text)
        if pasted_blocks.is_long(text):
            text = self._pastes.add(text)
        result = self._replace_via_keyboard(text, *self.selection)
        if result is not None:
            self.move_cursor(result.end_location)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("accept", "close_menu"):
            self._refresh_menu()
            return bool(self._offers)  # nothing to complete: Tab and Esc mean what they mean elsewhere
        return True

    def action_submit(self) -> None:
        self._refresh_menu()
        if self._offers and not self._offers[self.menu.index].complete:
            self.action_accept()
            return
        shown = self.text
        if not shown.strip():
            if self.read_only:  # a viewer's Enter (a replay: play on past a pause) is the screen's to use
                self.post_message(self.Submitted(self, "", "", ()))
            return
        text = self._pastes.expand(shown)
        attachments = self._attachments(shown)
        pastes = tuple((token, block) for token, block in self._pastes.items() if token in shown)
        self.prompt_history.add(shown, pastes)
        self._warn_once()
        self.clear()
        self.post_message(self.Submitted(self, text, shown, attachments, pastes))

    def action_newline(self) -> None:
        self._replace_via_keyboard("\n", *self.selection)

    def action_up(self) -> None:
        self._refresh_menu()  # a burst may not have let Changed arrive yet
        if self._offers:
            self.menu.move(-1)
        elif self.navigator.is_first_wrapped_line(self.cursor_location):
            self._show_history(self.prompt_history.back(Entry(self.text, self._pastes.items())))
        else:
            self.action_cursor_up()

    def action_down(self) -> None:
        self._refresh_menu()
        if self._offers:
            self.menu.move(1)
        elif self.prompt_history.walking and self.navigator.is_last_wrapped_line(self.cursor_location):
            self._show_history(self.prompt_history.forward())
        else:
            self.action_cursor_down()

    def action_accept(self) -> None:
        if not self._offers:
            return
        offer = self._offers[self.menu.index]
        document = self.document
        start, end = document.get_location_from_index(offer.start), document.get_location_from_index(offer.end)
        result = self.replace(offer.insert, start, end, maintain_selection_offset=False)
        self.move_cursor(result.end_location)
        if offer.path and offer.path not in self._picked:
            self._picked.append(offer.path)
        self._completing = True
        self._refresh_menu()

    def action_close_menu(self) -> None:
        self._closed_on = self.text
        self._refresh_menu()

    def action_delete_left(self) -> None:
        row, column = self.cursor_location
        token = self._pastes.token_ending(self.document.get_line(row)[:column]) if self.selection.is_empty else None
        if token is None:
            super().action_delete_left()
        else:  # a collapsed paste goes whole
            self._delete_via_keyboard((row, column - len(token)), (row, column))

    # -- edits -------------------------------------------------------------------------

    def _replace_via_keyboard(self, insert, start, end):
        self._completing = True
        return super()._replace_via_keyboard(insert, start, end)

    def _delete_via_keyboard(self, start, end):
        self._completing = True
        return super()._delete_via_keyboard(start, end)

    def _show_history(self, entry: Entry | None) -> None:
        if entry is not None:
            self.load_text(entry.text)
            self._pastes.restore(entry.pastes)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._refresh_menu()

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        self._refresh_menu()

    def on_prompt_editor_files_listed(self, event: "PromptEditor.FilesListed") -> None:
        event.stop()
        self._listing = False
        self._memo = None
        self._refresh_menu()

    # -- the menu ------------------------------------------------------------------------

    def _refresh_menu(self) -> None:
        if not self.is_mounted:
            return
        text, location = self.text, self.cursor_location
        if text != self._closed_on:
            self._closed_on = None
        key = (text, location, self._completing, self._closed_on)
        if self._memo is None or self._memo[0] != key:
            offers = self._compute_offers() if self._completing and self._closed_on is None else []
            self._memo = (key, offers)
        offers = self._offers = self._memo[1]
        self.menu.show([offer.item for offer in offers], menu_title(text, offers))

    def _compute_offers(self) -> list[Offer]:
        text = self.text
        cursor = self.document.get_index_from_location(self.cursor_location)
        if self.files is not None and self.files.stale() and not self._listing and mention_at(text, cursor):
            self._list_files()
        resources = self.resources() if self.resources is not None and mention_at(text, cursor) else ()
        return offers_for(text, cursor, self.argument_choices, self.files, resources)

    def _list_files(self) -> None:
        files = self.files
        assert files is not None
        self._listing = True

        def list_them() -> None:  # on a worker thread: touches no widget
            files.refresh()
            self.post_message(self.FilesListed())

        self.run_worker(list_them, thread=True, group="file-list", exclusive=True, exit_on_error=False)

    def _attachments(self, text: str) -> tuple[str, ...]:
        """Mentioned paths that were picked or name a file in the workspace."""
        root = self.files.root if self.files is not None else None
        found = []
        for path in mentioned_paths(text):
            if path in self._picked or (root is not None and _is_file(root / path)):
                found.append(path)
        return tuple(dict.fromkeys(found))

    def _warn_once(self) -> None:
        warning = self.prompt_history.warning
        if warning and warning != self._warned:
            self._warned = warning
            self.notify(warning, severity="warning", timeout=8, markup=False)


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False
