"""Plans (P-3): the model, the strict parser and hand edits."""

from paicli_tui.plan.model import Plan, PlanStatus, Task, TaskStatus, TaskType
from paicli_tui.plan.parser import PlanError, parse_plan, plan_from_dict, validate_plan_dict
from paicli_tui.plan.strict_json import StrictJsonError, read_json_object

__all__ = [
    "parse_plan",
    "PlanError",
    "Plan",
    "Task",
    "TaskType",
    "TaskStatus",
    "PlanStatus",
    "read_json_object",
    "StrictJsonError",
    "plan_from_dict",
    "validate_plan_dict",
]
