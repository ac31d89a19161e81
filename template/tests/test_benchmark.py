"""--mode=benchmark writes every figure to benchmark.json, on one replica and on 8 logical CPU replicas."""

import json
import math

import pytest
import tensorflow as tf
from conftest import main_error, read, run_main, setup

RATES = ("input_examples_per_sec", "step_examples_per_sec", "e2e_examples_per_sec")


# Tracing the steps for 8 replicas takes half a minute: that case runs in the slow tier.
@pytest.mark.parametrize("replicas", [1, pytest.param(8, marks=pytest.mark.slow)])
def test_benchmark_writes_every_figure(tmp_path, data_dir, replicas, capsys):
    bindings = []
    if replicas > 1:
        tf.distribute.MirroredStrategy._collective_key_base = 1000 * replicas  # see test_replicas.py
        bindings = ["--gin_param=Runtime.strategy = 'cpu_replicas'", f"--gin_param=Runtime.cpu_replicas = {replicas}"]
    assert run_main(tmp_path, data_dir, "--mode=benchmark", *bindings) is None
    result = json.loads(read(tmp_path / "benchmark.json"))
    assert not (tmp_path / "checkpoints").exists(), "a benchmark trains but saves nothing"
    for key in (*RATES, "feed_ratio", "efficiency", "first_step_sec", "mfu", "peak_flops_per_sec"):
        assert math.isfinite(result[key]) and result[key] > 0, key
    assert result["replicas"] == replicas
    a, b, c = (result[key] for key in RATES)
    assert result["feed_ratio"] == pytest.approx(a / b)
    assert result["efficiency"] == pytest.approx(c / b)
    assert result["mfu"] == pytest.approx(result["flops_per_example"] * c / result["peak_flops_per_sec"])
    # A training step costs about three forward passes (the backward pass about two), whatever the network.
    forward = forward_flops_per_example(data_dir)
    assert 2.5 * forward <= result["flops_per_example"] <= 4 * forward, (result["flops_per_example"], forward)
    printed = capsys.readouterr().out
    assert "efficiency c/b" in printed and printed.rstrip().splitlines()[-1].split(":")[0] in (
        "Input-bound",
        "Host-bound",
        "Compute-bound",
    )


def test_benchmark_needs_positive_windows(tmp_path, data_dir, capsys):
    error = main_error(capsys, tmp_path, data_dir, "--mode=benchmark", "--gin_param=Runtime.benchmark_windows = 0")
    assert error == "Error: Runtime.benchmark_windows must be positive, not 0."


def forward_flops_per_example(data_dir):
    """The FLOPs of the smoke model's forward pass alone, counted by TensorFlow's profiler."""
    params, task, _ = setup(data_dir)
    model, batch = task.build_model(), task.example_batch(params.global_batch_size)
    spec = tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), batch["inputs"])
    graph = tf.function(lambda x: model(x, training=True)).get_concrete_function(spec).graph
    options = tf.compat.v1.profiler.ProfileOptionBuilder.float_operation()
    options = tf.compat.v1.profiler.ProfileOptionBuilder(options).with_empty_output().build()
    return tf.compat.v1.profiler.profile(graph=graph, options=options).total_float_ops / params.global_batch_size
