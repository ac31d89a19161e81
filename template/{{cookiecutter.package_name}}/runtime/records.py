"""The on-disk data format, and the record streams that every task's input pipeline starts from.

A data directory holds `labels.txt` (one label name per line; the line number is the label), `dataset_info.json`
(each split's shard files, example counts and sizes) and the shards: TFRecord files of tf.train.Example, each with a
`key` feature naming the example (for prediction output). Which other features an example has is the task's
business. Paths may be local or gs://.

The streams give a task serialized records with what the runtime needs for exact resume and exact evaluation: an
endless, per-epoch shuffled training stream that restarts at any step, and an evaluation pass over every example
once, padded with weight-0 records to whole batches.
"""

import concurrent.futures
import contextlib
import dataclasses
import hashlib
import json
import math
import os
import re
import time

import tensorflow as tf
from absl import logging

from .errors import DATA_ERROR, InputError

LABELS_FILE = "labels.txt"
INFO_FILE = "dataset_info.json"
SPLITS = ("train", "eval")

KEY = "key"
_PACKAGE = __package__.rsplit(".", 1)[0]
_EPOCHS = 2**40  # "forever", as a bound tf.data.Dataset.range accepts


@dataclasses.dataclass(frozen=True)
class DatasetInfo:
    """What training needs to know about a data directory.

    Attributes:
      class_names: the name of each label, in label order (labels.txt).
      shards: split -> ((shard path, number of examples), ...).
      directory: the data directory, where a task keeps its own files too (None for synthetic data).
    """

    class_names: tuple[str, ...]
    shards: dict[str, tuple[tuple[str, int], ...]]
    directory: str | None = None

    @property
    def num_classes(self):
        return len(self.class_names)

    def num_examples(self, split):
        return sum(count for _, count in self.shards[split])

    def files(self, split):
        return [path for path, _ in self.shards[split]]


def key_feature(key):
    """The `key` feature of an example: a name for it that prediction output shows (a file name, say)."""
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[key.encode("utf-8")]))


def is_eval(key, eval_fraction):
    """Whether the example named `key` goes to eval: a hash of it, stable across runs, machines and added examples."""
    digest = int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:8], 16)
    return digest < eval_fraction * 16**8


def counted(names, singular, plural, shown=5):
    """['a', 'b'] -> ['2 <plural> (a, b)']; [] -> []: how a converter names what it refused or skipped."""
    if not names:
        return []
    listed = ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")
    return [f"{len(names)} {singular if len(names) == 1 else plural} ({listed})"]


def write_split(examples, output_dir, split, num_shards):
    """Writes serialized examples round-robin into `num_shards` files; returns ((file name, count, bytes), ...)."""
    names = [f"{split}-{i:05d}-of-{num_shards:05d}.tfrecord" for i in range(num_shards)]
    counts = [0] * num_shards
    writers = [tf.io.TFRecordWriter(os.path.join(output_dir, name)) for name in names]
    try:
        for i, example in enumerate(examples):
            writers[i % num_shards].write(example)
            counts[i % num_shards] += 1
    finally:
        for writer in writers:
            writer.close()
    sizes = [tf.io.gfile.stat(os.path.join(output_dir, name)).length for name in names]
    return tuple(zip(names, counts, sizes, strict=True))


def write_info(output_dir, class_names, shards):
    """Writes the label file and the index; the index last, so a directory with one is complete."""
    with tf.io.gfile.GFile(os.path.join(output_dir, LABELS_FILE), "w") as f:
        f.write("".join(f"{name}\n" for name in class_names))
    index = {
        split: [{"file": name, "examples": count, "bytes": size} for name, count, size in files]
        for split, files in shards.items()
    }
    with tf.io.gfile.GFile(os.path.join(output_dir, INFO_FILE), "w") as f:
        f.write(json.dumps({"splits": index}, indent=2) + "\n")


def load_info(data_dir):
    """Reads a data directory's label file and index; raises InputError saying how to make or mend one."""
    if not data_dir:
        raise InputError(
            "No --data_dir given: point it at a folder made by prepare_data, or train on synthetic data with "
            "--gin_param=\"Runtime.data_source = 'synthetic'\"."
        )
    fix = f"make one with `python -m {_PACKAGE}.prepare_data --output_dir {data_dir}` (--help for your own data)"
    for name in (LABELS_FILE, INFO_FILE):
        if not tf.io.gfile.exists(os.path.join(data_dir, name)):
            raise InputError(f"--data_dir {data_dir} has no {name}; {fix}.")
    with tf.io.gfile.GFile(os.path.join(data_dir, LABELS_FILE)) as f:
        class_names = tuple(line.strip() for line in f if line.strip())
    with tf.io.gfile.GFile(os.path.join(data_dir, INFO_FILE)) as f:
        index = json.load(f)["splits"]
    shards = {
        split: tuple((os.path.join(data_dir, s["file"]), s["examples"]) for s in index.get(split, ()))
        for split in SPLITS
    }
    for split, files in shards.items():
        if not sum(count for _, count in files):
            raise InputError(f"--data_dir {data_dir} has no {split} examples; {fix}.")
    damaged = _damaged_shards([(os.path.join(data_dir, s["file"]), s.get("bytes")) for s in sum(index.values(), [])])
    if damaged:
        raise InputError(f"--data_dir {data_dir} is damaged: {'; '.join(damaged)}. Write the data again: {fix}.")
    return DatasetInfo(class_names, shards, data_dir)


def _damaged_shards(expected):
    """Names the shards that are missing or not of the size prepare_data wrote: a truncated copy fails here, at start.

    Args:
      expected: [(path, bytes or None), ...]; None (an index written before sizes were recorded) checks existence.
    """

    def problem(path, size):
        if not tf.io.gfile.exists(path):
            return f"{os.path.basename(path)} is missing"
        actual = tf.io.gfile.stat(path).length
        if size is not None and actual != size:
            return f"{os.path.basename(path)} has {actual} bytes, not the {size} that were written"
        return None

    # One request per shard is slow on gs:// with thousands of shards; threads overlap them.
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        return [p for p in pool.map(lambda e: problem(*e), expected) if p]


def source_info(params, data_dir):
    """The DatasetInfo of the run's data: --data_dir's, or the synthetic source's (one global batch per split)."""
    if params.data_source == "synthetic":
        return synthetic_info(params.global_batch_size)
    return load_info(data_dir)


def synthetic_info(num_examples):
    """The DatasetInfo of a source without files (Runtime.data_source = 'synthetic'): `num_examples` per split."""
    return DatasetInfo((), {split: (("", num_examples),) for split in SPLITS})


def read_keys(files):
    """Returns the key of every example in `files`, in file order (run on the host, for prediction output)."""
    features = {KEY: tf.io.FixedLenFeature([], tf.string, default_value="")}
    records = tf.data.TFRecordDataset(files).batch(1024).map(lambda r: tf.io.parse_example(r, features))
    return [key.decode("utf-8") for batch in records for key in batch[KEY].numpy()]


def eval_steps(num_examples, global_batch_size, num_input_pipelines=1):
    """Steps that cover every example once when each pipeline holds ceil(num_examples / pipelines) of them."""
    per_pipeline = math.ceil(num_examples / num_input_pipelines)
    return math.ceil(per_pipeline * num_input_pipelines / global_batch_size)


def train_records(info, split, input_context, batch_size, start_step, seed, shuffle_buffer):
    """{seed, record} elements of this pipeline's shards: shuffled per epoch, endless, after `start_step` steps.

    Each element's seed ([2] int64) is a function of (seed, pipeline, epoch, position) alone, so a task can draw its
    augmentation from it and a resumed run sees what an uninterrupted one would have seen.
    """
    shards = info.shards[split][input_context.input_pipeline_id :: input_context.num_input_pipelines]
    if not shards:
        raise InputError(
            f"{len(info.shards[split])} {split} shards cannot feed {input_context.num_input_pipelines} input "
            "pipelines; write at least one shard per host."
        )
    logging.info(
        "Input pipeline %d of %d reads %s.",
        input_context.input_pipeline_id,
        input_context.num_input_pipelines,
        ", ".join(os.path.basename(path) for path, _ in shards),
    )
    files = tf.constant([path for path, _ in shards])
    examples_per_step = batch_size * input_context.num_replicas_in_sync // input_context.num_input_pipelines
    first_epoch, offset = divmod(start_step * examples_per_step, sum(count for _, count in shards))
    pipeline_seed = tf.constant([seed, input_context.input_pipeline_id], tf.int64)

    def epoch(number):
        # Stateless shuffles make each epoch's order a function of (seed, epoch) alone, so a resumed run can start
        # at any epoch. Shuffling blocks of shuffle_buffer records mixes as well as a shuffle buffer of that size.
        epoch_seed = tf.random.experimental.stateless_fold_in(pipeline_seed, number)
        records = (
            tf.data.Dataset.from_tensor_slices(tf.random.experimental.stateless_shuffle(files, seed=epoch_seed))
            .interleave(tf.data.TFRecordDataset, cycle_length=min(len(shards), 8))
            .batch(shuffle_buffer)
            .enumerate()
            .map(lambda i, block: tf.random.experimental.stateless_shuffle(block, seed=epoch_seed + i))
            .unbatch()
        )
        return records.enumerate().map(lambda i, record: {"seed": epoch_seed + [0, i], "record": record})

    return tf.data.Dataset.range(first_epoch, _EPOCHS).flat_map(epoch).skip(offset)


def eval_records(info, split, input_context, batch_size, global_batch_size, padding):
    """{index, weight, record} elements: every example once, in order, then `padding` records of weight 0.

    Args:
      padding: a serialized example that the task's parsing accepts; its weight of 0 hides it from the metrics.
    """
    steps = eval_steps(info.num_examples(split), global_batch_size, input_context.num_input_pipelines)
    per_pipeline = steps * batch_size * input_context.num_replicas_in_sync // input_context.num_input_pipelines
    # Sharding by example (not by file) gives every pipeline the same count, whatever the shard sizes.
    records = (
        tf.data.TFRecordDataset(info.files(split))
        .enumerate()
        .shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
        .map(lambda i, record: {"index": tf.cast(i, tf.int32), "weight": 1.0, "record": record})
    )
    padded = {"index": -1, "weight": 0.0, "record": padding}
    return records.concatenate(tf.data.Dataset.from_tensors(padded).repeat()).take(per_pipeline)


def synthetic(batch, training):
    """One batch, repeated: the model's speed without input cost; evaluation batches get weights and indices."""
    if not training:
        size = tf.nest.flatten(batch)[0].shape[0]
        batch = {**batch, "weight": tf.ones([size]), "index": tf.range(size)}
    return tf.data.Dataset.from_tensors(batch).repeat()


@contextlib.contextmanager
def read_errors_explained(info, data_dir):
    """Turns a corrupt shard or bad data, met while reading `data_dir`, into an InputError that names the fix."""
    try:
        yield
    except tf.errors.OpError as error:
        explained = explain_read_error(error, info, data_dir)
        if explained is None:
            raise
        raise explained from error


def explain_read_error(error, info, data_dir, budget_s=60.0):
    """Turns a TensorFlow error raised while reading `data_dir` into an InputError that names the fix, or None.

    A corrupt record says only its offset, so this reads the shards again (for at most `budget_s`) to name the file.
    """
    found = re.search(re.escape(DATA_ERROR) + r"\] \[(.*)\]", error.message)
    if isinstance(error, tf.errors.InvalidArgumentError) and found:
        return InputError(f"--data_dir {data_dir} {found[1]}")
    if not isinstance(error, tf.errors.DataLossError):
        return None
    found = re.search(r"\w+ record at \d+", error.message)  # "corrupted record at 41804", "truncated record at ..."
    detail = found[0] if found else error.message.splitlines()[0]
    deadline = time.monotonic() + budget_s
    corrupt = [
        os.path.basename(path)
        for split in SPLITS
        for path in info.files(split)
        if time.monotonic() < deadline and not _reads(path)
    ]
    where = f"the corrupt shard is {', '.join(corrupt)}" if corrupt else "no shard could be named in time"
    return InputError(f"--data_dir {data_dir} is damaged ({detail}; {where}). Write the data again with prepare_data.")


def _reads(path):
    try:
        for _ in tf.data.TFRecordDataset(path).batch(1024):
            pass
    except tf.errors.DataLossError:
        return False
    return True


def input_fn(task, params, split, training, start_step=0):
    """The task's input pipeline for `split`; for Runtime.data_source = 'synthetic', its example batch, repeated."""
    if params.data_source == "synthetic":
        return lambda context: synthetic(
            task.example_batch(context.get_per_replica_batch_size(params.global_batch_size)), training
        )
    return task.input_pipeline(split, training, params.global_batch_size, start_step, params.seed)
