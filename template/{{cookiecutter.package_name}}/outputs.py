"""Writes run outputs into model_dir (local or gs://) whole or not at all: a temporary file, then a rename."""

import csv
import io
import json

import tensorflow as tf


def write_text(path, text):
    temporary = f"{path}.tmp"
    with tf.io.gfile.GFile(temporary, "w") as f:
        f.write(text)
    tf.io.gfile.rename(temporary, path, overwrite=True)


def write_json(path, value):
    write_text(path, json.dumps(value, indent=2, sort_keys=True) + "\n")


def write_predictions(path, keys, labels, probabilities, class_names):
    """One CSV row per example: key, true and predicted class name, then each class's probability."""
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(["key", "label", "prediction", *(f"p_{name}" for name in class_names)])
    for key, label, row in zip(keys, labels, probabilities, strict=True):
        writer.writerow([key, class_names[label], class_names[row.argmax()], *(f"{p:.6f}" for p in row)])
    write_text(path, text.getvalue())
