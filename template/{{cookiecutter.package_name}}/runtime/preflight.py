"""Pre-flight: what would fail on a TPU and can be found on this CPU, checked before a TPU is rented.

    python -m <package>.main --mode=check --gin_file=configs/tpu.gin --data_dir=DATA --model_dir=runs/tpu

Each check returns a Result; `--mode=check` prints them as a table and exits non-zero if any failed. Nothing here
connects to a TPU: the target (replicas, TPU Node or not) is worked out from the config, flags and environment.
"""

import dataclasses
import glob
import os

import keras
import numpy as np
import tensorflow as tf
from tensorflow.core.framework import graph_pb2

from . import distribute, records
from .optimizer import build_optimizer
from .steps import Steps

PASS, WARN, FAIL = "pass", "warn", "FAIL"
HOST_ONLY_OPS = {"PyFunc", "EagerPyFunc", "PyFuncStateless", "GeneratorDataset"}
# Ops that are not activations: variables and constants are counted as parameters, or not at all.
NOT_ACTIVATIONS = {"ReadVariableOp", "Const", "Identity", "Placeholder", "VarHandleOp", "NoOp"}


@dataclasses.dataclass(frozen=True)
class Result:
    check: str
    status: str
    detail: str
    fix: str = ""


@dataclasses.dataclass(frozen=True)
class Target:
    """The hardware a config will run on: its kind, replicas, and whether it is a TPU Node (reads gs:// only)."""

    kind: str
    replicas: int
    tpu_node: bool = False


def find_target(params, tpu, environ, local_tpu, num_gpus):
    choice = distribute.choose(params.strategy, tpu, environ, local_tpu, num_gpus)
    replicas = {"tpu": params.tpu_cores, "cpu_replicas": params.cpu_replicas, "gpu": max(num_gpus, 1)}
    return Target(choice.kind, replicas.get(choice.kind, 1), choice.kind == "tpu" and choice.tpu != "local")


def static_shapes(datasets):
    """1. Every dimension of every batch is known: the TPU compiles one program for one shape."""
    loose = [
        f"{name} {key} {spec.shape}"
        for name, ds in datasets.items()
        for key, spec in ds.element_spec.items()
        if not spec.shape.is_fully_defined()
    ]
    if loose:
        return Result(
            "static shapes",
            FAIL,
            f"unknown dimensions in {', '.join(loose)}",
            "batch with drop_remainder=True, and give decoded or variable-length data a fixed size (tf.ensure_shape)",
        )
    return Result("static shapes", PASS, "every train and eval dimension is known")


def host_only_ops(datasets):
    """2. No Python in the input pipeline: a TPU host runs it as a graph, without the Python that made it."""
    found = {}
    for name, ds in datasets.items():
        policy = tf.data.experimental.ExternalStatePolicy.WARN
        graph = graph_pb2.GraphDef.FromString(ds._as_serialized_graph(external_state_policy=policy).numpy())
        ops = {n.op for n in graph.node} | {n.op for f in graph.library.function for n in f.node_def}
        if ops & HOST_ONLY_OPS:
            found[name] = sorted(ops & HOST_ONLY_OPS)
    if found:
        return Result(
            "no Python ops in input",
            FAIL,
            "; ".join(f"{name} pipeline runs {', '.join(ops)}" for name, ops in found.items()),
            "replace tf.py_function / tf.numpy_function / Dataset.from_generator with TF ops, or write TFRecords",
        )
    return Result("no Python ops in input", PASS, "no PyFunc, EagerPyFunc or generator ops")


def forward_graph(steps, batch):
    """The forward part of the step (model, loss, regularization), traced for one fixed batch shape."""
    spec = tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), batch)
    return tf.function(lambda b: steps.losses(b, training=True)).get_concrete_function(spec).graph


def dynamic_shapes(graph):
    """3. With a fixed batch, every op's output shape is known; one that is not cannot compile for a TPU."""
    dynamic = [f"{op.type} ({op.name})" for op in graph.get_operations() if _has_unknown_shape(op)]
    if dynamic:
        return Result(
            "no dynamic shapes in model",
            FAIL,
            f"ops with data-dependent output shapes: {', '.join(dynamic[:5])}",
            "tf.boolean_mask, tf.unique and one-argument tf.where change shape with the data: mask by "
            "multiplication instead (x * tf.cast(mask, x.dtype)) and reduce with weights",
        )
    return Result("no dynamic shapes in model", PASS, "every op's output shape is fixed")


def xla_compiles(steps, batch):
    """4. The training step compiles with XLA, as every TPU step must."""
    try:
        tf.function(steps.train_step, jit_compile=True)(batch)
    except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError) as error:
        first = next((line for line in str(error).splitlines() if "unsupported" in line.lower()), str(error))
        return Result(
            "XLA compiles a step",
            FAIL,
            first.strip()[:300],
            "keep string ops, Python ops and ops without XLA kernels out of the model and loss",
        )
    return Result("XLA compiles a step", PASS, "one training step compiled and ran with jit_compile=True")


def batch_split(global_batch_size, target):
    """5. The global batch splits evenly, and on a TPU fills the cores' matrix units without padding."""
    name = "batch fits the replicas"
    if global_batch_size % target.replicas:
        return Result(
            name,
            FAIL,
            f"global batch {global_batch_size} does not divide among {target.replicas} replicas",
            f"make Runtime.global_batch_size a multiple of {target.replicas}",
        )
    per_replica = global_batch_size // target.replicas
    detail = f"{per_replica} examples per replica, {target.replicas} replica(s)"
    if target.kind == "tpu" and per_replica % 8:
        fix = f"make Runtime.global_batch_size a multiple of {8 * target.replicas} (best: {128 * target.replicas})"
        return Result(name, FAIL, f"{detail}: not a multiple of 8 per core", fix)
    if target.kind == "tpu" and per_replica < 128:
        return Result(name, WARN, detail, "below 128 per core the TPU pads batches and wastes its matrix units")
    return Result(name, PASS, detail)


def paths(target, data_dir, model_dir):
    """6. A TPU Node runs on another machine and reads Cloud Storage only: local paths fail there."""
    local = [f"--{flag}={path}" for flag, path in (("data_dir", data_dir), ("model_dir", model_dir)) if path]
    local = [arg for arg in local if not arg.split("=", 1)[1].startswith("gs://")]
    if target.tpu_node and local:
        return Result(
            "paths a TPU can read",
            FAIL,
            f"a TPU Node cannot read {', '.join(local)} (File system scheme '[local]' not implemented)",
            "copy the data to a bucket (gsutil -m cp -r) and pass gs:// paths",
        )
    return Result("paths a TPU can read", PASS, "gs:// paths" if target.tpu_node else "local paths are readable here")


def precision(policy, target):
    """7. The mixed-precision policy suits the hardware: bfloat16 on TPUs, float16 on GPUs only."""
    name = "precision suits hardware"
    if policy == "mixed_float16" and target.kind != "gpu":
        return Result(name, FAIL, f"mixed_float16 on {target.kind}", "use mixed_bfloat16 on TPUs, float32 on CPUs")
    if target.kind == "tpu" and policy != "mixed_bfloat16":
        return Result(name, WARN, f"{policy} on a TPU", "mixed_bfloat16 is native on TPUs: about 2x faster")
    return Result(name, PASS, f"{policy} on {target.kind}")


def memory(model, optimizer, graph, hbm_gib, target):
    """8. Parameters, gradients, optimizer state and one per-core batch's activations fit the core's memory."""
    tensors = [(v.path, v.shape, _bytes(v.shape, v.dtype)) for v in model.weights]
    parameters = sum(size for _, _, size in tensors)
    gradients = sum(_bytes(v.shape, v.dtype) for v in model.trainable_weights)
    state = sum(_bytes(v.shape, v.dtype) for v in optimizer.variables)
    activations = [
        (op.name, out.shape, _bytes(out.shape, out.dtype))
        for op in graph.get_operations()
        if op.type not in NOT_ACTIVATIONS
        for out in op.outputs
        if out.dtype.is_floating and out.shape.is_fully_defined()
    ]
    total = parameters + gradients + state + sum(size for _, _, size in activations)
    largest = sorted(tensors + activations, key=lambda t: -t[2])[:3]
    detail = (
        f"about {total / 2**20:.1f} MiB per replica (parameters {parameters / 2**20:.1f}, optimizer state "
        f"{state / 2**20:.1f}, activations {(total - parameters - gradients - state) / 2**20:.1f}); largest: "
        + ", ".join(f"{name} {tuple(shape)} {size / 2**20:.1f} MiB" for name, shape, size in largest)
    )
    if target.kind in ("tpu", "gpu") and total > hbm_gib * 2**30:
        return Result(
            "memory fits",
            FAIL,
            f"{detail}; over {hbm_gib} GiB",
            "lower Runtime.global_batch_size, use mixed_bfloat16, or narrow the largest layers",
        )
    return Result("memory fits", PASS, detail + (f" of {hbm_gib} GiB" if target.kind in ("tpu", "gpu") else ""))


def run(params, task, data_dir, model_dir, tpu):
    """Runs every check for this config, as it would run on its target hardware; returns the Results."""
    local_tpu = any(glob.glob(pattern) for pattern in distribute.LOCAL_TPU_DEVICES)
    target = find_target(params, tpu, os.environ, local_tpu, len(tf.config.list_physical_devices("GPU")))
    split = batch_split(params.global_batch_size, target)
    replicas = target.replicas if split.status != FAIL else 1  # checks 1-4 still run on an uneven batch
    context = tf.distribute.InputContext(1, 0, replicas)
    datasets = {name: records.input_fn(task, params, name, name == "train")(context) for name in records.SPLITS}
    keras.mixed_precision.set_global_policy(params.precision)
    strategy = tf.distribute.get_strategy()
    steps = Steps(strategy, task, task.build_model(), build_optimizer(params), params.global_batch_size)
    batch = task.example_batch(params.global_batch_size // replicas)
    graph = forward_graph(steps, batch)
    return [
        static_shapes(datasets),
        host_only_ops(datasets),
        dynamic_shapes(graph),
        xla_compiles(steps, batch),
        split,
        paths(target, data_dir, model_dir),
        precision(params.precision, target),
        memory(steps.model, steps.optimizer, graph, params.hbm_gib_per_core, target),
    ]


def table(results):
    """The results as a table: number, check, result, what was found and, for a problem, the fix."""
    lines = [f"{'':3}{'check':28}{'result':8}detail"]
    for number, result in enumerate(results, 1):
        lines.append(f"{number:<3}{result.check:28}{result.status:8}{result.detail}")
        if result.fix:
            lines.append(f"{'':39}fix: {result.fix}")
    counts = {status: sum(r.status == status for r in results) for status in (FAIL, WARN)}
    lines.append(f"Pre-flight: {counts[FAIL]} of {len(results)} checks failed, {counts[WARN]} warned.")
    return "\n".join(lines)


def _has_unknown_shape(op):
    return any(not out.shape.is_fully_defined() for out in op.outputs)


def _bytes(shape, dtype):
    return int(np.prod(shape)) * tf.as_dtype(dtype).size
