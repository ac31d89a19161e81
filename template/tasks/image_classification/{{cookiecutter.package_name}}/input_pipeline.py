"""The input pipeline: one tf.data pipeline per host, for strategy.distribute_datasets_from_function.

Every batch has a fixed shape (the TPU compiles for one shape) and nothing in it needs Python at run time (a TPU
host runs the pipeline as a graph). Elements are dicts: `inputs` float32 images [B, S, S, 3] in [0, 1], `label`
int32 [B], and for evaluation also the runtime's `weight` and `index` (runtime/task.py).
"""

import tensorflow as tf

from . import classification, preprocessing
from .runtime import records

FEATURES = {
    "image/encoded": tf.io.FixedLenFeature([], tf.string),
    "image/class/label": tf.io.FixedLenFeature([], tf.int64),
    records.KEY: tf.io.FixedLenFeature([], tf.string, default_value=""),
}


def serialize_example(encoded_image, label, key):
    """One tf.train.Example as bytes: an encoded PNG/JPEG/GIF/BMP image, its label and a key (its file name)."""
    feature = {
        "image/encoded": tf.train.Feature(bytes_list=tf.train.BytesList(value=[encoded_image])),
        "image/class/label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label])),
        records.KEY: records.key_feature(key),
    }
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


class InputPipeline:
    """Builds the dataset of one input pipeline; call it with a tf.distribute.InputContext.

    Args:
      params: the TaskParams.
      info: the runtime's DatasetInfo of the data directory.
      split: "train" or "eval".
      training: True for an endless, shuffled, augmented stream; False for one padded pass in order.
      global_batch_size: examples per step across all replicas.
      start_step: global steps already trained; the training stream resumes at the example after them.
      seed: the shuffling and augmentation seed.
    """

    def __init__(self, params, info, split, training, global_batch_size, start_step=0, seed=0):
        self.params = params
        self.info = info
        self.split = split
        self.training = training
        self.global_batch_size = global_batch_size
        self.start_step = start_step
        self.seed = seed

    def __call__(self, input_context=None):
        input_context = input_context or tf.distribute.InputContext()
        batch_size = input_context.get_per_replica_batch_size(self.global_batch_size)
        if self.training:
            stream = records.train_records(
                self.info, self.split, input_context, batch_size, self.start_step, self.seed, self.params.shuffle_buffer
            )
        else:
            padding = serialize_example(tf.io.encode_png(tf.zeros([1, 1, 3], tf.uint8)).numpy(), 0, "")
            stream = records.eval_records(
                self.info, self.split, input_context, batch_size, self.global_batch_size, padding
            )
        # Batch first, then parse: tf.io.parse_example on a batch is several times faster than one at a time.
        return (
            stream.batch(batch_size, drop_remainder=True)
            .map(self._parse_and_preprocess, num_parallel_calls=tf.data.AUTOTUNE)
            .prefetch(tf.data.AUTOTUNE)
        )

    def _parse_and_preprocess(self, batch):
        features = tf.io.parse_example(batch.pop("record"), FEATURES)
        p = self.params
        images = tf.map_fn(
            lambda encoded: preprocessing.preprocess_for_eval(preprocessing.decode(encoded), p.image_size),
            features["image/encoded"],
            fn_output_signature=tf.float32,
        )
        if self.training:
            # Batches start at the same examples after a resume, so the first example's seed fixes the batch's.
            images = preprocessing.augment(
                images, batch.pop("seed")[0], p.crop_padding, p.random_flip, p.max_brightness_delta
            )
        labels = classification.checked_labels(
            features["image/class/label"], features[records.KEY], len(self.info.class_names)
        )
        return {"inputs": images, "label": labels, **batch}
