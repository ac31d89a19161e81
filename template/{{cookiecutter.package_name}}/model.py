"""The network and its optimizer; build both under strategy.scope() so their variables live on the replicas."""

import keras


def build_model(num_classes, image_size, widths, dropout_rate):
    """A small VGG-style CNN: per width, two 3x3 conv + batch norm + ReLU layers, then 2x2 max pooling.

    Returns a keras.Model from float32 images [B, image_size, image_size, 3] to float32 logits [B, num_classes].
    """
    inputs = keras.Input((image_size, image_size, 3), name="image")
    x = inputs
    for width in widths:
        for _ in range(2):
            x = keras.layers.Conv2D(width, 3, padding="same", use_bias=False)(x)
            x = keras.layers.BatchNormalization()(x)
            x = keras.layers.ReLU()(x)
        x = keras.layers.MaxPooling2D()(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dropout(dropout_rate)(x)
    # Logits stay float32 under mixed precision: a bf16/fp16 softmax loses the small probabilities.
    outputs = keras.layers.Dense(num_classes, dtype="float32", name="logits")(x)
    return keras.Model(inputs, outputs)


def build_optimizer(params):
    """SGD with momentum on a linear warm-up then cosine decay, with loss scaling when training in float16."""
    schedule = keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=0.0,
        decay_steps=max(params.train_steps - params.warmup_steps, 1),
        warmup_target=params.learning_rate,
        warmup_steps=params.warmup_steps,
    )
    optimizer = keras.optimizers.SGD(schedule, momentum=params.momentum, weight_decay=params.weight_decay)
    if params.precision == "mixed_float16":
        # float16 gradients underflow without loss scaling; bfloat16 has float32's range and needs none.
        optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
    return optimizer
