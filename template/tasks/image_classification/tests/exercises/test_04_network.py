"""A network of your own: separable_cnn builds at two sizes, trains, and passes the shape and XLA pre-flight."""

import keras
import pytest
from conftest import run_main, setup

from {{ cookiecutter.package_name }}.runtime import preflight

pytestmark = pytest.mark.points(15)

SELECT = "build_model.network = @separable_cnn"


@pytest.mark.parametrize("sizes", [["separable_cnn.widths = (8,)"], ["separable_cnn.widths = (16, 32)"]])
def test_it_builds_from_its_hyperparameters(data_dir, sizes):
    _, task, info = setup(data_dir, SELECT, *sizes)
    model = task.build_model()
    assert any(isinstance(layer, keras.layers.DepthwiseConv2D) for layer in model.layers), (
        "it has no DepthwiseConv2D layer"
    )
    batch = task.example_batch(4)
    logits = model(batch["inputs"], training=False)
    assert tuple(logits.shape) == (4, len(info.class_names)) and logits.dtype == "float32"


def test_it_trains_and_passes_the_preflight(tmp_path, data_dir, capsys):
    assert run_main(tmp_path, data_dir, "--mode=train", f"--gin_param={SELECT}") is None
    capsys.readouterr()
    run_main(tmp_path, data_dir, "--mode=check", f"--gin_param={SELECT}")
    table = capsys.readouterr().out
    for check in ("no dynamic shapes in model", "XLA compiles a step"):
        line = next(line for line in table.splitlines() if check in line)
        assert f" {preflight.PASS} " in line, line
