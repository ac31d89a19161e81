"""Strategy resolution: the CPU default, clear errors for hardware that is not there, and bounded waits."""

import glob
import socket
import time

import pytest
import tensorflow as tf

from {{ cookiecutter.package_name }}.runtime import distribute
from {{ cookiecutter.package_name }}.runtime.errors import SetupError

COLAB = "10.0.0.2:8470"  # a legacy Colab TPU address, for choose() alone: nothing connects to it


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens here once the socket closes


def test_cpu_is_the_default_strategy():
    strategy = distribute.resolve_strategy("cpu")
    assert strategy is tf.distribute.get_strategy() and strategy.num_replicas_in_sync == 1
    assert distribute.num_input_pipelines(strategy) == 1


def test_gpu_without_gpus_says_what_to_do():
    if tf.config.list_physical_devices("GPU"):
        pytest.skip("this machine has a GPU")
    with pytest.raises(RuntimeError, match="sees none.*configs/cpu.gin"):
        distribute.resolve_strategy("gpu")


def test_tpu_address_with_nothing_behind_it_fails_fast_and_clearly():
    start = time.monotonic()
    with pytest.raises(SetupError, match=r"No TPU answers at grpc://127\.0\.0\.1:\d+"):
        distribute.resolve_strategy("tpu", tpu=f"grpc://127.0.0.1:{closed_port()}", connect_timeout_s=5)
    assert time.monotonic() - start < 5


def test_a_call_that_outlasts_its_bound_raises_in_time():
    start = time.monotonic()
    with pytest.raises(SetupError, match="took too long"):
        distribute._bounded(lambda: time.sleep(30), 0.5, "took too long")
    assert time.monotonic() - start < 5


def test_a_bounded_call_returns_its_value_or_its_error():
    assert distribute._bounded(lambda: 42, 5, "unused") == 42
    with pytest.raises(ZeroDivisionError):
        distribute._bounded(lambda: 1 / 0, 5, "unused")


def test_unknown_strategy_is_an_error():
    with pytest.raises(ValueError, match="Unknown strategy 'ipu'"):
        distribute.resolve_strategy("ipu")


@pytest.mark.parametrize(
    ("tpu", "environ", "local_tpu", "gpus", "expected"),
    [
        ("my-tpu", {"COLAB_TPU_ADDR": COLAB, "TF_CONFIG": "{}"}, True, 1, ("tpu", "my-tpu", "--tpu")),
        (None, {"COLAB_TPU_ADDR": COLAB}, True, 0, ("tpu", "local", "attached")),
        (None, {"COLAB_TPU_ADDR": COLAB, "TPU_NAME": "x"}, False, 0, ("tpu", f"grpc://{COLAB}", "COLAB")),
        (None, {"TPU_NAME": "local", "TF_CONFIG": "{}"}, False, 0, ("tpu", "local", "TPU_NAME")),
        (None, {"TPU_NAME": "pod-1"}, False, 2, ("tpu", "pod-1", "TPU_NAME")),
        (None, {"TF_CONFIG": "{}"}, False, 2, ("multiworker", None, "TF_CONFIG")),
        (None, {}, False, 2, ("gpu", None, "2 GPU")),
        (None, {}, False, 0, ("cpu", None, "no TPU")),
    ],
)
def test_auto_tries_each_source_in_order(tpu, environ, local_tpu, gpus, expected):
    choice = distribute.choose("auto", tpu, environ, local_tpu, gpus)
    assert (choice.kind, choice.tpu) == expected[:2] and expected[2] in choice.reason


def test_explicit_tpu_defaults_to_the_local_one():
    assert distribute.choose("tpu", None, {}, False, 0).tpu == "local"
    assert distribute.choose("tpu", None, {"TPU_NAME": "local"}, False, 0).tpu == "local"


def test_explicit_kinds_are_taken_as_given():
    assert distribute.choose("cpu", "my-tpu", {"TF_CONFIG": "{}"}, True, 4).kind == "cpu"


def test_local_tpu_that_is_not_there_says_what_was_tried():
    with pytest.raises(RuntimeError, match=r"No TPU was found \(tried 'local' because .*TPUs not found"):
        distribute.resolve_strategy("tpu", tpu="local")


def test_multiworker_without_tf_config_says_so(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    with pytest.raises(RuntimeError, match="needs TF_CONFIG"):
        distribute.resolve_strategy("multiworker")


def test_auto_on_this_machine_is_the_cpu(monkeypatch):
    for name in ("TPU_NAME", "COLAB_TPU_ADDR", "TF_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    if tf.config.list_physical_devices("GPU") or any(glob.glob(p) for p in distribute.LOCAL_TPU_DEVICES):
        pytest.skip("this machine has an accelerator")
    assert distribute.resolve_strategy("auto") is tf.distribute.get_strategy()


def test_cpu_replicas_are_logical_devices():
    strategy = distribute.resolve_strategy("cpu_replicas", cpu_replicas=2)
    assert strategy.num_replicas_in_sync == 2


def test_tpu_name_local_in_the_environment_reaches_the_local_runtime(monkeypatch):
    # TensorFlow alone would take TPU_NAME=local for the name of a cloud TPU and ask the Cloud API for it.
    monkeypatch.setenv("TPU_NAME", "local")
    monkeypatch.delenv("COLAB_TPU_ADDR", raising=False)
    with pytest.raises(RuntimeError, match=r"tried 'local' because TPU_NAME is set.*TPUs not found"):
        distribute.resolve_strategy("auto")


def test_colab_tpu_address_in_the_environment_is_probed_with_a_bound(monkeypatch):
    monkeypatch.setenv("COLAB_TPU_ADDR", f"127.0.0.1:{closed_port()}")
    start = time.monotonic()
    with pytest.raises(SetupError, match="No TPU answers at grpc://127.0.0.1"):
        distribute.resolve_strategy("auto", connect_timeout_s=5)
    assert time.monotonic() - start < 5
