"""Bad input gets one line that names the cause and the fix, a non-zero exit, and leaves model_dir as it was."""

import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf
from absl import flags
from conftest import PROJECT_DIR, SMOKE, main_error, run_main

from {{ cookiecutter.package_name }} import prepare_data
from {{ cookiecutter.package_name }}.config import parse_config
from {{ cookiecutter.package_name }}.errors import InputError


def files(path):
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in path.rglob("*")}


@pytest.fixture
def data_copy(tmp_path, data_dir):
    """A copy of the test data that a test may damage."""
    return shutil.copytree(data_dir, tmp_path / "data")


def test_a_missing_data_dir_says_how_to_make_one(tmp_path, capsys):
    error = main_error(capsys, tmp_path / "run", tmp_path / "nowhere", "--mode=train")
    assert re.search(r"has no labels.txt; make one with `python -m \w+.prepare_data --output_dir .*nowhere`", error)
    assert not (tmp_path / "run").exists()


def test_a_data_dir_without_its_shards_names_them(data_copy, tmp_path, capsys):
    for shard in data_copy.glob("train-*.tfrecord"):
        shard.unlink()
    error = main_error(capsys, tmp_path / "run", data_copy, "--mode=train")
    assert "is damaged: train-00000-of-00002.tfrecord is missing; train-00001-of-00002.tfrecord is missing." in error
    assert "Write the data again" in error


def test_a_truncated_shard_is_found_before_training(data_copy, trained, capsys):
    shard = data_copy / "train-00001-of-00002.tfrecord"
    size = shard.stat().st_size
    shard.write_bytes(shard.read_bytes()[: size // 2])
    before = files(trained)
    error = main_error(capsys, trained, data_copy, "--mode=train", "--gin_param=Params.train_steps = 8")
    assert f"train-00001-of-00002.tfrecord has {size // 2} bytes, not the {size} that were written" in error
    assert files(trained) == before


def test_a_corrupt_record_stops_training_with_the_shard_named(data_copy, trained, capsys):
    shard = data_copy / "train-00000-of-00002.tfrecord"
    damaged = bytearray(shard.read_bytes())
    damaged[len(damaged) // 3] ^= 0xFF  # same size, so only reading finds it
    shard.write_bytes(bytes(damaged))
    checkpoints = files(trained / "checkpoints")
    error = main_error(capsys, trained, data_copy, "--mode=train", "--gin_param=Params.train_steps = 40")
    assert re.search(r"damaged \(corrupted record at \d+; the corrupt shard is train-00000-of-00002.tfrecord\)", error)
    assert files(trained / "checkpoints") == checkpoints, "no checkpoint was written or removed"


def test_a_label_outside_num_classes_stops_training_with_the_examples_named(data_copy, tmp_path, capsys):
    # Three classes listed, but the shards hold labels 0-4: as when labels.txt and the shards come from different runs.
    (data_copy / "labels.txt").write_text("circle\nsquare\ntriangle\n")
    error = main_error(capsys, tmp_path / "run", data_copy, "--mode=train")
    assert re.search(r"has labels outside \[0, 3\), e.g. train/\d+\.png \(label [34]\)", error), "names examples"
    assert "its labels.txt lists 3 classes" in error


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Params.trian_steps = 5", "line 3: Params has no parameter 'trian_steps'; did you mean 'train_steps'?"),
        ("Parms.train_steps = 5", "line 3: nothing is configurable as 'Parms'; did you mean 'Params'?"),
        (
            "train_steps = 5",
            "line 3: `train_steps = ...` binds a gin macro that nothing reads; write Params.train_steps.",
        ),
        ("Params.train_steps = = 5", "line 3: gin cannot parse 'Params.train_steps = = 5'"),
        ("Params.train_steps = 'many'", "Params.train_steps must be an int, not 'many'."),
        ("Params.widths = 16", "Params.widths must be a tuple like (16, 32), not 16."),
    ],
    ids=["parameter", "configurable", "macro", "syntax", "type", "tuple"],
)
def test_a_typo_in_a_gin_file_names_the_file_the_line_and_the_nearest_name(tmp_path, line, expected):
    path = tmp_path / "mine.gin"
    path.write_text(f"include 'configs/smoke.gin'\n\n{line}\n")
    with pytest.raises(InputError) as error:
        parse_config([str(path)], [])
    assert expected in str(error.value)
    if "line 3" in expected:
        assert str(error.value).startswith(f"{path}, line 3: ")


def test_a_typo_in_a_gin_param_names_the_binding():
    with pytest.raises(InputError) as error:
        parse_config([SMOKE], ["Params.train_steps = 5", "Params.eval_evry = 5"])
    assert str(error.value) == (
        "--gin_param 'Params.eval_evry = 5': Params has no parameter 'eval_evry'; did you mean 'eval_every'?"
    )


def test_an_include_that_does_not_exist_lists_the_configs(tmp_path):
    path = tmp_path / "mine.gin"
    path.write_text("include 'configs/cpuu.gin'\n")
    with pytest.raises(InputError, match=r"line 1: the included configs/cpuu.gin does not exist; the configs in"):
        parse_config([str(path)], [])


def test_a_gin_file_that_does_not_exist_lists_the_configs(tmp_path, data_dir, capsys):
    error = main_error(capsys, tmp_path, data_dir, "--gin_file=configs/cpuu.gin")
    assert error.startswith("Error: --gin_file configs/cpuu.gin does not exist; the configs in configs are base.gin,")


def test_an_unknown_mode_lists_the_modes(tmp_path, data_dir):
    with pytest.raises(flags.IllegalFlagValueError, match="value should be one of <train|eval|train_and_eval|"):
        run_main(tmp_path, data_dir, "--mode=trian")


@pytest.mark.slow  # a process of its own: the tests above check the same messages in this one
def test_the_command_line_prints_one_line_and_no_traceback(tmp_path):
    command = [sys.executable, "-m", f"{__package__ or '{{ cookiecutter.package_name }}'}.main"]
    result = subprocess.run(
        [*command, "--gin_file=configs/cpu.gin", f"--model_dir={tmp_path}", f"--data_dir={tmp_path / 'nowhere'}"],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("Error: --data_dir ")


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
