"""The network. To change it, edit this file: write a network function, and select it in configs/base.gin.

Each network function takes the token ids, the number of classes and the vocabulary's size, then its own
hyperparameters, which the config binds (`transformer_encoder.width = 64`) and which are checked against their
annotations. It returns float32 logits. `build_model.network` selects one; `build_model` is what the runtime calls,
under strategy.scope(). Every shape is fixed by the arguments, never by the data, so the networks compile for a TPU.
"""

import gin
import keras

from .preprocessing import PAD_ID


@gin.configurable(denylist=["num_classes", "sequence_length", "vocabulary_size"])
def build_model(num_classes, sequence_length, vocabulary_size, network=gin.REQUIRED):
    """A keras.Model from int32 token ids [B, sequence_length], padded with 0, to logits [B, num_classes]."""
    tokens = keras.Input((sequence_length,), dtype="int32", name="tokens")
    return keras.Model(tokens, network(tokens, num_classes, vocabulary_size))


@gin.configurable
def transformer_encoder(
    tokens, num_classes, vocabulary_size, width: int, heads: int, layers: int, mlp_width: int, dropout_rate: float
):
    """A pre-norm Transformer encoder with learned position embeddings, averaged over the words (not the padding).

    Each head attends in width // heads dimensions, so keep `width` a multiple of `heads`; on TPUs keep width and
    mlp_width multiples of 128.
    """
    sequence_length = tokens.shape[1]
    is_word = keras.ops.not_equal(tokens, PAD_ID)
    # Queries attend to words only; what padding positions compute is dropped by the masked mean below.
    attention_mask = keras.ops.expand_dims(is_word, axis=1)
    positions = keras.ops.zeros_like(tokens) + keras.ops.arange(sequence_length, dtype="int32")
    x = keras.layers.Embedding(vocabulary_size, width)(tokens) + keras.layers.Embedding(sequence_length, width)(
        positions
    )
    x = keras.layers.Dropout(dropout_rate)(x)
    for _ in range(layers):
        y = keras.layers.LayerNormalization()(x)
        y = keras.layers.MultiHeadAttention(heads, width // heads, dropout=dropout_rate)(
            y, y, attention_mask=attention_mask
        )
        x = x + keras.layers.Dropout(dropout_rate)(y)
        y = keras.layers.LayerNormalization()(x)
        y = keras.layers.Dense(mlp_width, activation="gelu")(y)
        y = keras.layers.Dense(width)(y)
        x = x + keras.layers.Dropout(dropout_rate)(y)
    x = keras.layers.LayerNormalization()(x)
    # Logits stay float32 under mixed precision: a bf16/fp16 softmax loses the small probabilities.
    return keras.layers.Dense(num_classes, dtype="float32", name="logits")(masked_mean(x, is_word))


@gin.configurable
def bag_of_words(tokens, num_classes, vocabulary_size, width: int):
    """A baseline blind to word order: the mean of the words' embeddings, then one dense layer."""
    x = keras.layers.Embedding(vocabulary_size, width)(tokens)
    return keras.layers.Dense(num_classes, dtype="float32", name="logits")(
        masked_mean(x, keras.ops.not_equal(tokens, PAD_ID))
    )


@gin.configurable
def conv_text(tokens, num_classes, vocabulary_size, width: int, kernel_size: int, layers: int):
    """A 1D CNN: word embeddings, `layers` convolutions over `kernel_size` neighbouring words, a masked mean.

    Each convolution sees a few words in order ("not very good"), which a bag of words cannot; it costs less than
    attention and its shapes are as fixed as the Transformer's.
    """
    ### BEGIN SOLUTION (Exercise 4)
    is_word = keras.ops.not_equal(tokens, PAD_ID)
    x = keras.layers.Embedding(vocabulary_size, width)(tokens)
    for _ in range(layers):
        x = keras.layers.Conv1D(width, kernel_size, padding="same", activation="relu")(x)
    return keras.layers.Dense(num_classes, dtype="float32", name="logits")(masked_mean(x, is_word))
    ### END SOLUTION


def masked_mean(x, mask):
    """The mean of `x` [B, L, D] over the positions where boolean `mask` [B, L] holds; zeros where it never does."""
    weights = keras.ops.expand_dims(keras.ops.cast(mask, x.dtype), axis=-1)
    return keras.ops.sum(x * weights, axis=1) / keras.ops.maximum(keras.ops.sum(weights, axis=1), 1.0)
