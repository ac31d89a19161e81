"""The input pipeline: one tf.data pipeline per host, for strategy.distribute_datasets_from_function.

Every batch has a fixed shape (the TPU compiles for one shape) and nothing in it needs Python at run time (a TPU
host runs the pipeline as a graph). Elements are dicts: `image` float32 [B, S, S, 3], `label` int32 [B], and for
evaluation also `weight` float32 [B] (0 for padding) and `index` int32 [B] (the example's position in its split).
"""

import math
import os

import tensorflow as tf
from absl import logging

from . import dataset, preprocessing
from .errors import LABEL_OUT_OF_RANGE, InputError

_EPOCHS = 2**40  # "forever", as a bound tf.data.Dataset.range accepts


def eval_steps(num_examples, global_batch_size, num_input_pipelines=1):
    """Steps that cover every example once when each pipeline holds ceil(num_examples / pipelines) of them."""
    per_pipeline = math.ceil(num_examples / num_input_pipelines)
    return math.ceil(per_pipeline * num_input_pipelines / global_batch_size)


class InputPipeline:
    """Builds the dataset of one input pipeline; call it with a tf.distribute.InputContext.

    Args:
      params: the run's Params.
      info: the DatasetInfo of the data directory (ignored by the synthetic source).
      split: "train" or "eval".
      training: True for an endless, shuffled, augmented stream; False for one padded pass in order.
      start_step: global steps already trained; the training stream resumes at the example after them.
    """

    def __init__(self, params, info, split, training, start_step=0):
        self.params = params
        self.info = info
        self.split = split
        self.training = training
        self.start_step = start_step

    def __call__(self, input_context=None):
        input_context = input_context or tf.distribute.InputContext()
        batch_size = input_context.get_per_replica_batch_size(self.params.global_batch_size)
        if self.params.data_source == "synthetic":
            return self._synthetic(batch_size)
        if self.training:
            records = self._train_records(input_context, batch_size)
        else:
            records = self._eval_records(input_context, batch_size)
        return (
            records.batch(batch_size, drop_remainder=True)
            .map(self._parse_and_preprocess, num_parallel_calls=tf.data.AUTOTUNE)
            .prefetch(tf.data.AUTOTUNE)
        )

    def _train_records(self, input_context, batch_size):
        """{seed, record} elements: shuffled per epoch, endless, starting after `start_step` global steps."""
        shards = self.info.shards[self.split][input_context.input_pipeline_id :: input_context.num_input_pipelines]
        if not shards:
            raise InputError(
                f"{len(self.info.shards[self.split])} {self.split} shards cannot feed "
                f"{input_context.num_input_pipelines} input pipelines; write at least one shard per host."
            )
        logging.info(
            "Input pipeline %d of %d reads %s.",
            input_context.input_pipeline_id,
            input_context.num_input_pipelines,
            ", ".join(os.path.basename(path) for path, _ in shards),
        )
        files = tf.constant([path for path, _ in shards])
        examples_per_step = batch_size * input_context.num_replicas_in_sync // input_context.num_input_pipelines
        first_epoch, offset = divmod(self.start_step * examples_per_step, sum(count for _, count in shards))
        seed = tf.constant([self.params.seed, input_context.input_pipeline_id], tf.int64)
        block = self.params.shuffle_buffer

        def epoch(number):
            # Stateless shuffles make each epoch's order a function of (seed, epoch) alone, so a resumed run can
            # start at any epoch and see what an uninterrupted run would have seen. Shuffling blocks of
            # shuffle_buffer records mixes as well as a shuffle buffer of that size.
            epoch_seed = tf.random.experimental.stateless_fold_in(seed, number)
            records = (
                tf.data.Dataset.from_tensor_slices(tf.random.experimental.stateless_shuffle(files, seed=epoch_seed))
                .interleave(tf.data.TFRecordDataset, cycle_length=min(len(shards), 8))
                .batch(block)
                .enumerate()
                .map(lambda i, records: tf.random.experimental.stateless_shuffle(records, seed=epoch_seed + i))
                .unbatch()
            )
            return records.enumerate().map(lambda i, record: {"seed": epoch_seed + [0, i], "record": record})

        return tf.data.Dataset.range(first_epoch, _EPOCHS).flat_map(epoch).skip(offset)

    def _eval_records(self, input_context, batch_size):
        """{index, weight, record} elements: every example once, in order, then weight-0 padding to fill batches."""
        num_examples = self.info.num_examples(self.split)
        steps = eval_steps(num_examples, self.params.global_batch_size, input_context.num_input_pipelines)
        per_pipeline = steps * batch_size * input_context.num_replicas_in_sync // input_context.num_input_pipelines
        # Sharding by example (not by file) gives every pipeline the same count, whatever the shard sizes.
        records = (
            tf.data.TFRecordDataset(self.info.files(self.split))
            .enumerate()
            .shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
            .map(lambda i, record: {"index": tf.cast(i, tf.int32), "weight": 1.0, "record": record})
        )
        padding = {"index": -1, "weight": 0.0, "record": _padding_record()}
        return records.concatenate(tf.data.Dataset.from_tensors(padding).repeat()).take(per_pipeline)

    def _parse_and_preprocess(self, batch):
        features = dataset.parse_batch(batch.pop("record"))
        p = self.params
        images = tf.map_fn(
            lambda encoded: preprocessing.preprocess_for_eval(preprocessing.decode(encoded), p.image_size),
            features["image/encoded"],
            fn_output_signature=tf.float32,
        )
        if self.training:
            # Batches start at the same examples after a resume, so the first example's seed fixes the batch's.
            images = preprocessing.augment(images, batch.pop("seed")[0], p.crop_padding, p.random_flip)
        return {"image": images, "label": self._checked(features["image/class/label"], features["image/key"]), **batch}

    def _checked(self, labels, keys):
        """The labels as int32, failing on any outside [0, num_classes): a TPU would train on them without a word."""
        outside = (labels < 0) | (labels >= self.params.num_classes)
        named = tf.strings.join([keys, " (label ", tf.strings.as_string(labels), ")"])
        first_few = tf.strings.reduce_join(tf.boolean_mask(named, outside)[:3], separator=", ")
        check = tf.debugging.Assert(~tf.reduce_any(outside), [LABEL_OUT_OF_RANGE, first_few])
        with tf.control_dependencies([check]):
            return tf.cast(labels, tf.int32)

    def _synthetic(self, batch_size):
        """One random batch of the right shapes and dtypes, repeated: measures the model without input cost."""
        size = self.params.image_size
        batch = {
            "image": tf.random.stateless_uniform([batch_size, size, size, 3], seed=[self.params.seed, 0]),
            "label": tf.random.stateless_uniform(
                [batch_size], seed=[self.params.seed, 1], maxval=self.params.num_classes, dtype=tf.int32
            ),
        }
        if not self.training:
            batch |= {"weight": tf.ones([batch_size]), "index": tf.range(batch_size)}
        return tf.data.Dataset.from_tensors(batch).repeat()


def _padding_record():
    """A valid example (a 1x1 black PNG) that fills the last eval batches; its weight of 0 hides it from metrics."""
    return dataset.serialize_example(tf.io.encode_png(tf.zeros([1, 1, 3], tf.uint8)).numpy(), 0, "")
