"""Chooses the tf.distribute strategy: TPU, multi-worker, GPUs, N logical CPU replicas, or the default CPU strategy.

`choose` decides which one and why (pure, so every branch is tested); `resolve_strategy` builds it, bounding every
wait on the network: TensorFlow itself waits forever for an address with nothing behind it.
"""

import dataclasses
import faulthandler
import glob
import os
import socket
import threading
import time
import typing
import urllib.parse

import tensorflow as tf
from absl import logging

from .errors import InputError, SetupError
from .params import RuntimeParams

# Device files of a TPU attached to this machine: /dev/accel* (v2-v4 TPU VMs, Colab, Kaggle), /dev/vfio (v5+).
LOCAL_TPU_DEVICES = ("/dev/accel*", "/dev/vfio/[0-9]*")
STRATEGIES = typing.get_args(RuntimeParams.__annotations__["strategy"])


@dataclasses.dataclass(frozen=True)
class Choice:
    """A strategy kind, the TPU to reach (for "tpu"), and why it was chosen."""

    kind: str
    tpu: str | None
    reason: str


def choose(kind, tpu, environ, local_tpu, num_gpus):
    """Decides the strategy for Runtime.strategy = `kind`.

    "auto" tries, in order: --tpu; a TPU attached to this machine; COLAB_TPU_ADDR (legacy Colab TPU Node); TPU_NAME;
    TF_CONFIG (multi-worker); visible GPUs; else the CPU. An explicit "tpu" takes its target from the same sources.
    """
    tpu_sources = [
        (tpu, "--tpu was given"),
        ("local" if local_tpu else None, "a TPU is attached to this machine"),
        (environ.get("COLAB_TPU_ADDR") and f"grpc://{environ['COLAB_TPU_ADDR']}", "COLAB_TPU_ADDR is set (Colab)"),
        # TensorFlow takes TPU_NAME=local for the name of a cloud TPU; passing it on explicitly avoids that.
        (environ.get("TPU_NAME"), "TPU_NAME is set"),
    ]
    found = next(((target, why) for target, why in tpu_sources if target), None)
    if kind == "tpu":
        target, why = found or ("local", "no TPU was named, so the local one")
        return Choice("tpu", target, why)
    if kind != "auto":
        return Choice(kind, None, f"Runtime.strategy = {kind!r}")
    if found:
        return Choice("tpu", found[0], found[1])
    if environ.get("TF_CONFIG"):
        return Choice("multiworker", None, "TF_CONFIG is set")
    if num_gpus:
        return Choice("gpu", None, f"{num_gpus} GPU(s) are visible")
    return Choice("cpu", None, "no TPU, TF_CONFIG or GPU was found")


def resolve_strategy(kind, tpu=None, zone=None, project=None, connect_timeout_s=60.0, cpu_replicas=8):
    """Returns the strategy for Runtime.strategy = `kind` and logs which one it chose and why.

    Args:
      kind: one of STRATEGIES.
      tpu: --tpu: a TPU name, a grpc://host:port address (TPU Node, legacy Colab) or "local" (TPU VM, Colab,
        Kaggle).
      zone, project: the Cloud zone and project of a named TPU; None asks the VM's metadata server.
      connect_timeout_s: how long to wait for a TPU or for the other workers before failing with a clear error.
      cpu_replicas: the number of logical CPU devices for kind "cpu_replicas".
    """
    if kind not in STRATEGIES:
        raise InputError(f"Unknown strategy {kind!r}; use one of {', '.join(STRATEGIES)}.")
    local_tpu = any(glob.glob(pattern) for pattern in LOCAL_TPU_DEVICES)
    choice = choose(kind, tpu, os.environ, local_tpu, len(tf.config.list_physical_devices("GPU")))
    if choice.kind == "tpu":
        strategy = _tpu_strategy(choice, zone, project, connect_timeout_s)
    elif choice.kind == "multiworker":
        if "TF_CONFIG" not in os.environ:
            raise SetupError("Runtime.strategy = 'multiworker' needs TF_CONFIG, which names the workers; none is set.")
        strategy = _multiworker_strategy(connect_timeout_s)
    elif choice.kind == "gpu":
        if not tf.config.list_physical_devices("GPU"):
            raise SetupError(
                "The config asks for GPUs (Runtime.strategy = 'gpu') but TensorFlow sees none: install the CUDA "
                "build with `pip install -e .[gpu]`, check `nvidia-smi`, or train with configs/cpu.gin."
            )
        strategy = tf.distribute.MirroredStrategy()
    elif choice.kind == "cpu_replicas":
        strategy = tf.distribute.MirroredStrategy(logical_cpus(cpu_replicas))
    else:
        strategy = tf.distribute.get_strategy()
    logging.info(
        "Strategy: %s with %d replicas (%s).", type(strategy).__name__, strategy.num_replicas_in_sync, choice.reason
    )
    return strategy


def replicated_on_cpus(strategy):
    """Whether `strategy` runs its step on several replicas, all of them CPUs (cpu_replicas, multi-worker on CPUs)."""
    return strategy.num_replicas_in_sync > 1 and all(
        tf.DeviceSpec.from_string(device).device_type == "CPU" for device in strategy.extended.worker_devices
    )


def logical_cpus(count):
    """Splits the CPU into `count` logical devices, so MirroredStrategy runs the TPU's code paths on a laptop."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    if len(tf.config.get_logical_device_configuration(cpu) or ()) < count:
        try:
            tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * count)
        except RuntimeError as error:
            raise SetupError(
                f"{count} logical CPU devices must be made before TensorFlow starts; this process already started "
                "it. Run the command in a fresh process (tests: configure them in conftest.py)."
            ) from error
    return [device.name for device in tf.config.list_logical_devices("CPU")[:count]]


def num_input_pipelines(strategy):
    """The number of hosts that each run an input pipeline: the workers of a multi-worker run or a TPU pod, else 1."""
    spec = _cluster_spec(strategy)
    return max(1, sum(spec.num_tasks(job) for job in ("chief", "worker") if job in spec.jobs)) if spec else 1


def is_chief(strategy=None):
    """Whether this process writes checkpoints, summaries and outputs: the chief, or worker 0 if there is none.

    Without a multi-worker strategy (export, predict) TF_CONFIG still says which process this is.
    """
    resolver = getattr(strategy, "cluster_resolver", None)
    if resolver is None and "TF_CONFIG" in os.environ:
        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    if resolver is None or not resolver.task_type:
        return True
    if resolver.task_type == "chief":
        return True
    return resolver.task_type == "worker" and resolver.task_id == 0 and "chief" not in resolver.cluster_spec().jobs


def _cluster_spec(strategy):
    resolver = getattr(strategy, "cluster_resolver", None)
    return resolver.cluster_spec() if resolver else None


def _tpu_strategy(choice, zone, project, timeout_s):
    tried = f"tried {choice.tpu!r} because {choice.reason}"
    if choice.tpu.startswith("grpc://"):
        _probe(choice.tpu, timeout_s)
    # A named TPU makes the resolver ask the Cloud APIs, which have no timeout of their own.
    resolver = _bounded(
        lambda: tf.distribute.cluster_resolver.TPUClusterResolver(tpu=choice.tpu, zone=zone, project=project),
        timeout_s,
        f"Looking up the TPU took over {timeout_s:.0f} s ({tried}); check the name, zone and project, or pass "
        "--tpu=grpc://host:8470.",
    )
    if choice.tpu != "local":
        tf.config.experimental_connect_to_cluster(resolver)
    try:
        tf.tpu.experimental.initialize_tpu_system(resolver)
    except tf.errors.NotFoundError as error:
        raise SetupError(
            f"No TPU was found ({tried}): {str(error).splitlines()[0]} On Colab or Kaggle choose a TPU runtime; "
            "elsewhere pass --tpu=NAME or --tpu=grpc://host:8470, or train with configs/cpu.gin."
        ) from error
    return tf.distribute.TPUStrategy(resolver)


def _multiworker_strategy(timeout_s):
    """MultiWorkerMirroredStrategy once every worker answers: TensorFlow waits for a missing one forever."""
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    spec = resolver.cluster_spec()
    peers = {
        f"{job} {index}": spec.task_address(job, index)
        for job in ("chief", "worker")
        if job in spec.jobs
        for index in range(spec.num_tasks(job))
        if (job, index) != (resolver.task_type, resolver.task_id)
    }
    _rendezvous(spec.task_address(resolver.task_type, resolver.task_id), peers, timeout_s)
    logging.info("All %d workers answered; joining them (at most %.0f s).", len(peers) + 1, timeout_s)
    # A worker that dies between the rendezvous and TensorFlow's own handshake would leave this one waiting inside
    # C++ with the GIL held, where no Python thread or signal handler runs; faulthandler's watchdog needs neither.
    faulthandler.dump_traceback_later(timeout_s, exit=True)
    try:
        options = tf.distribute.experimental.CommunicationOptions(timeout_seconds=timeout_s)
        return tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
    finally:
        faulthandler.cancel_dump_traceback_later()


def _rendezvous(address, peers, timeout_s):
    """Listens at this worker's address and connects to every peer's until all answer or timeout_s passes.

    Every worker does this before TensorFlow takes over its port, so they find each other in any start order.
    """
    try:
        listener = socket.create_server(("", int(address.rsplit(":", 1)[1])))
    except OSError as error:
        raise SetupError(
            f"This worker cannot listen at {address} ({error}): another process holds the port."
        ) from error
    waiting = dict(peers)
    deadline = time.monotonic() + timeout_s
    with listener:
        while waiting and time.monotonic() < deadline:
            for name, peer in list(waiting.items()):
                host, port = peer.rsplit(":", 1)
                try:
                    socket.create_connection((host, int(port)), timeout=1).close()
                    del waiting[name]
                except OSError:
                    pass
            time.sleep(0.2 if waiting else 0)
    if waiting:
        missing = ", ".join(f"{name} at {peer}" for name, peer in waiting.items())
        raise SetupError(
            f"TF_CONFIG names {missing}, which did not answer in {timeout_s:.0f} s: start every worker with the "
            "same cluster and its own task index, check the addresses and firewall, or raise Runtime.connect_timeout_s."
        )


def _probe(address, timeout_s):
    """Fails within `timeout_s` when nothing listens at a grpc:// address."""
    url = urllib.parse.urlsplit(address)
    try:
        socket.create_connection((url.hostname, url.port or 8470), timeout=timeout_s).close()
    except OSError as error:
        raise SetupError(
            f"No TPU answers at {address} ({error}). Check the address (COLAB_TPU_ADDR on legacy Colab), that "
            "the TPU is READY (`gcloud compute tpus list`), and that this VM is in its network."
        ) from error


def _bounded(fn, timeout_s, message):
    """Runs fn() in a thread; raises SetupError(message) if it has not returned in timeout_s."""
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
        raise SetupError(message)
    if "error" in result:
        raise result["error"]
    return result["value"]
