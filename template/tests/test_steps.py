"""One step function: training, the pre-flight's XLA check and the benchmark's FLOP count all run it, and its loss
includes the model's regularization losses (`model.losses`), as Keras fit's does."""

import keras
import numpy as np
import pytest
import tensorflow as tf
from conftest import setup

from {{ cookiecutter.package_name }}.runtime import benchmark, preflight
from {{ cookiecutter.package_name }}.runtime.optimizer import build_optimizer
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


@pytest.mark.parametrize("name", ["sgd", "adamw"])
def test_the_learning_rate_is_computed_once_per_step_and_follows_the_schedule(data_dir, name, monkeypatch):
    params, _, _ = setup(data_dir, f"Runtime.optimizer = '{name}'", "Runtime.weight_decay = 0.5")
    schedule = keras.optimizers.schedules.CosineDecay
    calls = []
    monkeypatch.setattr(
        schedule, "__call__", lambda self, step, call=schedule.__call__: calls.append(step) or call(self, step)
    )
    optimizer = build_optimizer(params)
    variables = [keras.Variable(np.ones(3, "float32")) for _ in range(4)]
    optimizer.build(variables)

    @tf.function
    def step():
        # Zero gradients: only the weight decay moves the variables, by weight_decay x the step's learning rate.
        optimizer.apply_gradients(zip([tf.zeros(3)] * len(variables), variables, strict=True))

    step.get_concrete_function()
    assert len(calls) == 1, "the step's graph evaluates the schedule once, not once per variable"
    expected = 1.0
    for _ in range(params.train_steps):
        expected *= 1 - params.weight_decay * float(optimizer.learning_rate)  # eager: the schedule at this step
        step()
        for variable in variables:
            np.testing.assert_allclose(variable.numpy(), expected, rtol=1e-6)
    assert expected < 1, "the schedule was above zero at some step"
