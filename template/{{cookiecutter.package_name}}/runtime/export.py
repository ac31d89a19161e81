"""Exports a SavedModel whose `serving_default` signature is the task's: raw inputs in, the task's answers out."""

import keras


def write(model, task, export_dir):
    """Writes `model` with the task's serving signature (runtime/task.py) to `export_dir`."""
    function, input_signature, *resources = task.serving_signature(model)
    archive = keras.export.ExportArchive()
    archive.track(model)
    for resource in resources:
        archive.track(resource)
    archive.add_endpoint("serving_default", function, input_signature=input_signature)
    archive.write_out(export_dir, verbose=False)
