"""The on-disk dataset format: TFRecord shards of tf.train.Example, a label file and a small index.

A data directory holds `labels.txt` (one class name per line; the line number is the label), `dataset_info.json`
(each split's shard files and their example counts) and the shards themselves. Paths may be local or gs://.
"""

import concurrent.futures
import contextlib
import dataclasses
import json
import os
import re
import time

import tensorflow as tf

from .errors import LABEL_OUT_OF_RANGE, InputError

LABELS_FILE = "labels.txt"
INFO_FILE = "dataset_info.json"
SPLITS = ("train", "eval")

FEATURES = {
    "image/encoded": tf.io.FixedLenFeature([], tf.string),
    "image/class/label": tf.io.FixedLenFeature([], tf.int64),
    "image/key": tf.io.FixedLenFeature([], tf.string, default_value=""),
}


@dataclasses.dataclass(frozen=True)
class DatasetInfo:
    """What training needs to know about a data directory.

    Attributes:
      class_names: the class name of each label, in label order.
      shards: split -> ((shard path, number of examples), ...).
    """

    class_names: tuple[str, ...]
    shards: dict[str, tuple[tuple[str, int], ...]]

    @property
    def num_classes(self):
        return len(self.class_names)

    def num_examples(self, split):
        return sum(count for _, count in self.shards[split])

    def files(self, split):
        return [path for path, _ in self.shards[split]]


def serialize_example(encoded_image, label, key):
    """Returns one tf.train.Example as bytes: an encoded PNG/JPEG image, its integer label and a key (file name)."""
    feature = {
        "image/encoded": tf.train.Feature(bytes_list=tf.train.BytesList(value=[encoded_image])),
        "image/class/label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label])),
        "image/key": tf.train.Feature(bytes_list=tf.train.BytesList(value=[key.encode("utf-8")])),
    }
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


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
        raise InputError("No --data_dir given: point it at a folder made by prepare_data, or use synthetic data.")
    fix = f"make one with `python -m {__package__}.prepare_data --output_dir {data_dir}` (--image_dir for your images)"
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
    return DatasetInfo(class_names, shards)


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


def load(params, data_dir):
    """Returns the run's Params with num_classes taken from the data, and the DatasetInfo of its source."""
    if params.data_source == "synthetic":
        return params, synthetic_info(params.num_classes, params.global_batch_size)
    info = load_info(data_dir)
    if params.num_classes not in (None, info.num_classes):
        raise InputError(
            f"Params.num_classes = {params.num_classes} but {data_dir} has {info.num_classes} classes "
            f"({', '.join(info.class_names)}); remove the binding or point --data_dir at the right data."
        )
    return dataclasses.replace(params, num_classes=info.num_classes), info


def synthetic_info(num_classes, num_examples):
    """The DatasetInfo of the synthetic source, which has no files: `num_examples` per split."""
    if not num_classes:
        raise InputError("The synthetic source has no label file: set Params.num_classes in the config.")
    return DatasetInfo(
        tuple(f"class_{i}" for i in range(num_classes)), {split: (("", num_examples),) for split in SPLITS}
    )


def parse_batch(serialized):
    """Parses a batch of serialized examples: batching first makes parsing several times faster."""
    return tf.io.parse_example(serialized, FEATURES)


def read_keys(files):
    """Returns the key of every example in `files`, in file order (run on the host, for prediction output)."""
    records = tf.data.TFRecordDataset(files).batch(1024).map(parse_batch)
    return [key.decode("utf-8") for batch in records for key in batch["image/key"].numpy()]


@contextlib.contextmanager
def read_errors_explained(info, data_dir):
    """Turns a corrupt shard or a bad label, met while reading `data_dir`, into an InputError that names the fix."""
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
    found = re.search(re.escape(LABEL_OUT_OF_RANGE) + r"\] \[(.*)\]", error.message)
    if isinstance(error, tf.errors.InvalidArgumentError) and found:
        return InputError(
            f"--data_dir {data_dir} has labels outside [0, {info.num_classes}), e.g. {found[1]}: its labels.txt lists "
            f"{info.num_classes} classes. Write the data again with prepare_data, or list every class in labels.txt."
        )
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
