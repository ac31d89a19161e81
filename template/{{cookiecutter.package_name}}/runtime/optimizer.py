"""The optimizer and its learning-rate schedule: linear warm-up, then cosine decay."""

import weakref

import keras
import tensorflow as tf


def build_optimizer(params):
    """SGD with momentum or AdamW (Runtime.optimizer), with loss scaling when training in float16.

    Build it under strategy.scope(), so that its variables live on the replicas.
    """
    schedule = OncePerStep(
        keras.optimizers.schedules.CosineDecay(
            initial_learning_rate=0.0,
            decay_steps=max(params.train_steps - params.warmup_steps, 1),
            warmup_target=params.learning_rate,
            warmup_steps=params.warmup_steps,
        )
    )
    if params.optimizer == "adamw":
        optimizer = keras.optimizers.AdamW(schedule, weight_decay=params.weight_decay)
    else:
        optimizer = keras.optimizers.SGD(schedule, momentum=params.momentum, weight_decay=params.weight_decay)
    if params.precision == "mixed_float16":
        # float16 gradients underflow without loss scaling; bfloat16 has float32's range and needs none.
        optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
    return optimizer


class OncePerStep(keras.optimizers.schedules.LearningRateSchedule):
    """`schedule`, evaluated once in each traced step and reused by every variable's update.

    Keras' optimizers evaluate the learning rate once per variable when they apply weight decay, so each step's graph
    held a copy of the schedule per variable. Tracing and compiling those copies took a quarter to a third of the
    time to the first step on a CPU (measured on both tasks' networks). Every copy reads the step counter before the
    optimizer increments it, so one evaluation gives what they all did.
    """

    def __init__(self, schedule):
        self.schedule = schedule
        self._graph, self._value = None, None

    def __call__(self, step):
        if not tf.inside_function():
            return self.schedule(step)
        graph = tf.compat.v1.get_default_graph()
        if self._graph is None or self._graph() is not graph:
            self._graph, self._value = weakref.ref(graph), self.schedule(step)
        return self._value
