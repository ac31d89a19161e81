"""Text classification, as the runtime asks for it: the contract is runtime/task.py."""

import functools
import os

import tensorflow as tf

from . import classification, model, preprocessing
from .input_pipeline import InputPipeline
from .runtime.errors import InputError


class Task:
    """Classifies texts into the classes of the data's labels.txt, reading words of the data's vocabulary.txt.

    Args:
      params: the TaskParams.
      info: the runtime's DatasetInfo of --data_dir (or of the synthetic source, which has no vocabulary: then
        Task.vocabulary_size says how many ids the model takes).
    """

    def __init__(self, params, info):
        self.params = params
        self.info = info
        self.class_names = classification.class_names(params.num_classes, info)
        vocabulary = read_vocabulary(info.directory) if info.directory else None
        if vocabulary and params.vocabulary_size not in (None, len(vocabulary)):
            raise InputError(
                f"Task.vocabulary_size = {params.vocabulary_size} but {info.directory} has a vocabulary of "
                f"{len(vocabulary)} words; remove the binding or point --data_dir at the right data."
            )
        if not vocabulary and not params.vocabulary_size:
            raise InputError("The synthetic source has no vocabulary: set Task.vocabulary_size in the config.")
        self.vocabulary = vocabulary or [preprocessing.PAD, preprocessing.UNK]
        self.vocabulary_size = len(vocabulary) if vocabulary else params.vocabulary_size

    @functools.cached_property
    def tokenizer(self):
        # Made at first use, not in __init__: a multi-worker strategy must start before TensorFlow runs anything.
        return preprocessing.Tokenizer(self.vocabulary, self.params.sequence_length)

    def build_model(self):
        return model.build_model(len(self.class_names), self.params.sequence_length, self.vocabulary_size)

    def per_example(self, batch, outputs):
        return classification.per_example(batch["label"], outputs)

    def input_pipeline(self, split, training, global_batch_size, start_step=0, seed=0):
        return InputPipeline(
            self.params, self.info, self.tokenizer, split, training, global_batch_size, start_step, seed
        )

    def example_batch(self, batch_size):
        shape = [batch_size, self.params.sequence_length]
        return {
            "inputs": tf.random.stateless_uniform(shape, seed=[0, 0], maxval=self.vocabulary_size, dtype=tf.int32),
            "label": tf.random.stateless_uniform(
                [batch_size], seed=[0, 1], maxval=len(self.class_names), dtype=tf.int32
            ),
        }

    def serving_signature(self, model):
        """UTF-8 strings [batch] in; tokenization happens in the signature, with the saved vocabulary."""

        def serve(texts):
            return classification.serving_outputs(model(self.tokenizer(texts), training=False), self.class_names)

        return serve, [tf.TensorSpec([None], tf.string, name="texts")], self.tokenizer

    def prediction_rows(self, keys, results):
        return classification.prediction_rows(keys, results, self.class_names)


def read_vocabulary(data_dir):
    """The words of <data_dir>/vocabulary.txt, in id order; an InputError saying how to make it if it is missing."""
    path = os.path.join(data_dir, preprocessing.VOCABULARY_FILE)
    if not tf.io.gfile.exists(path):
        raise InputError(
            f"--data_dir {data_dir} has no {preprocessing.VOCABULARY_FILE}; write the data again with prepare_data, "
            "which builds it from the training split."
        )
    with tf.io.gfile.GFile(path) as f:
        return [line.rstrip("\n") for line in f]
