"""The input pipeline: one tf.data pipeline per host, for strategy.distribute_datasets_from_function.

Every batch has a fixed shape (the TPU compiles for one shape) and nothing in it needs Python at run time (a TPU
host runs the pipeline as a graph; tokenization is TF ops). Elements are dicts: `inputs` int32 token ids
[B, sequence_length], `label` int32 [B], and for evaluation also the runtime's `weight` and `index`
(runtime/task.py).
"""

import tensorflow as tf

from . import classification, preprocessing
from .runtime import records

FEATURES = {
    "text": tf.io.FixedLenFeature([], tf.string),
    "label": tf.io.FixedLenFeature([], tf.int64),
    records.KEY: tf.io.FixedLenFeature([], tf.string, default_value=""),
}


def serialize_example(text, label, key):
    """One tf.train.Example as bytes: a UTF-8 text, its label and a key (its file name or CSV row)."""
    feature = {
        "text": tf.train.Feature(bytes_list=tf.train.BytesList(value=[text.encode("utf-8")])),
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label])),
        records.KEY: records.key_feature(key),
    }
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


class InputPipeline:
    """Builds the dataset of one input pipeline; call it with a tf.distribute.InputContext.

    Args:
      params: the TaskParams.
      info: the runtime's DatasetInfo of the data directory.
      tokenizer: the preprocessing.Tokenizer of the data's vocabulary.
      split: "train" or "eval".
      training: True for an endless, shuffled stream with word dropout; False for one padded pass in order.
      global_batch_size: examples per step across all replicas.
      start_step: global steps already trained; the training stream resumes at the example after them.
      seed: the shuffling and word dropout seed.
    """

    def __init__(self, params, info, tokenizer, split, training, global_batch_size, start_step=0, seed=0):
        self.params = params
        self.info = info
        self.tokenizer = tokenizer
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
            stream = records.eval_records(
                self.info, self.split, input_context, batch_size, self.global_batch_size, serialize_example("", 0, "")
            )
        # Batch first, then parse and tokenize: TF string ops on a batch are several times faster than one by one.
        return (
            stream.batch(batch_size, drop_remainder=True)
            .map(self._parse_and_tokenize, num_parallel_calls=tf.data.AUTOTUNE)
            .prefetch(tf.data.AUTOTUNE)
        )

    def _parse_and_tokenize(self, batch):
        features = tf.io.parse_example(batch.pop("record"), FEATURES)
        labels = classification.checked_labels(features["label"], features[records.KEY], len(self.info.class_names))
        tokens = self.tokenizer(features["text"])
        if self.training:
            seed = batch.pop("seed")[0]  # batches start at the same examples after a resume: so does the dropout
            if self.params.word_dropout:
                tokens = preprocessing.drop_words(tokens, seed, self.params.word_dropout)
        return {"inputs": tokens, "label": labels, **batch}
