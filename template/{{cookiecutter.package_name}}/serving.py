"""Answers from an exported model for inputs of your own: a sentence, an image file or an image array.

    export_dir = serving.latest_export("runs/cpu")  # written by --mode=export
    serving.classify(export_dir, ["photo.png"])  # -> [("circle", 0.97)]

Nothing here needs the project's code: a SavedModel carries its preprocessing (resizing, tokenization) with it.
"""

import os

import tensorflow as tf


def latest_export(model_dir):
    """The newest SavedModel that `--mode=export` wrote under <model_dir>/export/<step>."""
    root = os.path.join(model_dir, "export")
    steps = (
        [int(name) for name in tf.io.gfile.listdir(root) if name.strip("/").isdigit()]
        if tf.io.gfile.isdir(root)
        else []
    )
    if not steps:
        raise FileNotFoundError(
            f"{model_dir} has no export; run main.py with --mode=export and this --model_dir first."
        )
    return os.path.join(root, str(max(steps)))


def classify(export_dir, inputs):
    """[(class name, probability)] for each input, one at a time, so images of different sizes may be mixed.

    Args:
      export_dir: a SavedModel written by --mode=export.
      inputs: for a text model, strings; for an image model, paths of image files (PNG, JPEG, GIF, BMP) or uint8
        arrays [height, width, 3].
    """
    ### BEGIN SOLUTION (Exercise 8)
    serve = tf.saved_model.load(export_dir).signatures["serving_default"]
    # The signature's one input: "texts" (strings [B]) or "images" (uint8 [B, H, W, 3]).
    ((name, spec),) = serve.structured_input_signature[1].items()
    answers = []
    for item in inputs:
        if spec.dtype == tf.uint8 and isinstance(item, str):
            item = tf.io.decode_image(tf.io.read_file(item), channels=3, expand_animations=False)
        result = serve(**{name: tf.convert_to_tensor(item, spec.dtype)[None]})
        class_name = result["class_name"][0].numpy().decode("utf-8")
        answers.append((class_name, float(tf.reduce_max(result["probabilities"][0]))))
    return answers
    ### END SOLUTION
