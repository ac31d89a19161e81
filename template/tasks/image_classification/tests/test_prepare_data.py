"""The embedded dataset and the image-folder converter write what training reads, and refuse bad files."""

import numpy as np
import pytest
import tensorflow as tf
from conftest import NUM_EVAL, setup

from {{ cookiecutter.package_name }} import prepare_data, shapes
from {{ cookiecutter.package_name }}.runtime import records


def test_shapes_are_deterministic_and_cover_every_class():
    images, labels = shapes.generate(200, 16, seed=3)
    again, _ = shapes.generate(200, 16, seed=3)
    np.testing.assert_array_equal(images, again)
    assert images.shape == (200, 16, 16, 3) and images.dtype == np.uint8
    assert set(labels) == set(range(len(shapes.CLASS_NAMES)))


def test_embedded_dataset_index_matches_the_shards(data_dir):
    info = records.load_info(data_dir)
    assert info.class_names == shapes.CLASS_NAMES
    assert info.num_examples("train") == 96 and info.num_examples("eval") == NUM_EVAL
    assert sum(1 for _ in tf.data.TFRecordDataset(info.files("eval"))) == NUM_EVAL
    assert records.read_keys(info.files("eval"))[0] == "eval/000000.png"


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
    infos = [records.load_info(str(p)) for p in out]
    assert infos[0].class_names == ("cats", "dogs", "owls")
    assert infos[0].num_examples("train") + infos[0].num_examples("eval") == 75
    assert 10 <= infos[0].num_examples("eval") <= 35
    keys = [sorted(records.read_keys(info.files("eval"))) for info in infos]
    assert keys[0] == keys[1], "the same images go to eval every time"


def test_image_folder_trains_through_the_real_pipeline(tmp_path):
    write_image_folder(tmp_path / "images", {"cats": (12, 20), "dogs": (12, 40)})
    convert(tmp_path / "images", tmp_path / "d", 0.4)
    _, task, info = setup(str(tmp_path / "d"))
    assert task.class_names == ("cats", "dogs") == info.class_names
    batch = next(iter(task.input_pipeline("train", True, 8)(tf.distribute.InputContext())))
    assert set(batch["label"].numpy()) <= {0, 1}


def test_configured_num_classes_that_disagrees_with_the_label_file_is_an_error(data_dir):
    with pytest.raises(ValueError, match="num_classes = 3 but the data has 5 classes"):
        setup(data_dir, "Task.num_classes = 3")


def test_image_folder_with_bad_files_stops_or_skips_them_as_asked(tmp_path, capsys):
    images = tmp_path / "images"
    for name in ("cats", "dogs"):
        (images / name).mkdir(parents=True)
    png = tf.io.encode_png(np.zeros((8, 8, 3), np.uint8)).numpy()
    for i in range(3):
        (images / "cats" / f"{i}.png").write_bytes(png)
        (images / "dogs" / f"{i}.jpg").write_bytes(png)  # a PNG named .jpg decodes: content counts, not names
    (images / "cats" / "notes.txt").write_text("not an image")
    (images / "dogs" / "broken.png").write_bytes(b"not a png")
    (images / "dogs" / ".DS_Store").write_bytes(b"\0")  # hidden files are ignored
    (images / "owls").mkdir()
    command = ["--image_dir", str(images), "--output_dir", str(tmp_path / "out")]

    with pytest.raises(SystemExit) as stop:
        prepare_data.main(command)
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert (
        "has 2 files that are not decodable images (cats/notes.txt, dogs/broken.png) and 1 class folder without "
        "images (owls): remove them, or pass --skip_bad_files to leave them out." in error
    )
    assert not (tmp_path / "out").exists(), "nothing is written when it stops"

    prepare_data.main([*command, "--skip_bad_files"])
    assert "Skipped 2 files that are not decodable images (cats/notes.txt, dogs/broken.png) and 1 class folder" in (
        capsys.readouterr().err
    )
    assert (tmp_path / "out" / "labels.txt").read_text() == "cats\ndogs\n"
