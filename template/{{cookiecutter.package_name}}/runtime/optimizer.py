"""The optimizer and its learning-rate schedule: linear warm-up, then cosine decay."""

import keras


def build_optimizer(params):
    """SGD with momentum or AdamW (Runtime.optimizer), with loss scaling when training in float16.

    Build it under strategy.scope(), so that its variables live on the replicas.
    """
    schedule = keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=0.0,
        decay_steps=max(params.train_steps - params.warmup_steps, 1),
        warmup_target=params.learning_rate,
        warmup_steps=params.warmup_steps,
    )
    if params.optimizer == "adamw":
        optimizer = keras.optimizers.AdamW(schedule, weight_decay=params.weight_decay)
    else:
        optimizer = keras.optimizers.SGD(schedule, momentum=params.momentum, weight_decay=params.weight_decay)
    if params.precision == "mixed_float16":
        # float16 gradients underflow without loss scaling; bfloat16 has float32's range and needs none.
        optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
    return optimizer
