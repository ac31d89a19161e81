"""Writes a dataset as TFRecord shards that training reads with --data_dir.

    python -m {{ cookiecutter.package_name }}.prepare_data --output_dir data/shapes
    python -m {{ cookiecutter.package_name }}.prepare_data --output_dir data/mine \\
        --image_dir path/to/images

The first writes the embedded shapes dataset, generated deterministically. The second converts a folder laid out
as <image_dir>/<class name>/<image> (PNG, JPEG, GIF or BMP): each class directory becomes a label (in sorted
order) and each image goes to train or eval by a hash of its path, so the split never changes when you add
images. A file that is not an image, or a class folder without images, stops the conversion before anything is
written; --skip_bad_files leaves them out instead.
"""

import argparse
import os
import sys

import tensorflow as tf

from . import preprocessing, shapes
from .input_pipeline import serialize_example
from .runtime import records
from .runtime.errors import InputError


def write_shapes(output_dir, num_train, num_eval, image_size, seed, num_shards):
    """Writes the embedded shapes dataset; train and eval are drawn with different seeds, so they never overlap."""
    tf.io.gfile.makedirs(output_dir)
    shards = {}
    for split, count, split_seed in (("train", num_train, seed), ("eval", num_eval, seed + 1)):
        images, labels = shapes.generate(count, image_size, split_seed)
        examples = (
            serialize_example(tf.io.encode_png(image).numpy(), int(label), f"{split}/{i:06d}.png")
            for i, (image, label) in enumerate(zip(images, labels, strict=True))
        )
        shards[split] = records.write_split(examples, output_dir, split, num_shards)
    records.write_info(output_dir, shapes.CLASS_NAMES, shards)


def scan_image_folder(image_dir, skip_bad_files):
    """Returns (class names, [(relative path, label), ...]) for a folder of class folders, every image decoded once.

    Files that are not decodable images and class folders without images stop the conversion with a list of them,
    or with `skip_bad_files` are left out with a warning that counts them. Hidden files (.DS_Store) are ignored.
    """
    if not os.path.isdir(image_dir):
        raise InputError(f"--image_dir {image_dir} is not a folder; lay it out as {image_dir}/<class>/<image>.")
    folders = sorted(e.name for e in os.scandir(image_dir) if e.is_dir() and not e.name.startswith("."))
    if not folders:
        raise InputError(f"--image_dir {image_dir} has no class folders; lay it out as {image_dir}/<class>/<image>.")
    images, bad_files, empty_folders = {}, [], []
    for name in folders:
        files = sorted(f for f in os.listdir(os.path.join(image_dir, name)) if not f.startswith("."))
        paths = [os.path.join(name, file) for file in files]
        good = [path for path in paths if _decodes(os.path.join(image_dir, path))]
        bad_files += sorted(set(paths) - set(good))
        if good:
            images[name] = good
        else:
            empty_folders.append(name)
    problems = records.counted(
        bad_files, "file that is not a decodable image", "files that are not decodable images"
    ) + records.counted(empty_folders, "class folder without images", "class folders without images")
    if problems and not skip_bad_files:
        raise InputError(
            f"--image_dir {image_dir} has {' and '.join(problems)}: remove them, or pass --skip_bad_files to leave "
            "them out."
        )
    if problems:
        print(f"Skipped {' and '.join(problems)}.", file=sys.stderr)
    class_names = sorted(images)
    return class_names, [(path, label) for label, name in enumerate(class_names) for path in images[name]]


def write_image_folder(image_dir, output_dir, eval_fraction, num_shards, skip_bad_files=False):
    """Converts a folder of class folders into train and eval shards; images are stored as they are encoded."""
    class_names, images = scan_image_folder(image_dir, skip_bad_files)
    tf.io.gfile.makedirs(output_dir)
    shards = {}
    for split in records.SPLITS:
        chosen = [(path, label) for path, label in images if records.is_eval(path, eval_fraction) == (split == "eval")]
        examples = (_read_example(image_dir, path, label) for path, label in chosen)
        shards[split] = records.write_split(examples, output_dir, split, num_shards)
    records.write_info(output_dir, class_names, shards)


def _decodes(path):
    if not os.path.isfile(path):
        return False
    try:
        preprocessing.decode(tf.io.read_file(path))
    except tf.errors.InvalidArgumentError:
        return False
    return True


def _read_example(image_dir, relative_path, label):
    with tf.io.gfile.GFile(os.path.join(image_dir, relative_path), "rb") as f:
        return serialize_example(f.read(), label, relative_path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output_dir", required=True, help="where to write the shards (local or gs://)")
    parser.add_argument("--image_dir", help="a folder of class folders to convert, instead of the shapes dataset")
    parser.add_argument(
        "--skip_bad_files",
        action="store_true",
        help="leave out files that are not images and class folders without images, instead of stopping",
    )
    parser.add_argument("--eval_fraction", type=float, default=0.1, help="share of images that go to eval")
    parser.add_argument("--num_train", type=int, default=10000, help="shapes dataset: training examples")
    parser.add_argument("--num_eval", type=int, default=2000, help="shapes dataset: evaluation examples")
    parser.add_argument("--image_size", type=int, default=32, help="shapes dataset: image height and width")
    parser.add_argument("--seed", type=int, default=0, help="shapes dataset: random seed")
    parser.add_argument("--num_shards", type=int, default=4, help="shards per split")
    args = parser.parse_args(argv)
    try:
        if args.image_dir:
            write_image_folder(
                args.image_dir, args.output_dir, args.eval_fraction, args.num_shards, args.skip_bad_files
            )
        else:
            write_shapes(args.output_dir, args.num_train, args.num_eval, args.image_size, args.seed, args.num_shards)
        info = records.load_info(args.output_dir)
    except InputError as error:
        parser.error(str(error))  # usage, the message, and exit status 2
    counts = ", ".join(f"{split} {info.num_examples(split)}" for split in records.SPLITS)
    print(f"Wrote {counts} examples of {info.num_classes} classes to {args.output_dir}")


if __name__ == "__main__":
    main()
