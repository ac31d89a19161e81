"""Image classification, as the runtime asks for it: the contract is runtime/task.py."""

import tensorflow as tf

from . import classification, model, preprocessing
from .input_pipeline import InputPipeline


class Task:
    """Classifies images into the classes of the data's labels.txt.

    Args:
      params: the TaskParams.
      info: the runtime's DatasetInfo of --data_dir (or of the synthetic source).
    """

    def __init__(self, params, info):
        self.params = params
        self.info = info
        self.class_names = classification.class_names(params.num_classes, info)

    def build_model(self):
        return model.build_model(len(self.class_names), self.params.image_size)

    def per_example(self, batch, outputs):
        return classification.per_example(batch["label"], outputs)

    def input_pipeline(self, split, training, global_batch_size, start_step=0, seed=0):
        return InputPipeline(self.params, self.info, split, training, global_batch_size, start_step, seed)

    def example_batch(self, batch_size):
        size = self.params.image_size
        classes = len(self.class_names)
        return {
            "inputs": tf.random.stateless_uniform([batch_size, size, size, 3], seed=[0, 0]),
            "label": tf.random.stateless_uniform([batch_size], seed=[0, 1], maxval=classes, dtype=tf.int32),
        }

    def serving_signature(self, model):
        """uint8 images [batch, height, width, 3] of any size in; resizing and scaling happen in the signature."""

        def serve(images):
            inputs = tf.map_fn(
                lambda image: preprocessing.preprocess_for_eval(image, self.params.image_size),
                images,
                fn_output_signature=tf.float32,
            )
            return classification.serving_outputs(model(inputs, training=False), self.class_names)

        return serve, [tf.TensorSpec([None, None, None, 3], tf.uint8, name="images")]

    def prediction_rows(self, keys, results):
        return classification.prediction_rows(keys, results, self.class_names)
