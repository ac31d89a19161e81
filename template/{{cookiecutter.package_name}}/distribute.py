"""Chooses the tf.distribute strategy: TPU, GPUs (MirroredStrategy) or the default CPU strategy."""

import socket
import threading
import urllib.parse

import tensorflow as tf
from absl import logging


def resolve_strategy(kind, tpu=None, zone=None, project=None, connect_timeout_s=60.0):
    """Returns the strategy of `kind` ("tpu", "gpu" or "cpu") and logs what it chose.

    Args:
      kind: the strategy from Params.strategy.
      tpu: the TPU to use: a TPU name, a grpc://host:port address (TPU Node, legacy Colab), or "local" (TPU VM,
        current Colab and Kaggle). Empty means "local".
      zone, project: the Cloud zone and project of a named TPU; None asks the VM's metadata server.
      connect_timeout_s: how long to wait for the TPU before failing with a clear error. TensorFlow itself waits
        forever on an address with nothing behind it.
    """
    if kind == "tpu":
        strategy = _tpu_strategy(tpu or "local", zone, project, connect_timeout_s)
    elif kind == "gpu":
        gpus = tf.config.list_physical_devices("GPU")
        if not gpus:
            raise RuntimeError(
                "The config asks for GPUs (Params.strategy = 'gpu') but TensorFlow sees none: install the CUDA "
                "build with `pip install -e .[gpu]`, check `nvidia-smi`, or train with configs/cpu.gin."
            )
        strategy = tf.distribute.MirroredStrategy()
    elif kind == "cpu":
        strategy = tf.distribute.get_strategy()
    else:
        raise ValueError(f"Unknown strategy {kind!r}; use 'tpu', 'gpu' or 'cpu'.")
    logging.info("Strategy: %s with %d replicas.", type(strategy).__name__, strategy.num_replicas_in_sync)
    return strategy


def num_input_pipelines(strategy):
    """The number of hosts that each run an input pipeline (1 except on multi-host TPU pods and multi-worker)."""
    resolver = getattr(strategy, "cluster_resolver", None)
    spec = resolver.cluster_spec() if resolver else None
    return spec.num_tasks("worker") if spec and "worker" in spec.jobs else 1


def _tpu_strategy(tpu, zone, project, timeout_s):
    if tpu.startswith("grpc://"):
        _probe(tpu, timeout_s)
    # A named TPU makes the resolver ask the Cloud APIs, which have no timeout of their own.
    resolver = _bounded(
        lambda: tf.distribute.cluster_resolver.TPUClusterResolver(tpu=tpu, zone=zone, project=project),
        timeout_s,
        f"Looking up TPU {tpu!r} (zone={zone}, project={project}) took over {timeout_s:.0f} s; check the name and "
        "that this VM may use the Cloud TPU API, or pass --tpu=grpc://host:8470.",
    )
    if tpu != "local":
        tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    logging.info("TPU %s: %s", tpu, resolver.cluster_spec().as_dict() or "local")
    return tf.distribute.TPUStrategy(resolver)


def _probe(address, timeout_s):
    """Fails within `timeout_s` when nothing listens at a grpc:// address."""
    url = urllib.parse.urlsplit(address)
    try:
        socket.create_connection((url.hostname, url.port or 8470), timeout=timeout_s).close()
    except OSError as error:
        raise ConnectionError(
            f"No TPU answers at {address} ({error}). Check the address (COLAB_TPU_ADDR on legacy Colab), that "
            "the TPU is READY (`gcloud compute tpus list`), and that this VM is in its network."
        ) from error


def _bounded(fn, timeout_s, message):
    """Runs fn() in a thread; raises TimeoutError(message) if it has not returned in timeout_s."""
    result = {}

    def target():
        try:
            result["value"] = fn()
        except Exception as error:  # re-raised in the caller's thread below
            result["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        raise TimeoutError(message)
    if "error" in result:
        raise result["error"]
    return result["value"]
