"""One step function: training, the pre-flight's XLA check and the benchmark's FLOP count all run it, and its loss
includes the model's regularization losses (`model.losses`), as Keras fit's does."""

import keras
import pytest
import tensorflow as tf
from conftest import setup

from {{ cookiecutter.package_name }}.runtime import benchmark, preflight
from {{ cookiecutter.package_name }}.runtime.steps import Steps

L2 = 0.01


@pytest.fixture
def steps(data_dir):
    """Steps for the smoke config's model, with dropout off (so that two forward passes agree), and a batch."""
    params, task, _ = setup(data_dir)
    model = task.build_model()
    for layer in model._flatten_layers():
        if isinstance(layer, keras.layers.Dropout):
            layer.rate = 0.0
    optimizer = keras.optimizers.SGD()
    return Steps(tf.distribute.get_strategy(), task, model, optimizer, params.global_batch_size), task.example_batch(
        params.global_batch_size
    )


def regularize(model):
    """Puts an L2 penalty on every kernel, as kernel_regularizer=L2(L2) would; returns the penalty's value."""
    kernels = [w for w in model.trainable_weights if w.path.endswith("kernel")]
    for kernel in kernels:
        kernel.regularizer = keras.regularizers.L2(L2)
    return sum(L2 * float(tf.reduce_sum(tf.square(kernel))) for kernel in kernels)


def test_the_loss_of_a_regularized_model_exceeds_the_plain_one_by_the_penalty(steps):
    steps, batch = steps
    plain_loss, plain = steps.losses(batch, training=True)
    penalty = regularize(steps.model)
    loss, values = steps.losses(batch, training=True)
    assert penalty > 0
    assert float(loss) - float(plain_loss) == pytest.approx(penalty, rel=1e-4)  # one replica: the whole penalty
    assert float(tf.reduce_mean(values["loss"] - plain["loss"])) == pytest.approx(penalty, rel=1e-4)
    # The compiled step minimises the same loss.
    assert float(tf.function(steps.train_step, jit_compile=True)(batch)) == pytest.approx(float(loss), rel=1e-4)


def test_the_check_and_the_benchmark_run_the_training_step(steps, monkeypatch):
    steps, batch = steps
    flops = {}
    for regularized in (False, True):
        if regularized:
            regularize(steps.model)
        distributed = next(iter(steps.strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensors(batch))))
        flops[regularized] = benchmark.flops_per_example(steps, distributed, len(batch["inputs"]))
    assert flops[True] > flops[False], "the FLOP count includes the penalty"

    traced = []
    monkeypatch.setattr(Steps, "train_step", lambda self, b: traced.append(self) or tf.constant(0.0))
    assert preflight.xla_compiles(steps, batch).status == preflight.PASS
    benchmark.flops_per_example(steps, distributed, len(batch["inputs"]))
    assert traced[0] is steps and len(traced) == 2, "both traced Steps.train_step"
