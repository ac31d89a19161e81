"""Writes run outputs into model_dir (local or gs://) whole or not at all: a temporary file, then a rename."""

import csv
import io
import json

import tensorflow as tf


def write_text(path, contents):
    temporary = f"{path}.tmp"
    with tf.io.gfile.GFile(temporary, "w") as f:
        f.write(contents)
    tf.io.gfile.rename(temporary, path, overwrite=True)


def write_json(path, value):
    write_text(path, json.dumps(value, indent=2, sort_keys=True) + "\n")


def write_csv(path, rows):
    """Rows (dicts with the same keys, in column order) as a CSV file with a header line."""
    contents = io.StringIO()
    writer = csv.DictWriter(contents, fieldnames=list(rows[0]) if rows else [])
    writer.writeheader()
    writer.writerows(rows)
    write_text(path, contents.getvalue())
