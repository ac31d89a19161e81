"""The task's hyperparameters: the data and its preprocessing. The network's own live in model.py.

Every default lives in configs/base.gin, with a comment. Fields are checked against their annotations when the
config is read: `Positive` ones must be above zero, `Fraction` ones in [0, 1).
"""

import dataclasses
from typing import Annotated

import gin

from .runtime.params import Fraction, Positive


@gin.configurable("Task")
@dataclasses.dataclass(frozen=True)
class TaskParams:
    """What the input pipeline and the model's input need; see configs/base.gin."""

    num_classes: int | None
    image_size: Annotated[int, Positive]
    shuffle_buffer: Annotated[int, Positive]
    crop_padding: int
    random_flip: bool
    max_brightness_delta: Annotated[float, Fraction]
