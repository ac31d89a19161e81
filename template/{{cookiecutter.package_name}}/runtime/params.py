"""The runtime's hyperparameters: batch, schedule, precision, host loop and hardware.

Every default is written once, with a comment: in configs/runtime.gin, except the batch, the steps, the learning
rate and the weight decay, which depend on the task and live in its configs/base.gin. The hardware configs override
a few. A field that no config binds is an error at start-up, so nothing runs on a value nobody chose.
Fields are checked against their annotations when the config is read (config.py): `Positive` marks the ones that
must be above zero, `Fraction` the ones in [0, 1), `Literal` the ones with a fixed set of choices.
"""

import dataclasses
from typing import Annotated, Literal

import gin

Positive = "positive"  # an Annotated[...] marker: the value must be > 0
Fraction = "fraction"  # an Annotated[...] marker: the value must be in [0, 1), e.g. a probability


@gin.configurable("Runtime")
@dataclasses.dataclass(frozen=True)
class RuntimeParams:
    """What the host loop, the strategy, the pre-flight and the benchmark need; see configs/runtime.gin."""

    # Data.
    data_source: Literal["tfrecord", "synthetic"]
    seed: int
    # Optimisation.
    global_batch_size: Annotated[int, Positive]
    train_steps: Annotated[int, Positive]
    optimizer: Literal["sgd", "adamw"]
    base_learning_rate: float
    warmup_steps: int
    momentum: float
    weight_decay: float
    precision: Literal["float32", "mixed_bfloat16", "mixed_float16"]
    # Host loop.
    steps_per_execution: Annotated[int, Positive]
    jit_compile: bool
    checkpoint_every: Annotated[int, Positive]
    keep_checkpoints: Annotated[int, Positive]
    eval_every: Annotated[int, Positive]
    # Benchmark.
    benchmark_steps: Annotated[int, Positive]
    benchmark_windows: Annotated[int, Positive]
    # Hardware.
    strategy: Literal["auto", "tpu", "multiworker", "gpu", "cpu_replicas", "cpu"]
    cpu_replicas: Annotated[int, Positive]
    tpu_cores: Annotated[int, Positive]
    hbm_gib_per_core: Annotated[float, Positive]
    tpu_zone: str | None
    tpu_project: str | None
    connect_timeout_s: Annotated[float, Positive]

    @property
    def learning_rate(self):
        """The peak learning rate: base_learning_rate per 256 examples, scaled linearly with the global batch."""
        return self.base_learning_rate * self.global_batch_size / 256
