"""Every hyperparameter of a run, in one gin-configurable dataclass.

The values live in configs/base.gin, each with a comment; the hardware configs override a few. A name that no
config binds is an error at start-up, so nothing runs on a value nobody chose.
"""

import dataclasses
import types

import gin

from .errors import InputError

PRECISIONS = ("float32", "mixed_bfloat16", "mixed_float16")
STRATEGIES = ("auto", "tpu", "multiworker", "gpu", "cpu_replicas", "cpu")
DATA_SOURCES = ("tfrecord", "synthetic")


@gin.configurable
@dataclasses.dataclass(frozen=True)
class Params:
    """Hyperparameters; see configs/base.gin for what each one does."""

    # Data.
    data_source: str
    num_classes: int | None
    image_size: int
    shuffle_buffer: int
    crop_padding: int
    random_flip: bool
    seed: int
    # Model.
    widths: tuple[int, ...]
    dropout_rate: float
    # Optimisation.
    global_batch_size: int
    train_steps: int
    base_learning_rate: float
    warmup_steps: int
    momentum: float
    weight_decay: float
    precision: str
    # Host loop.
    steps_per_execution: int
    jit_compile: bool
    checkpoint_every: int
    keep_checkpoints: int
    eval_every: int
    # Benchmark.
    benchmark_steps: int
    benchmark_windows: int
    # Hardware.
    strategy: str
    cpu_replicas: int
    tpu_cores: int
    hbm_gib_per_core: float
    tpu_zone: str | None
    tpu_project: str | None
    connect_timeout_s: float

    def __post_init__(self):
        problems = [
            f"Params.{field.name} must be {_describe(field.type)}, not {getattr(self, field.name)!r}."
            for field in dataclasses.fields(self)
            if not _is_a(getattr(self, field.name), field.type)
        ]
        if problems:  # the checks below compare values, which needs the right types
            raise InputError(" ".join(problems))
        problems = [
            f"Params.{name} must be one of {choices}, not {getattr(self, name)!r}."
            for name, choices in (("precision", PRECISIONS), ("strategy", STRATEGIES), ("data_source", DATA_SOURCES))
            if getattr(self, name) not in choices
        ]
        problems += [
            f"Params.{name} must be positive, not {getattr(self, name)!r}."
            for name in (
                "image_size",
                "global_batch_size",
                "train_steps",
                "steps_per_execution",
                "checkpoint_every",
                "benchmark_steps",
                "benchmark_windows",
                "cpu_replicas",
                "tpu_cores",
            )
            if getattr(self, name) <= 0
        ]
        if problems:
            raise InputError(" ".join(problems))

    @property
    def learning_rate(self):
        """The peak learning rate: base_learning_rate per 256 examples, scaled linearly with the global batch."""
        return self.base_learning_rate * self.global_batch_size / 256


def _is_a(value, kind):
    """Whether a gin-parsed value fits a field's annotation (a number where an int is due, a tuple for widths)."""
    if isinstance(kind, types.UnionType):
        return any(_is_a(value, option) for option in kind.__args__)
    if isinstance(kind, types.GenericAlias):  # tuple[int, ...]
        return isinstance(value, tuple | list) and all(_is_a(v, kind.__args__[0]) for v in value)
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _describe(kind):
    if isinstance(kind, types.UnionType):
        return " or ".join(_describe(option) for option in kind.__args__)
    if isinstance(kind, types.GenericAlias):
        return "a tuple like (16, 32)"
    return {int: "an int", float: "a number", bool: "True or False", str: "a string"}.get(kind, "None")
