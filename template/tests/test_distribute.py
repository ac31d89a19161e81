"""Strategy resolution: the CPU default, clear errors for hardware that is not there, and bounded waits."""

import socket
import time

import pytest
import tensorflow as tf

from {{ cookiecutter.package_name }} import distribute


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
    with pytest.raises(ConnectionError, match=r"No TPU answers at grpc://127\.0\.0\.1:\d+"):
        distribute.resolve_strategy("tpu", tpu=f"grpc://127.0.0.1:{closed_port()}", connect_timeout_s=5)
    assert time.monotonic() - start < 5


def test_a_call_that_outlasts_its_bound_raises_in_time():
    start = time.monotonic()
    with pytest.raises(TimeoutError, match="took too long"):
        distribute._bounded(lambda: time.sleep(30), 0.5, "took too long")
    assert time.monotonic() - start < 5


def test_a_bounded_call_returns_its_value_or_its_error():
    assert distribute._bounded(lambda: 42, 5, "unused") == 42
    with pytest.raises(ZeroDivisionError):
        distribute._bounded(lambda: 1 / 0, 5, "unused")


def test_unknown_strategy_is_an_error():
    with pytest.raises(ValueError, match="Unknown strategy 'ipu'"):
        distribute.resolve_strategy("ipu")
