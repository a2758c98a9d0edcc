"""Plans (P-3): the model, the strict parser and hand edits.

The names are re-exported lazily: the settings need only the plan model,
and the parser brings jsonschema (a tenth of a second) that the first
screen never uses."""

from importlib import import_module

_HOMES = {
    "Plan": "model", "PlanStatus": "model", "Task": "model", "TaskStatus": "model", "TaskType": "model",
    "PlanError": "parser", "parse_plan": "parser", "plan_from_dict": "parser", "validate_plan_dict": "parser",
    "StrictJsonError": "strict_json", "read_json_object": "strict_json",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
