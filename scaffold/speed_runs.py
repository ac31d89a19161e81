"""Timed training runs for `python -m scaffold benchmark`, in one process of a generated project's Python.

    python scaffold/speed_runs.py PROJECT_DIR DATA_DIR --package NAME [--windows N] [--window-examples N]

Not imported by scaffold (it needs TensorFlow): scaffold/benchmark.py runs it with the project on sys.path. Every
configuration trains the project's network from configs/cpu.gin on the same examples with the same batch size, and
the configurations take turns window by window, so a neighbour's load or a clock change slows them alike. Each
figure is the median window, in examples per second; the first round of windows warms up (tracing, pipeline start)
and is not counted. It reaches the task through the runtime's contract (runtime/task.py) and, for Keras fit, each
batch's `label`: it runs on every classification task. Prints one JSON object.
"""

import argparse
import dataclasses
import importlib
import json
import statistics
import sys
import time


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project_dir")
    parser.add_argument("data_dir")
    parser.add_argument("--package", required=True, help="the generated project's package name")
    parser.add_argument("--windows", type=int, default=3, help="timed windows per configuration")
    parser.add_argument("--window-examples", type=int, default=5000, help="examples per window")
    parser.add_argument("--spe", type=int, nargs="*", default=[1, 10, 50, 200], help="steps_per_execution to try")
    args = parser.parse_args(argv)
    print(json.dumps(measure(args)))


def measure(args):
    """Trains every configuration in turns; returns {"examples_per_window", "batch", "rates": {name: examples/s}}."""
    sys.path.insert(0, args.project_dir)
    import keras
    import numpy as np
    import tensorflow as tf

    def module(name):
        return importlib.import_module(f"{args.package}.{name}")

    config, records, runtime_params, optimizer_lib, steps_lib = (
        module(f"runtime.{name}") for name in ("config", "records", "params", "optimizer", "steps")
    )
    task_module, task_params = module("task"), module("params")  # imported first: they register their configurables
    config.parse_config([f"{args.project_dir}/configs/cpu.gin"], [])
    params = config.build(runtime_params.RuntimeParams)
    info = records.load_info(args.data_dir)
    task = task_module.Task(config.build(task_params.TaskParams), info)
    batch = params.global_batch_size
    steps_per_window = args.window_examples // batch
    strategy = tf.distribute.get_strategy()

    # The training split, preprocessed once without augmentation, as a tutorial's numpy arrays.
    arrays = [
        b
        for b in task.input_pipeline("train", False, batch)(tf.distribute.InputContext()).as_numpy_iterator()
        if b["weight"].all()
    ]
    inputs = np.concatenate([b["inputs"] for b in arrays])
    labels = np.concatenate([b["label"] for b in arrays])
    in_memory = tf.data.Dataset.from_tensor_slices({"inputs": inputs, "label": labels})

    def ours(source, **changes):
        """The generated project's host loop: Steps.train_steps, steps_per_execution steps per call."""
        run_params = dataclasses.replace(params, **changes)
        keras.mixed_precision.set_global_policy(run_params.precision)
        keras.utils.set_random_seed(params.seed)
        model, optimizer = task.build_model(), optimizer_lib.build_optimizer(run_params)
        steps = steps_lib.Steps(strategy, task, model, optimizer, batch, run_params.jit_compile)
        keras.mixed_precision.set_global_policy("float32")
        if source == "tfrecord":
            batches = iter(
                strategy.distribute_datasets_from_function(records.input_fn(task, run_params, "train", True))
            )
        else:  # the preprocessed arrays in memory, as Keras fit gets them
            batches = iter(strategy.experimental_distribute_dataset(in_memory.repeat().batch(batch, True)))

        def window():
            done = 0
            while done < steps_per_window:
                count = min(run_params.steps_per_execution, steps_per_window - done)
                steps.train_steps(batches, tf.constant(count))
                done += count
            return steps.optimizer.iterations.numpy()

        return window

    def keras_fit():
        """A keras.io tutorial: numpy arrays, compile with default settings (XLA on), fit one epoch per window."""
        keras.utils.set_random_seed(params.seed)
        model = task.build_model()
        model.compile(
            optimizer=optimizer_lib.build_optimizer(params),
            loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["accuracy"],
        )
        examples = steps_per_window * batch

        def window():
            model.fit(inputs[:examples], labels[:examples], batch_size=batch, epochs=1, verbose=0)

        return window

    runs = {
        "generated default (cpu.gin), from TFRecords": ours("tfrecord"),
        "generated loop, arrays in memory": ours("memory"),
        "plain Keras fit, numpy arrays": keras_fit(),
        **{
            f"generated, steps_per_execution={spe}": ours("tfrecord", steps_per_execution=spe)
            for spe in args.spe
            if spe != params.steps_per_execution
        },
        "generated, mixed_bfloat16": ours("tfrecord", precision="mixed_bfloat16"),
    }
    times = {name: [] for name in runs}
    for repeat in range(args.windows + 1):
        for name, window in runs.items():
            start = time.perf_counter()
            window()
            if repeat:
                times[name].append(time.perf_counter() - start)
            print(f"round {repeat}: {name}: {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    examples = steps_per_window * batch
    rates = {name: examples / statistics.median(seconds) for name, seconds in times.items()}
    return {"examples_per_window": examples, "batch": batch, "rates": rates}


if __name__ == "__main__":
    main()
