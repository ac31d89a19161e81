"""Classification, for the task: each example's loss and accuracy, label checks, and what predictions show."""

import keras
import numpy as np
import tensorflow as tf

from .runtime.errors import DATA_ERROR, InputError


def class_names(num_classes, info):
    """The class names: from the data's labels.txt, or class_<i> for synthetic data (no label file)."""
    if info.class_names:
        if num_classes not in (None, len(info.class_names)):
            raise InputError(
                f"Task.num_classes = {num_classes} but the data has {len(info.class_names)} classes "
                f"({', '.join(info.class_names)}); remove the binding or point --data_dir at the right data."
            )
        return info.class_names
    if not num_classes:
        raise InputError("The synthetic source has no label file: set Task.num_classes in the config.")
    return tuple(f"class_{i}" for i in range(num_classes))


def per_example(labels, logits):
    """Cross-entropy and accuracy per example, float32 [B]; the runtime averages them."""
    return {
        "loss": keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True),
        # tf.equal, not ==: on a batch of unknown size, == gives a result of unknown rank, which metrics refuse.
        "accuracy": tf.cast(tf.equal(tf.argmax(logits, axis=-1, output_type=tf.int32), labels), tf.float32),
    }


def checked_labels(labels, keys, num_classes):
    """The labels as int32, failing on any outside [0, num_classes): a TPU would train on them without a word."""
    outside = (labels < 0) | (labels >= num_classes)
    named = tf.strings.join([keys, " (label ", tf.strings.as_string(labels), ")"])
    first_few = tf.strings.reduce_join(tf.boolean_mask(named, outside)[:3], separator=", ")
    message = tf.strings.join(
        [
            f"has labels outside [0, {num_classes}), e.g. ",
            first_few,
            f": its labels.txt lists {num_classes} classes. Write the data again with prepare_data, or list every "
            "class in labels.txt.",
        ]
    )
    check = tf.debugging.Assert(~tf.reduce_any(outside), [DATA_ERROR, message])
    with tf.control_dependencies([check]):
        return tf.cast(labels, tf.int32)


def serving_outputs(logits, names):
    """What the exported model answers: probabilities [B, classes], class_id int32 [B] and class_name string [B]."""
    probabilities = tf.nn.softmax(logits)
    class_id = tf.argmax(probabilities, axis=-1, output_type=tf.int32)
    return {"probabilities": probabilities, "class_id": class_id, "class_name": tf.gather(tf.constant(names), class_id)}


def prediction_rows(keys, results, names):
    """One row per example: key, true and predicted class name, then each class's probability."""
    logits = results["outputs"]
    probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    return [
        {"key": key, "label": names[label], "prediction": names[row.argmax()]}
        | {f"p_{name}": f"{p:.6f}" for name, p in zip(names, row, strict=True)}
        for key, label, row in zip(keys, results["label"], probabilities, strict=True)
    ]
