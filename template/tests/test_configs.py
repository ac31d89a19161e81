"""Every shipped config parses and binds, and the hardware configs keep the TPU's rules."""

from pathlib import Path

import pytest
from conftest import setup

from {{ cookiecutter.package_name }}.runtime.config import build, parse_config
from {{ cookiecutter.package_name }}.runtime.params import RuntimeParams

CONFIGS = sorted((Path(__file__).resolve().parent.parent / "configs").glob("*.gin"))


def runtime_params(path, *bindings):
    parse_config([str(path)], list(bindings))
    return build(RuntimeParams)


@pytest.mark.parametrize("path", [c for c in CONFIGS if c.name != "runtime.gin"], ids=lambda p: p.name)
def test_config_parses_and_binds(path):
    params = runtime_params(path)  # binds the values; creates no strategy, so tpu.gin and gpu.gin work here
    assert params.global_batch_size > 0
    if path.name != "base.gin":
        assert "python -m" in path.read_text().split("include")[0], "a config starts with the command that runs it"


def test_hardware_configs_choose_their_strategy_and_precision():
    expected = {"cpu": ("cpu", "float32"), "gpu": ("gpu", "mixed_float16"), "tpu": ("tpu", "mixed_bfloat16")}
    for name, (strategy, precision) in expected.items():
        params = runtime_params(f"configs/{name}.gin")
        assert (params.strategy, params.precision) == (strategy, precision)


def test_tpu_config_fills_every_core_with_a_multiple_of_128_and_widths_of_8(data_dir):
    params, task, _ = setup(data_dir, config="configs/tpu.gin")
    assert params.global_batch_size % (params.tpu_cores * 128) == 0
    model = task.build_model()
    logits = model.outputs[0].shape[-1]
    widths = [w.shape[-1] for w in model.trainable_weights if len(w.shape) > 1 and w.shape[-1] != logits]
    assert widths and all(width % 8 == 0 for width in widths), widths


def test_gin_param_overrides_the_files():
    assert runtime_params("configs/cpu.gin", "Runtime.train_steps = 7").train_steps == 7
