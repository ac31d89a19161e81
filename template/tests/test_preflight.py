"""--mode=check: each check passes on the shipped configs and names the fault planted for it."""

import keras
import pytest
import tensorflow as tf
from conftest import main_process, run_main

from {{ cookiecutter.package_name }}.runtime import preflight
from {{ cookiecutter.package_name }}.runtime.config import build, parse_config
from {{ cookiecutter.package_name }}.runtime.params import RuntimeParams
from {{ cookiecutter.package_name }}.runtime.preflight import FAIL, PASS, WARN, Target
from {{ cookiecutter.package_name }}.runtime.steps import Steps

TPU = Target("tpu", 8)
TPU_NODE = Target("tpu", 8, tpu_node=True)


def batches(**spec):
    """A dataset of dict batches from {name: tensor}."""
    return tf.data.Dataset.from_tensor_slices({name: tf.zeros(shape) for name, shape in spec.items()})


class PlantedTask:
    """A task whose model adds fn(x) (a scalar) to its input, then classifies it: the fault under test is fn."""

    def __init__(self, fn=lambda x: 0.0, widths=(8,)):
        self.fn, self.widths = fn, widths

    def build_model(self):
        fn = self.fn

        class Planted(keras.layers.Layer):
            def call(self, x):
                return x + fn(x)

            def compute_output_shape(self, shape):
                return shape

        inputs = keras.Input((8, 8, 3))
        x = Planted(name="planted")(inputs)
        for width in self.widths:
            x = keras.layers.Conv2D(width, 3, padding="same")(x)
        return keras.Model(inputs, keras.layers.Dense(3)(keras.layers.GlobalAveragePooling2D()(x)))

    def per_example(self, batch, outputs):
        return {"loss": keras.losses.sparse_categorical_crossentropy(batch["label"], outputs, from_logits=True)}

    def example_batch(self, batch_size):
        return {"inputs": tf.zeros([batch_size, 8, 8, 3]), "label": tf.zeros([batch_size], tf.int32)}


def planted_steps(fn=lambda x: 0.0, widths=(8,), batch_size=4):
    task = PlantedTask(fn, widths)
    steps = Steps(tf.distribute.get_strategy(), task, task.build_model(), keras.optimizers.SGD(), batch_size)
    return steps, task.example_batch(batch_size)


def test_static_shapes_names_a_missing_drop_remainder():
    result = preflight.static_shapes({"train": batches(image=[10, 4, 4, 3], label=[10]).batch(4)})
    assert result.status == FAIL and "train image (None, 4, 4, 3)" in result.detail and "drop_remainder" in result.fix


def test_static_shapes_names_a_decode_without_a_fixed_size():
    png = tf.io.encode_png(tf.zeros([4, 4, 3], tf.uint8))
    ds = tf.data.Dataset.from_tensors({"image": png, "label": 0}).map(
        lambda x: {"image": tf.io.decode_png(x["image"], channels=3), "label": x["label"]}
    )
    result = preflight.static_shapes({"eval": ds.batch(2, drop_remainder=True)})
    assert result.status == FAIL and "eval image (2, None, None, 3)" in result.detail


@pytest.mark.parametrize(
    ("make", "op"),
    [
        (lambda ds: ds.map(lambda x: {"image": tf.py_function(lambda i: i, [x["image"]], tf.float32)}), "EagerPyFunc"),
        (lambda ds: ds.map(lambda x: {"image": tf.numpy_function(lambda i: i, [x["image"]], tf.float32)}), "PyFunc"),
        (
            lambda ds: tf.data.Dataset.from_generator(
                lambda: iter([{"image": 1.0}]), output_signature={"image": tf.TensorSpec([], tf.float32)}
            ),
            "GeneratorDataset",
        ),
    ],
    ids=["py_function", "numpy_function", "from_generator"],
)
def test_host_only_ops_names_python_in_the_pipeline(make, op):
    result = preflight.host_only_ops({"train": make(batches(image=[4]))})
    assert result.status == FAIL and op in result.detail and "from_generator" in result.fix


def test_host_only_ops_passes_a_graph_pipeline():
    assert preflight.host_only_ops({"train": batches(image=[4]).map(lambda x: x)}).status == PASS


@pytest.mark.parametrize(
    ("fn", "op"),
    [
        (lambda x: tf.reduce_sum(tf.boolean_mask(x, x > 0.5)), "Where (functional_1/planted/boolean_mask/Where)"),
        (lambda x: tf.cast(tf.size(tf.unique(tf.reshape(tf.cast(x, tf.int32), [-1]))[0]), x.dtype), "Unique"),
        (lambda x: tf.cast(tf.size(tf.where(x > 0.5)), x.dtype), "Where"),
    ],
    ids=["boolean_mask", "unique", "one-argument where"],
)
def test_dynamic_shapes_names_the_op_and_says_to_mask_by_multiplication(fn, op):
    steps, batch = planted_steps(fn)
    result = preflight.dynamic_shapes(preflight.forward_graph(steps, batch))
    assert result.status == FAIL and op.split(" ")[0] in result.detail and "mask by multiplication" in result.fix


def test_xla_names_an_op_it_cannot_compile():
    steps, batch = planted_steps(lambda x: tf.cast(tf.strings.length(tf.strings.as_string(x)), x.dtype))
    result = preflight.xla_compiles(steps, batch)
    assert result.status == FAIL and "AsString" in result.detail and "string ops" in result.fix


@pytest.mark.parametrize(
    ("batch", "target", "status", "says"),
    [
        (12, Target("cpu_replicas", 8), FAIL, "does not divide among 8 replicas"),
        (96, TPU, FAIL, "12 examples per replica, 8 replica(s): not a multiple of 8 per core"),
        (512, TPU, WARN, "64 examples per replica"),
        (1024, TPU, PASS, "128 examples per replica"),
        (8, Target("cpu", 1), PASS, "8 examples per replica"),
    ],
)
def test_batch_split(batch, target, status, says):
    result = preflight.batch_split(batch, target)
    assert result.status == status and says in result.detail


def test_tpu_node_needs_gs_paths():
    result = preflight.paths(TPU_NODE, "/home/me/data", "gs://bucket/run")
    assert result.status == FAIL and "--data_dir=/home/me/data" in result.detail and "gs://" in result.fix
    assert "File system scheme '[local]' not implemented" in result.detail
    assert preflight.paths(TPU_NODE, "gs://b/data", "gs://b/run").status == PASS
    assert preflight.paths(TPU, "/home/me/data", "runs/x").status == PASS  # a TPU VM reads its own disk


def test_a_grpc_tpu_is_a_tpu_node_and_local_is_not():
    parse_config(["configs/tpu.gin"], [])
    params = build(RuntimeParams)
    assert preflight.find_target(params, "grpc://10.1.2.3:8470", {}, False, 0).tpu_node
    assert not preflight.find_target(params, "local", {}, False, 0).tpu_node
    assert preflight.find_target(params, None, {}, False, 0).replicas == 8


@pytest.mark.parametrize(
    ("policy", "kind", "status"),
    [
        ("mixed_float16", "tpu", FAIL),
        ("mixed_float16", "cpu", FAIL),
        ("mixed_float16", "gpu", PASS),
        ("float32", "tpu", WARN),
        ("mixed_bfloat16", "tpu", PASS),
        ("float32", "cpu", PASS),
    ],
)
def test_precision_suits_the_hardware(policy, kind, status):
    assert preflight.precision(policy, Target(kind, 1)).status == status


def test_memory_over_the_core_lists_the_largest_tensors():
    steps, batch = planted_steps(widths=(8, 16), batch_size=64)
    graph = preflight.forward_graph(steps, batch)
    result = preflight.memory(steps.model, steps.optimizer, graph, 0.0001, TPU)
    assert result.status == FAIL and "largest:" in result.detail and "(64, 8, 8, 16)" in result.detail
    assert preflight.memory(steps.model, steps.optimizer, graph, 8.0, TPU).status == PASS


def test_check_mode_prints_the_table_and_exits_1_on_a_failure(tmp_path, data_dir, capsys):
    # The slow tier runs the passing case on the CPU and TPU configs, through the command line.
    bad = ["--gin_param=Runtime.strategy = 'cpu_replicas'", "--gin_param=Runtime.global_batch_size = 12"]
    assert run_main(tmp_path, data_dir, "--mode=check", *bad) == 1
    out = capsys.readouterr().out
    assert "batch fits the replicas     FAIL    global batch 12 does not divide among 8 replicas" in out
    assert "static shapes               pass" in out and "Pre-flight: 1 of 8 checks failed" in out


@pytest.mark.slow
@pytest.mark.parametrize("config", ["cpu", "cpu_replicas", "tpu"])
def test_check_passes_on_the_shipped_configs(tmp_path, data_dir, config):
    result = main_process(
        "--mode=check", f"--gin_file=configs/{config}.gin", f"--data_dir={data_dir}", f"--model_dir={tmp_path}"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Pre-flight: 0 of 8 checks failed" in result.stdout
