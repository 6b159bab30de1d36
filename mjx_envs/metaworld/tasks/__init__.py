"""Meta-World's tasks, one module each. A module defines `TASK` (a `sawyer.Task`) and `scripted(obs)`,
a controller written without learning that maps the 39-D observation to an action."""

from __future__ import annotations

import importlib
import importlib.util

# reference task name -> module in this package: MT10's ten first, in its order (metaworld.MT10's train
# classes), then the other tasks of MT50 as their modules arrive
MODULES = {
  "reach-v3": "reach",
  "push-v3": "push",
  "pick-place-v3": "pick_place",
  "door-open-v3": "door_open",
  "drawer-open-v3": "drawer_open",
  "drawer-close-v3": "drawer_close",
  "button-press-topdown-v3": "button_press_topdown",
  "peg-insert-side-v3": "peg_insert_side",
  "window-open-v3": "window_open",
  "window-close-v3": "window_close",
}
MT10 = tuple(MODULES)  # (taken before the part-2 tasks below are added)
MODULES.update(
  {
    # Meta-World part 2 (issue 27): one line per task, "<task>-v3": "<module>"
    "button-press-v3": "button_press",
    "button-press-wall-v3": "button_press_wall",
    "button-press-topdown-wall-v3": "button_press_topdown_wall",
    "door-close-v3": "door_close",
    "door-lock-v3": "door_lock",
    "door-unlock-v3": "door_unlock",
    "handle-press-v3": "handle_press",
    "handle-press-side-v3": "handle_press_side",
    "handle-pull-v3": "handle_pull",
    "handle-pull-side-v3": "handle_pull_side",
    "reach-wall-v3": "reach_wall",
    "push-wall-v3": "push_wall",
    "pick-place-wall-v3": "pick_place_wall",
    "push-back-v3": "push_back",
    "plate-slide-v3": "plate_slide",
    "plate-slide-back-v3": "plate_slide_back",
    "plate-slide-side-v3": "plate_slide_side",
    "plate-slide-back-side-v3": "plate_slide_back_side",
    "faucet-open-v3": "faucet_open",
    "faucet-close-v3": "faucet_close",
    "dial-turn-v3": "dial_turn",
    "coffee-button-v3": "coffee_button",
    "coffee-push-v3": "coffee_push",
    "coffee-pull-v3": "coffee_pull",
    "lever-pull-v3": "lever_pull",
    "sweep-v3": "sweep",
    "sweep-into-v3": "sweep_into",
    "soccer-v3": "soccer",
    "hand-insert-v3": "hand_insert",
    "pick-out-of-hole-v3": "pick_out_of_hole",
    "shelf-place-v3": "shelf_place",
    "box-close-v3": "box_close",
    "bin-picking-v3": "bin_picking",
    "peg-unplug-side-v3": "peg_unplug_side",
    "stick-push-v3": "stick_push",
    "stick-pull-v3": "stick_pull",
    "hammer-v3": "hammer",
    "basketball-v3": "basketball",
    "assembly-v3": "assembly",
    "disassemble-v3": "disassemble",
  }
)


def available():
  """The task names whose modules exist."""
  return [n for n, m in MODULES.items() if importlib.util.find_spec(f"{__name__}.{m}") is not None]


def module(name: str):
  """The module of task `name` (e.g. "reach-v3")."""
  if name not in MODULES:
    raise ValueError(f"unknown Meta-World task {name!r}; known: {list(MODULES)}")
  return importlib.import_module(f"{__name__}.{MODULES[name]}")
