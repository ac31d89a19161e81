"""The network. To change it, edit this file: write a network function, and select it in configs/base.gin.

Each network function takes the input tensor and the number of classes, then its own hyperparameters, which the
config binds (`small_cnn.widths = (16, 32, 64)`) and which are checked against their annotations. It returns float32
logits. `build_model.network` selects one; `build_model` is what the runtime calls, under strategy.scope().
"""

import gin
import keras


@gin.configurable(denylist=["num_classes", "image_size"])
def build_model(num_classes, image_size, network=gin.REQUIRED):
    """A keras.Model from float32 images [B, image_size, image_size, 3] in [0, 1] to logits [B, num_classes]."""
    inputs = keras.Input((image_size, image_size, 3), name="image")
    return keras.Model(inputs, network(inputs, num_classes))


@gin.configurable
def small_cnn(images, num_classes, widths: tuple[int, ...], dropout_rate: float):
    """A small VGG-style CNN: per width, two 3x3 conv + batch norm + ReLU layers, then 2x2 max pooling."""
    x = images
    for width in widths:
        for _ in range(2):
            x = keras.layers.Conv2D(width, 3, padding="same", use_bias=False)(x)
            x = keras.layers.BatchNormalization()(x)
            x = keras.layers.ReLU()(x)
        x = keras.layers.MaxPooling2D()(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dropout(dropout_rate)(x)
    # Logits stay float32 under mixed precision: a bf16/fp16 softmax loses the small probabilities.
    return keras.layers.Dense(num_classes, dtype="float32", name="logits")(x)
