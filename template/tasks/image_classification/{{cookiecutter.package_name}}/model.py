"""The networks. To change the network, edit this file: write a network function, and select it in configs/base.gin.

Each network function takes the input tensor and the number of classes, then its own hyperparameters, which the
config binds (`small_cnn.widths = (16, 32, 64)`) and which are checked against their annotations. It returns float32
logits. `build_model.network` selects one; `build_model` is what the runtime calls, under strategy.scope().
"""

from typing import Literal

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


@gin.configurable
def separable_cnn(images, num_classes, widths: tuple[int, ...], dropout_rate: float):
    """A MobileNet-style CNN: a 3x3 conv stem, then per width a depthwise-separable block that halves the size.

    Each block is a 3x3 depthwise convolution (one filter per channel) and a 1x1 pointwise convolution that mixes
    the channels, each followed by batch norm and ReLU: several times fewer FLOPs and weights than a full 3x3
    convolution of the same widths, which suits phones and the Edge TPU.
    """
    ### BEGIN SOLUTION (Exercise 4)
    x = keras.layers.Conv2D(widths[0], 3, padding="same", use_bias=False)(images)
    x = keras.layers.ReLU()(keras.layers.BatchNormalization()(x))
    for width in widths:
        x = keras.layers.DepthwiseConv2D(3, strides=2, padding="same", use_bias=False)(x)
        x = keras.layers.ReLU()(keras.layers.BatchNormalization()(x))
        x = keras.layers.Conv2D(width, 1, use_bias=False)(x)
        x = keras.layers.ReLU()(keras.layers.BatchNormalization()(x))
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dropout(dropout_rate)(x)
    return keras.layers.Dense(num_classes, dtype="float32", name="logits")(x)
    ### END SOLUTION


# ResNet v1.5 as in tensorflow/tpu's resnet_model.py: depth -> (bottleneck blocks, blocks per stage).
_RESNETS = {18: (False, (2, 2, 2, 2)), 34: (False, (3, 4, 6, 3)), 50: (True, (3, 4, 6, 3))}


@gin.configurable
def resnet(images, num_classes, depth: Literal[18, 34, 50]):
    """ResNet v1.5 with the ImageNet stem (7x7/2 convolution, 3x3/2 max pooling), then four stages of residual blocks.

    Basic blocks for depths 18 and 34, bottleneck blocks (4x wider outputs) for 50; widths 64, 128, 256, 512.
    """
    if depth not in _RESNETS:
        raise ValueError(f"ResNet depth must be one of 18, 34 or 50, not {depth!r}.")
    bottleneck, blocks_per_stage = _RESNETS[depth]
    # No input normalisation: batch norm right after the bias-free stem convolution absorbs it.
    x = _batch_norm(_conv(images, 64, 7, 2))
    x = keras.layers.MaxPooling2D(3, 2, padding="same")(x)
    for stage, blocks in enumerate(blocks_per_stage):
        for block in range(blocks):
            x = _residual_block(x, 64 * 2**stage, 2 if stage > 0 and block == 0 else 1, bottleneck, block == 0)
    x = keras.layers.GlobalAveragePooling2D()(x)
    initializer = keras.initializers.RandomNormal(stddev=0.01)
    return keras.layers.Dense(num_classes, kernel_initializer=initializer, dtype="float32", name="logits")(x)


def _residual_block(x, filters, stride, bottleneck, projection):
    out_filters = 4 * filters if bottleneck else filters
    # The reference projects the shortcut in the first block of every stage, also where the shape stays the same.
    shortcut = _batch_norm(_conv(x, out_filters, 1, stride), relu=False) if projection else x
    if bottleneck:
        # v1.5: the stride sits on the 3x3 convolution; a strided 1x1 would skip 3/4 of the input pixels.
        x = _batch_norm(_conv(x, filters, 1))
        x = _batch_norm(_conv(x, filters, 3, stride))
        x = _conv(x, out_filters, 1)
    else:
        x = _batch_norm(_conv(x, filters, 3, stride))
        x = _conv(x, filters, 3)
    # A zero gamma makes each block start as the identity, which steadies early training at large batch sizes.
    x = _batch_norm(x, relu=False, zero_gamma=True)
    return keras.layers.ReLU()(keras.layers.Add()([x, shortcut]))


def _conv(x, filters, kernel, stride=1):
    if stride > 1:
        # Pad by the kernel size alone, as the reference does: "same" pads unevenly (0 before, 1 after) on even sizes.
        pad = ((kernel - 1) // 2, kernel // 2)
        x = keras.layers.ZeroPadding2D((pad, pad))(x)
    padding = "same" if stride == 1 else "valid"
    # No bias: batch norm follows. lecun_normal is the reference's tf.variance_scaling_initializer().
    return keras.layers.Conv2D(filters, kernel, stride, padding, use_bias=False, kernel_initializer="lecun_normal")(x)


def _batch_norm(x, relu=True, zero_gamma=False):
    gamma = "zeros" if zero_gamma else "ones"
    x = keras.layers.BatchNormalization(momentum=0.9, epsilon=1e-5, gamma_initializer=gamma)(x)
    return keras.layers.ReLU()(x) if relu else x
