"""Trains, evaluates, predicts with and exports the image classifier; the config files choose the hardware.

    python -m {{ cookiecutter.package_name }}.main --mode=train_and_eval --gin_file=configs/cpu.gin \\
        --data_dir=data/shapes --model_dir=runs/cpu

A rerun of the same command resumes from the latest checkpoint in --model_dir.
"""

import dataclasses
import os
import sys

import gin
import keras
from absl import app, flags, logging

from . import benchmark, dataset, distribute, export, outputs, preflight, trainer
from . import model as model_lib
from .config import parse_config
from .errors import InputError, UserError
from .input_pipeline import InputPipeline, eval_steps

MODES = ("train", "eval", "train_and_eval", "predict", "export", "check", "benchmark")

flags.DEFINE_enum("mode", "train_and_eval", MODES, "What to do.")
flags.DEFINE_multi_string("gin_file", None, "Gin config files, applied in order, e.g. configs/cpu.gin.")
flags.DEFINE_multi_string("gin_param", [], "Gin bindings applied after the files, e.g. Params.train_steps=100.")
flags.DEFINE_string("model_dir", None, "Where checkpoints, summaries, configs and outputs go (local or gs://).")
flags.DEFINE_string("data_dir", None, "A folder written by prepare_data (local or gs://).")
flags.DEFINE_string("tpu", None, "TPU name, grpc://host:port, or 'local' (TPU VM, Colab, Kaggle); default local.")
flags.DEFINE_enum("split", "eval", dataset.SPLITS, "The split that eval and predict read.")
flags.mark_flags_as_required(["gin_file", "model_dir"])
FLAGS = flags.FLAGS


def build_trainer(params, model_dir, tpu):
    """Resolves the strategy and builds the model, optimizer and trainer under it."""
    keras.backend.clear_session()
    keras.mixed_precision.set_global_policy(params.precision)
    keras.utils.set_random_seed(params.seed)
    strategy = distribute.resolve_strategy(
        params.strategy, tpu, params.tpu_zone, params.tpu_project, params.connect_timeout_s, params.cpu_replicas
    )
    split = preflight.batch_split(params.global_batch_size, preflight.Target("any", strategy.num_replicas_in_sync))
    if split.status == preflight.FAIL:
        raise InputError(f"{split.detail}: {split.fix}.")
    with strategy.scope():
        model = model_lib.build_model(params.num_classes, params.image_size, params.widths, params.dropout_rate)
        optimizer = model_lib.build_optimizer(params)
    return trainer.Trainer(strategy, model, optimizer, model_dir, params, chief=distribute.is_chief(strategy))


def batches(run, info, split, training):
    pipeline = InputPipeline(run.params, info, split, training, start_step=run.step)
    return iter(run.strategy.distribute_datasets_from_function(pipeline))


def eval_batches(run, info, split):
    """An iterator over one padded pass of `split`, and the number of steps that pass takes."""
    pipelines = distribute.num_input_pipelines(run.strategy)
    steps = eval_steps(info.num_examples(split), run.params.global_batch_size, pipelines)
    return batches(run, info, split, training=False), steps


def evaluate(run, info, split, model_dir):
    metrics = run.evaluate(*eval_batches(run, info, split))
    if run.chief:
        outputs.write_json(os.path.join(model_dir, "eval_metrics.json"), metrics)
    return metrics


def train_and_eval(run, info, model_dir):
    """Trains, evaluating every eval_every steps and at the end, also when a rerun finds the training done."""
    train_batches = batches(run, info, "train", training=True)
    evaluated_at = None
    while run.step < run.params.train_steps and not run.stop_requested.is_set():
        next_eval = (run.step // run.params.eval_every + 1) * run.params.eval_every
        run.train(train_batches, min(next_eval, run.params.train_steps))
        if not run.stop_requested.is_set():  # a preempted VM has seconds left: save and go, evaluate later
            evaluated_at = evaluate(run, info, "eval", model_dir)["step"]
    if evaluated_at != run.step and not run.stop_requested.is_set():
        evaluate(run, info, "eval", model_dir)


def predict(run, info, split, model_dir):
    result = run.predict(*eval_batches(run, info, split))
    keys = dataset.read_keys(info.files(split)) if run.params.data_source == "tfrecord" else []
    keys = [keys[i] if keys else f"{split}/{i}" for i in result["index"]]
    path = os.path.join(model_dir, f"predictions_{split}.csv")
    outputs.write_predictions(path, keys, result["label"], result["probabilities"], info.class_names)
    logging.info("Wrote %d predictions to %s.", len(keys), path)


def export_model(run, info, model_dir):
    path = os.path.join(model_dir, "export", str(run.step))
    export.export(run.model, info.class_names, run.params.image_size, path)
    logging.info("Exported a SavedModel to %s.", path)


def measure(run, info, model_dir):
    result = benchmark.run(run, batches(run, info, "train", training=True), run.params)
    print(benchmark.table(result))
    if run.chief:
        outputs.write_json(os.path.join(model_dir, "benchmark.json"), result)


def check(params, info):
    results = preflight.run(params, info, FLAGS.data_dir, FLAGS.model_dir, FLAGS.tpu)
    print(preflight.table(results))
    return 1 if any(r.status == preflight.FAIL for r in results) else 0


def write_config(run, model_dir):
    if run.chief:
        outputs.write_text(os.path.join(model_dir, "operative_config.gin"), gin.operative_config_str())


def main(_):  # every input comes from flags
    try:
        return run_mode()
    except UserError as error:
        print(f"Error: {error}", file=sys.stderr)  # the message names the cause and the fix: no traceback
        return 1


def run_mode():
    params, info = dataset.load(parse_config(FLAGS.gin_file, FLAGS.gin_param), FLAGS.data_dir)
    if FLAGS.mode == "check":
        return check(params, info)
    if FLAGS.mode in ("predict", "export"):
        if not distribute.is_chief():
            logging.info("--mode=%s runs on the chief alone; this worker has nothing to do.", FLAGS.mode)
            return 0
        if FLAGS.mode == "export" or "TF_CONFIG" in os.environ:
            # One process: a SavedModel must not depend on the training hardware, and a multi-worker strategy
            # (explicit, or 'auto' with TF_CONFIG) would give this worker's share of the split only.
            params = dataclasses.replace(params, strategy="cpu")
    run = build_trainer(params, FLAGS.model_dir, FLAGS.tpu)
    if not run.restore() and FLAGS.mode in ("eval", "predict", "export"):
        raise InputError(f"--mode={FLAGS.mode} needs a checkpoint, and {FLAGS.model_dir} has none: train first.")
    write_config(run, FLAGS.model_dir)  # before the first step, so a crashed run still says what it ran
    with trainer.sigterm_stops(run), dataset.read_errors_explained(info, FLAGS.data_dir):
        if FLAGS.mode == "train":
            run.train(batches(run, info, "train", training=True), params.train_steps)
        elif FLAGS.mode == "train_and_eval":
            train_and_eval(run, info, FLAGS.model_dir)
        elif FLAGS.mode == "eval":
            evaluate(run, info, FLAGS.split, FLAGS.model_dir)
        elif FLAGS.mode == "predict":
            predict(run, info, FLAGS.split, FLAGS.model_dir)
        elif FLAGS.mode == "benchmark":
            measure(run, info, FLAGS.model_dir)
        else:
            export_model(run, info, FLAGS.model_dir)
    write_config(run, FLAGS.model_dir)


if __name__ == "__main__":
    app.run(main)
