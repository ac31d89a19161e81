"""The modes of main.py, each a short function over the task, the runtime's hyperparameters and the run's paths."""

import dataclasses
import os

import gin
import keras
from absl import logging

from . import benchmark, distribute, export, outputs, preflight, records
from .errors import InputError
from .optimizer import build_optimizer
from .steps import Steps
from .trainer import Trainer, sigterm_stops

MODES = ("train", "eval", "train_and_eval", "predict", "export", "check", "benchmark")


def run(mode, task, params, info, model_dir, data_dir=None, tpu=None, split="eval"):
    """Runs `mode`; returns the process's exit status (None for success, as absl's app.run takes it)."""
    if mode == "check":
        return check(task, params, data_dir, model_dir, tpu)
    if mode in ("predict", "export"):
        if not distribute.is_chief():
            logging.info("--mode=%s runs on the chief alone; this worker has nothing to do.", mode)
            return 0
        if mode == "export" or "TF_CONFIG" in os.environ:
            # One process: a SavedModel must not depend on the training hardware, and a multi-worker strategy
            # (explicit, or 'auto' with TF_CONFIG) would give this worker's share of the split only.
            params = dataclasses.replace(params, strategy="cpu")
    trainer = build_trainer(task, params, model_dir, tpu)
    if not trainer.restore() and mode in ("eval", "predict", "export"):
        raise InputError(f"--mode={mode} needs a checkpoint, and {model_dir} has none: train first.")
    write_config(trainer, model_dir)  # before the first step, so a crashed run still says what it ran
    with sigterm_stops(trainer), records.read_errors_explained(info, data_dir):
        if mode == "train":
            trainer.train(batches(trainer, task, "train", training=True), params.train_steps)
        elif mode == "train_and_eval":
            train_and_eval(trainer, task, info, model_dir)
        elif mode == "eval":
            evaluate(trainer, task, info, split, model_dir)
        elif mode == "predict":
            predict(trainer, task, info, split, model_dir)
        elif mode == "benchmark":
            measure(trainer, task, model_dir)
        else:
            export_model(trainer, task, model_dir)
    write_config(trainer, model_dir)
    return None


def build_trainer(task, params, model_dir, tpu):
    """Resolves the strategy and builds the task's model, the optimizer and the trainer under it."""
    keras.backend.clear_session()
    keras.mixed_precision.set_global_policy(params.precision)
    keras.utils.set_random_seed(params.seed)
    strategy = distribute.resolve_strategy(
        params.strategy, tpu, params.tpu_zone, params.tpu_project, params.connect_timeout_s, params.cpu_replicas
    )
    if params.jit_compile and distribute.replicated_on_cpus(strategy):
        # Otherwise the first step fails, after the model is built: on logical CPUs with "Trying to access resource
        # ... located in device CPU:1 from device CPU:0", across workers with "Collectives are not yet implemented
        # for CPU devices when compiling with XLA" (both measured).
        raise InputError(
            "Runtime.jit_compile = True cannot run a step replicated over CPUs (XLA on CPUs has no collectives and "
            "cannot reach another device's variables): set Runtime.jit_compile = False."
        )
    split = preflight.batch_split(params.global_batch_size, preflight.Target("any", strategy.num_replicas_in_sync))
    if split.status == preflight.FAIL:
        raise InputError(f"{split.detail}: {split.fix}.")
    with strategy.scope():
        steps = Steps(
            strategy, task, task.build_model(), build_optimizer(params), params.global_batch_size, params.jit_compile
        )
    return Trainer(steps, model_dir, params, chief=distribute.is_chief(strategy))


def batches(trainer, task, split, training):
    """An iterator over the distributed batches of `split`; training resumes after the trainer's step."""
    pipeline = records.input_fn(task, trainer.params, split, training, start_step=trainer.step)
    return iter(trainer.strategy.distribute_datasets_from_function(pipeline))


def eval_batches(trainer, task, info, split):
    """An iterator over one padded pass of `split`, and the number of steps that pass takes."""
    pipelines = distribute.num_input_pipelines(trainer.strategy)
    steps = records.eval_steps(info.num_examples(split), trainer.params.global_batch_size, pipelines)
    return batches(trainer, task, split, training=False), steps


def evaluate(trainer, task, info, split, model_dir):
    metrics = trainer.evaluate(*eval_batches(trainer, task, info, split))
    if trainer.chief:
        outputs.write_json(os.path.join(model_dir, "eval_metrics.json"), metrics)
    return metrics


def train_and_eval(trainer, task, info, model_dir):
    """Trains, evaluating every eval_every steps and at the end, also when a rerun finds the training done."""
    train_batches = batches(trainer, task, "train", training=True)
    params, evaluated_at = trainer.params, None
    while trainer.step < params.train_steps and not trainer.stop_requested.is_set():
        next_eval = (trainer.step // params.eval_every + 1) * params.eval_every
        trainer.train(train_batches, min(next_eval, params.train_steps))
        if not trainer.stop_requested.is_set():  # a preempted VM has seconds left: save and go, evaluate later
            evaluated_at = evaluate(trainer, task, info, "eval", model_dir)["step"]
    if evaluated_at != trainer.step and not trainer.stop_requested.is_set():
        evaluate(trainer, task, info, "eval", model_dir)


def predict(trainer, task, info, split, model_dir):
    results = trainer.steps.predict(*eval_batches(trainer, task, info, split))
    keys = records.read_keys(info.files(split)) if trainer.params.data_source == "tfrecord" else []
    keys = [keys[i] if keys else f"{split}/{i}" for i in results["index"]]
    path = os.path.join(model_dir, f"predictions_{split}.csv")
    outputs.write_csv(path, task.prediction_rows(keys, results))
    logging.info("Wrote %d predictions to %s.", len(keys), path)


def export_model(trainer, task, model_dir):
    path = os.path.join(model_dir, "export", str(trainer.step))
    export.write(trainer.model, task, path)
    logging.info("Exported a SavedModel to %s.", path)


def measure(trainer, task, model_dir):
    result = benchmark.run(trainer.steps, batches(trainer, task, "train", training=True), trainer.params)
    print(benchmark.table(result))
    if trainer.chief:
        outputs.write_json(os.path.join(model_dir, "benchmark.json"), result)


def check(task, params, data_dir, model_dir, tpu):
    results = preflight.run(params, task, data_dir, model_dir, tpu)
    print(preflight.table(results))
    return 1 if any(r.status == preflight.FAIL for r in results) else 0


def write_config(trainer, model_dir):
    if trainer.chief:
        outputs.write_text(os.path.join(model_dir, "operative_config.gin"), gin.operative_config_str())
