"""Writes a dataset as TFRecord shards, with its label file and vocabulary, that training reads with --data_dir.

    python -m {{ cookiecutter.package_name }}.prepare_data --output_dir data/reviews
    python -m {{ cookiecutter.package_name }}.prepare_data --output_dir data/mine \\
        --text_dir path/to/texts
    python -m {{ cookiecutter.package_name }}.prepare_data --output_dir data/mine \\
        --csv reviews.csv --text_column review --label_column stars

The first writes the embedded reviews dataset, generated deterministically. The second converts a folder laid out
as <text_dir>/<class name>/<file>.txt, one example per UTF-8 file; the third a CSV file with a text and a label
column. Class names (folder names, or the label column's values) become labels in sorted order, and each example
goes to train or eval by a hash of its path (or of its text, for a CSV), so the split never changes when you add
examples. The vocabulary is built from the training split. An empty or undecodable example, or a class folder
without examples, stops the conversion before anything is written; --skip_bad_files leaves them out instead.
"""

import argparse
import csv
import os
import sys

import tensorflow as tf

from . import preprocessing, reviews
from .input_pipeline import serialize_example
from .runtime import records
from .runtime.errors import InputError


def scan_text_folder(text_dir):
    """Returns ([(key, text, class name), ...], bad file paths, class folders without texts) of <class>/<file>.txt."""
    if not os.path.isdir(text_dir):
        raise InputError(f"--text_dir {text_dir} is not a folder; lay it out as {text_dir}/<class>/<file>.txt.")
    folders = sorted(e.name for e in os.scandir(text_dir) if e.is_dir() and not e.name.startswith("."))
    if not folders:
        raise InputError(f"--text_dir {text_dir} has no class folders; lay it out as {text_dir}/<class>/<file>.txt.")
    examples, bad_files, empty_folders = [], [], []
    for name in folders:
        files = sorted(f for f in os.listdir(os.path.join(text_dir, name)) if f.endswith(".txt") and f[0] != ".")
        texts = {os.path.join(name, file): _read_text(os.path.join(text_dir, name, file)) for file in files}
        bad_files += [path for path, text in texts.items() if text is None]
        good = [(path, text, name) for path, text in texts.items() if text is not None]
        examples += good
        if not good:
            empty_folders.append(name)
    return examples, bad_files, empty_folders


def scan_csv(path, text_column, label_column):
    """Returns ([(key, text, class name), ...], bad rows, []) of a CSV file with a header line."""
    if not os.path.isfile(path):
        raise InputError(f"--csv {path} is not a file.")
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in (text_column, label_column) if c not in (reader.fieldnames or ())]
        if missing:
            columns = ", ".join(reader.fieldnames or ()) or "none"
            raise InputError(
                f"--csv {path} has no column {' or '.join(map(repr, missing))} (its columns: {columns}); name the "
                "right ones with --text_column and --label_column."
            )
        rows = [(f"{os.path.basename(path)}:{reader.line_num}", row) for row in reader]
    examples, bad_rows = [], []
    for key, row in rows:
        text, label = (row[text_column] or "").strip(), (row[label_column] or "").strip()
        if text and label and _decodes(text + label):
            examples.append((key, text, label))
        else:
            bad_rows.append(key)
    return examples, bad_rows, []


def write_examples(examples, output_dir, eval_fraction, num_shards, vocabulary_size, split_by_text=False):
    """Writes [(key, text, class name), ...] as train and eval shards, labels.txt and vocabulary.txt."""
    class_names = sorted({name for _, _, name in examples})
    labels = {name: label for label, name in enumerate(class_names)}
    splits = {split: [] for split in records.SPLITS}
    for key, text, name in examples:
        splits["eval" if records.is_eval(text if split_by_text else key, eval_fraction) else "train"].append(
            (key, text, labels[name])
        )
    empty = [split for split, chosen in splits.items() if not chosen]
    if empty:
        raise InputError(f"No example went to {empty[0]}: give more examples, or another --eval_fraction.")
    write(output_dir, splits, class_names, num_shards, vocabulary_size)


def write_reviews(output_dir, num_train, num_eval, seed, num_shards, vocabulary_size):
    """Writes the embedded reviews; train and eval are drawn with different seeds, so they never overlap."""
    splits = {}
    for split, count, split_seed in (("train", num_train, seed), ("eval", num_eval, seed + 1)):
        texts, labels = reviews.generate(count, split_seed)
        splits[split] = [
            (f"{split}/{i:06d}", text, int(label)) for i, (text, label) in enumerate(zip(texts, labels, strict=True))
        ]
    write(output_dir, splits, reviews.CLASS_NAMES, num_shards, vocabulary_size)


def write(output_dir, splits, class_names, num_shards, vocabulary_size):
    """Writes {split: [(key, text, label), ...]} as shards, with labels.txt and the training split's vocabulary."""
    tf.io.gfile.makedirs(output_dir)
    vocabulary = preprocessing.build_vocabulary([text for _, text, _ in splits["train"]], vocabulary_size)
    with tf.io.gfile.GFile(os.path.join(output_dir, preprocessing.VOCABULARY_FILE), "w") as f:
        f.write("".join(f"{word}\n" for word in vocabulary))
    shards = {
        split: records.write_split(
            (serialize_example(text, label, key) for key, text, label in chosen), output_dir, split, num_shards
        )
        for split, chosen in splits.items()
    }
    records.write_info(output_dir, class_names, shards)  # the index last: a folder with one is complete


def _read_text(path):
    """The file's text, or None when it is empty or not UTF-8."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8").strip()
    except UnicodeDecodeError:
        return None
    return text or None


def _decodes(text):
    """False where the CSV reader kept undecodable bytes (as lone surrogates)."""
    return not any("\udc80" <= ch <= "\udcff" for ch in text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output_dir", required=True, help="where to write the shards (local or gs://)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--text_dir", help="a folder of class folders of .txt files, instead of the reviews dataset")
    source.add_argument("--csv", help="a CSV file with a header line, instead of the reviews dataset")
    parser.add_argument("--text_column", default="text", help="CSV: the column of the texts")
    parser.add_argument("--label_column", default="label", help="CSV: the column of the class names")
    parser.add_argument(
        "--skip_bad_files",
        action="store_true",
        help="leave out empty or undecodable examples and class folders without texts, instead of stopping",
    )
    parser.add_argument("--eval_fraction", type=float, default=0.1, help="share of examples that go to eval")
    parser.add_argument("--vocabulary_size", type=int, default=8000, help="words kept, most frequent first")
    parser.add_argument("--num_train", type=int, default=40000, help="reviews dataset: training examples")
    parser.add_argument("--num_eval", type=int, default=2000, help="reviews dataset: evaluation examples")
    parser.add_argument("--seed", type=int, default=0, help="reviews dataset: random seed")
    parser.add_argument("--num_shards", type=int, default=4, help="shards per split")
    args = parser.parse_args(argv)
    try:
        if args.text_dir or args.csv:
            convert(args)
        else:
            write_reviews(
                args.output_dir, args.num_train, args.num_eval, args.seed, args.num_shards, args.vocabulary_size
            )
        info = records.load_info(args.output_dir)
    except InputError as error:
        parser.error(str(error))  # usage, the message, and exit status 2
    counts = ", ".join(f"{split} {info.num_examples(split)}" for split in records.SPLITS)
    print(f"Wrote {counts} examples of {info.num_classes} classes to {args.output_dir}")


def convert(args):
    """Converts --text_dir or --csv, after checking every example: nothing is written if it stops."""
    if args.text_dir:
        source = f"--text_dir {args.text_dir}"
        examples, bad, empty = scan_text_folder(args.text_dir)
        bad_kind = ("file that is empty or not UTF-8", "files that are empty or not UTF-8")
    else:
        source = f"--csv {args.csv}"
        examples, bad, empty = scan_csv(args.csv, args.text_column, args.label_column)
        bad_kind = ("row with an empty or undecodable text or label", "rows with an empty or undecodable text or label")
    problems = records.counted(bad, *bad_kind) + records.counted(
        empty, "class folder without texts", "class folders without texts"
    )
    if problems and not args.skip_bad_files:
        raise InputError(
            f"{source} has {' and '.join(problems)}: remove them, or pass --skip_bad_files to leave them out."
        )
    if problems:
        print(f"Skipped {' and '.join(problems)}.", file=sys.stderr)
    if not examples:
        raise InputError(f"{source} has no examples to write.")
    write_examples(
        examples,
        args.output_dir,
        args.eval_fraction,
        args.num_shards,
        args.vocabulary_size,
        split_by_text=bool(args.csv),
    )


if __name__ == "__main__":
    main()
