"""Bad input gets one line that names the cause and the fix, a non-zero exit, and leaves model_dir as it was."""

import inspect
import os
import re
import shutil

import gin
import pytest
from absl import flags
from conftest import PROJECT_DIR, SMOKE, main_error, main_process, run_main

from {{ cookiecutter.package_name }}.runtime.config import build, parse_config
from {{ cookiecutter.package_name }}.runtime.errors import InputError
from {{ cookiecutter.package_name }}.runtime.params import RuntimeParams


def files(path):
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in path.rglob("*")}


@pytest.fixture
def data_copy(tmp_path, data_dir):
    """A copy of the test data that a test may damage."""
    return shutil.copytree(data_dir, tmp_path / "data")


def test_a_missing_data_dir_says_how_to_make_one(tmp_path, capsys):
    error = main_error(capsys, tmp_path / "run", tmp_path / "nowhere", "--mode=train")
    assert re.search(r"has no labels.txt; make one with `python -m \w+\.prepare_data --output_dir .*nowhere`", error)
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
    error = main_error(capsys, trained, data_copy, "--mode=train", "--gin_param=Runtime.train_steps = 8")
    assert f"train-00001-of-00002.tfrecord has {size // 2} bytes, not the {size} that were written" in error
    assert files(trained) == before


def test_a_corrupt_record_stops_training_with_the_shard_named(data_copy, trained, capsys):
    shard = data_copy / "train-00000-of-00002.tfrecord"
    damaged = bytearray(shard.read_bytes())
    damaged[len(damaged) // 3] ^= 0xFF  # same size, so only reading finds it
    shard.write_bytes(bytes(damaged))
    checkpoints = files(trained / "checkpoints")
    error = main_error(capsys, trained, data_copy, "--mode=train", "--gin_param=Runtime.train_steps = 40")
    assert re.search(r"damaged \(corrupted record at \d+; the corrupt shard is train-00000-of-00002.tfrecord\)", error)
    assert files(trained / "checkpoints") == checkpoints, "no checkpoint was written or removed"


def test_a_label_outside_num_classes_stops_training_with_the_examples_named(data_copy, tmp_path, capsys):
    # Two classes listed, but the shards hold more: as when labels.txt and the shards come from different runs.
    labels = data_copy / "labels.txt"
    labels.write_text("".join(labels.read_text().splitlines(keepends=True)[:2]))
    error = main_error(capsys, tmp_path / "run", data_copy, "--mode=train")
    assert re.search(r"has labels outside \[0, 2\), e.g. train/\S+ \(label [2-9]\)", error), "names examples"
    assert "its labels.txt lists 2 classes" in error


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Runtime.trian_steps = 5", "line 3: Runtime has no parameter 'trian_steps'; did you mean 'train_steps'?"),
        ("Runtme.train_steps = 5", "line 3: nothing is configurable as 'Runtme'; did you mean 'Runtime'?"),
        (
            "train_steps = 5",
            "line 3: `train_steps = ...` binds a gin macro that nothing reads; write Runtime.train_steps.",
        ),
        ("Runtime.train_steps = = 5", "line 3: gin cannot parse 'Runtime.train_steps = = 5'"),
        ("Runtime.train_steps = 'many'", "Runtime.train_steps must be an int, not 'many'."),
        ("Runtime.precision = 'float64'", "Runtime.precision must be one of 'float32', 'mixed_bfloat16', 'mixed"),
        ("Task.shuffle_buffer = 0", "Task.shuffle_buffer must be positive, not 0."),
    ],
    ids=["parameter", "configurable", "macro", "syntax", "type", "choice", "positive"],
)
def test_a_typo_in_a_gin_file_names_the_file_the_line_and_the_nearest_name(tmp_path, line, expected):
    path = tmp_path / "mine.gin"
    path.write_text(f"include 'configs/smoke.gin'\n\n{line}\n")
    with pytest.raises(InputError) as error:
        parse_config([str(path)], [])
    assert expected in str(error.value)
    if "line 3" in expected:
        assert str(error.value).startswith(f"{path}, line 3: ")


def test_a_network_hyperparameter_of_the_wrong_type_is_named():
    # Whatever network model.py holds: its annotated hyperparameters are checked like the runtime's and the task's.
    parse_config([SMOKE], [])
    network = gin.query_parameter("build_model.network").configurable
    parameters = inspect.signature(network.wrapped).parameters.values()
    name = next(p.name for p in parameters if p.annotation not in (inspect.Parameter.empty, str))
    with pytest.raises(InputError, match=rf"^{network.name}\.{name} must be .*, not 'many'\.$"):
        parse_config([SMOKE], [f"{network.name}.{name} = 'many'"])


def test_a_config_that_leaves_a_hyperparameter_unbound_names_it(tmp_path):
    path = tmp_path / "partial.gin"
    lines = (PROJECT_DIR / "configs" / "runtime.gin").read_text().splitlines(keepends=True)
    path.write_text("".join(line for line in lines if not line.startswith("Runtime.seed")))
    parse_config([str(path)], [])
    with pytest.raises(InputError, match=r"^No config binds Runtime.seed, .*: bind each in configs/runtime.gin"):
        build(RuntimeParams)


def test_a_typo_in_a_gin_param_names_the_binding():
    with pytest.raises(InputError) as error:
        parse_config([SMOKE], ["Runtime.train_steps = 5", "Runtime.eval_evry = 5"])
    assert str(error.value) == (
        "--gin_param 'Runtime.eval_evry = 5': Runtime has no parameter 'eval_evry'; did you mean 'eval_every'?"
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
    result = main_process(
        "--gin_file=configs/cpu.gin",
        f"--model_dir={tmp_path}",
        f"--data_dir={tmp_path / 'nowhere'}",
        timeout=120,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("Error: --data_dir ")
