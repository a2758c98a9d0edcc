"""The session's approval mode and model, as ``/mode``, Shift+Tab and
``/model`` change them between runs. A mixin of the live session, which
owns the client, the ReAct agent and the bus."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paicli_tui.config.presets import checked_mode, next_mode
from paicli_tui.events import ModeChanged, ModelChanged
from paicli_tui.session.port import SessionBusy

if TYPE_CHECKING:
    from paicli_tui.agent.loop import Agent
    from paicli_tui.config.settings import Settings
    from paicli_tui.events import EventBus
    from paicli_tui.llm.client import ChatClient


class ModeAndModel:
    settings: "Settings"
    client: "ChatClient"
    bus: "EventBus"
    model_label: str
    _approval_mode: str
    _react: "Agent | None"
    busy: bool

    @property
    def approval_mode(self) -> str:
        return self._approval_mode

    @approval_mode.setter
    def approval_mode(self, mode: str) -> None:
        self._approval_mode = checked_mode(mode)
        if self._react is not None:
            self._react.approval_mode = mode
        self.bus.publish(ModeChanged("session", mode))

    def set_model(self, model: str) -> str:
        """Switch the model later requests name (``/model NAME``); not while
        a run is going, so one run never mixes models. Returns the label."""
        model = model.strip()
        if not model or any(ch.isspace() for ch in model):
            raise ValueError("usage: /model NAME (one word, e.g. deepseek-reasoner)")
        if self.busy:
            raise SessionBusy("a run is going; change the model when it ends")
        if self.settings.provider == "demo":
            # The demo answers every name the same way: a label saying otherwise would mislead.
            raise ValueError(f"the offline demo has no other models: start paicli with --provider or --base-url "
                             f"and --model {model} to use {model}")
        self.client.model = model
        self.client.model_label = model
        self.model_label = self.client.model_label
        self.bus.publish(ModelChanged("session", model, self.model_label))
        return self.model_label

    def cycle_mode(self) -> str:
        self.approval_mode = next_mode(self._approval_mode)
        return self._approval_mode
