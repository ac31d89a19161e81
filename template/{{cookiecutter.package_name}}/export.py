"""Exports a SavedModel that serves raw images: resizing and preprocessing happen inside the signature."""

import keras
import tensorflow as tf

from . import preprocessing


def export(model, class_names, image_size, export_dir):
    """Writes a SavedModel to `export_dir` whose `serving_default` signature maps uint8 images to classes.

    The signature takes `images`, uint8 [batch, height, width, 3] of any size, and returns `probabilities` float32
    [batch, classes], `class_id` int32 [batch] and `class_name` string [batch].
    """
    names = tf.constant(class_names)

    def serve(images):
        inputs = tf.map_fn(
            lambda image: preprocessing.preprocess_for_eval(image, image_size), images, fn_output_signature=tf.float32
        )
        probabilities = tf.nn.softmax(model(inputs, training=False))
        class_id = tf.argmax(probabilities, axis=-1, output_type=tf.int32)
        return {"probabilities": probabilities, "class_id": class_id, "class_name": tf.gather(names, class_id)}

    archive = keras.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint(
        "serving_default", serve, input_signature=[tf.TensorSpec([None, None, None, 3], tf.uint8, name="images")]
    )
    archive.write_out(export_dir, verbose=False)
