"""Every shipped config parses and binds, and the hardware configs keep the TPU's rules."""

from pathlib import Path

import pytest

from {{ cookiecutter.package_name }}.config import parse_config

CONFIGS = sorted((Path(__file__).resolve().parent.parent / "configs").glob("*.gin"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_config_parses_and_binds(path):
    params = parse_config([str(path)], [])  # binds Params; creates no strategy, so tpu.gin and gpu.gin work here
    assert params.global_batch_size > 0
    if path.name != "base.gin":
        assert "python -m" in path.read_text().split("include")[0], "a config starts with the command that runs it"


def test_hardware_configs_choose_their_strategy_and_precision():
    expected = {"cpu": ("cpu", "float32"), "gpu": ("gpu", "mixed_float16"), "tpu": ("tpu", "mixed_bfloat16")}
    for name, (strategy, precision) in expected.items():
        params = parse_config([f"configs/{name}.gin"], [])
        assert (params.strategy, params.precision) == (strategy, precision)


def test_tpu_config_fills_eight_cores_with_multiples_of_128():
    params = parse_config(["configs/tpu.gin"], [])
    assert params.global_batch_size % (8 * 128) == 0
    assert all(width % 8 == 0 for width in params.widths)


def test_cpu_config_does_not_compile_with_xla():
    assert not parse_config(["configs/cpu.gin"], []).jit_compile


def test_gin_param_overrides_the_files():
    params = parse_config(["configs/cpu.gin"], ["Params.train_steps = 7"])
    assert params.train_steps == 7
