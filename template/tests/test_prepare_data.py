"""The embedded dataset and the image-folder converter write what training reads."""

import numpy as np
import pytest
import tensorflow as tf
from conftest import NUM_EVAL, SMOKE

from {{ cookiecutter.package_name }} import dataset, prepare_data, shapes
from {{ cookiecutter.package_name }}.config import parse_config


def test_shapes_are_deterministic_and_cover_every_class():
    images, labels = shapes.generate(200, 16, seed=3)
    again, _ = shapes.generate(200, 16, seed=3)
    np.testing.assert_array_equal(images, again)
    assert images.shape == (200, 16, 16, 3) and images.dtype == np.uint8
    assert set(labels) == set(range(len(shapes.CLASS_NAMES)))


def test_embedded_dataset_index_matches_the_shards(data_dir):
    info = dataset.load_info(data_dir)
    assert info.class_names == shapes.CLASS_NAMES
    assert info.num_examples("train") == 96 and info.num_examples("eval") == NUM_EVAL
    assert sum(1 for _ in tf.data.TFRecordDataset(info.files("eval"))) == NUM_EVAL
    assert dataset.read_keys(info.files("eval"))[0] == "eval/000000.png"


def write_image_folder(root, classes):
    for name, (count, size) in classes.items():
        (root / name).mkdir(parents=True)
        for i in range(count):
            pixels = np.full((size, size + i, 3), 40 * i % 256, np.uint8)
            (root / name / f"{i:03d}.png").write_bytes(tf.io.encode_png(pixels).numpy())


def convert(image_dir, output_dir, eval_fraction):
    prepare_data.main(
        ["--image_dir", str(image_dir), "--output_dir", str(output_dir), f"--eval_fraction={eval_fraction}"]
    )


def test_image_folder_converts_with_a_stable_split(tmp_path):
    write_image_folder(tmp_path / "images", {"cats": (30, 20), "dogs": (25, 24), "owls": (20, 18)})
    out = [tmp_path / "a", tmp_path / "b"]
    for path in out:
        convert(tmp_path / "images", path, 0.3)
    infos = [dataset.load_info(str(p)) for p in out]
    assert infos[0].class_names == ("cats", "dogs", "owls")
    assert infos[0].num_examples("train") + infos[0].num_examples("eval") == 75
    assert 10 <= infos[0].num_examples("eval") <= 35
    keys = [sorted(dataset.read_keys(info.files("eval"))) for info in infos]
    assert keys[0] == keys[1], "the same images go to eval every time"


def test_image_folder_trains_through_the_real_pipeline(tmp_path):
    write_image_folder(tmp_path / "images", {"cats": (12, 20), "dogs": (12, 40)})
    convert(tmp_path / "images", tmp_path / "d", 0.4)
    params, info = dataset.load(parse_config([SMOKE], []), str(tmp_path / "d"))
    assert params.num_classes == 2 == info.num_classes


def test_configured_num_classes_that_disagrees_with_the_label_file_is_an_error(data_dir):
    params = parse_config([SMOKE], ["Params.num_classes = 3"])
    with pytest.raises(ValueError, match="num_classes = 3 but .* has 5 classes"):
        dataset.load(params, data_dir)
