"""Trains, evaluates, predicts with and exports the task's model; the config files choose the hardware.

    python -m {{ cookiecutter.package_name }}.main --mode=train_and_eval --gin_file=configs/cpu.gin \\
        --data_dir=data/{{ cookiecutter.__dataset }} --model_dir=runs/cpu

A rerun of the same command resumes from the latest checkpoint in --model_dir. The task (params, model, input
pipeline, task.py) says what is learnt; runtime/ says how: strategy, host loop, checkpoints, pre-flight, benchmark.
"""

import sys

from absl import app, flags

from .params import TaskParams
from .runtime import modes, records
from .runtime.config import build, parse_config
from .runtime.errors import UserError
from .runtime.params import RuntimeParams
from .task import Task

flags.DEFINE_enum("mode", "train_and_eval", modes.MODES, "What to do.")
flags.DEFINE_multi_string("gin_file", None, "Gin config files, applied in order, e.g. configs/cpu.gin.")
flags.DEFINE_multi_string("gin_param", [], "Gin bindings applied after the files, e.g. Runtime.train_steps=100.")
flags.DEFINE_string("model_dir", None, "Where checkpoints, summaries, configs and outputs go (local or gs://).")
flags.DEFINE_string("data_dir", None, "A folder written by prepare_data (local or gs://).")
flags.DEFINE_string("tpu", None, "TPU name, grpc://host:port, or 'local' (TPU VM, Colab, Kaggle); default local.")
flags.DEFINE_enum("split", "eval", records.SPLITS, "The split that eval and predict read.")
flags.mark_flags_as_required(["gin_file", "model_dir"])
FLAGS = flags.FLAGS


def main(_):  # every input comes from flags
    try:
        parse_config(FLAGS.gin_file, FLAGS.gin_param)
        params = build(RuntimeParams)
        info = records.source_info(params, FLAGS.data_dir)
        task = Task(build(TaskParams), info)
        return modes.run(FLAGS.mode, task, params, info, FLAGS.model_dir, FLAGS.data_dir, FLAGS.tpu, FLAGS.split)
    except UserError as error:
        print(f"Error: {error}", file=sys.stderr)  # the message names the cause and the fix: no traceback
        return 1


if __name__ == "__main__":
    app.run(main)
