"""Timed training runs for `python -m scaffold benchmark`, in one process of a generated project's Python.

    python scaffold/speed_runs.py PROJECT_DIR DATA_DIR [--windows N] [--window-examples N]

Not imported by scaffold (it needs TensorFlow): scaffold/benchmark.py runs it with the project on sys.path. Every
configuration trains the same network on the same examples with the same batch size, and the configurations take
turns window by window, so a neighbour's load or a clock change slows them alike. Each figure is the median
window, in examples per second; the first round of windows warms up (tracing, pipeline start) and is not counted.
Prints one JSON object.
"""

import argparse
import dataclasses
import importlib
import json
import statistics
import sys
import tempfile
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
    with tempfile.TemporaryDirectory() as model_dirs:  # the trainers' summary writers need somewhere to write
        print(json.dumps(measure(args, model_dirs)))


def measure(args, model_dirs):
    """Trains every configuration in turns; returns {"examples_per_window", "batch", "rates": {name: examples/s}}."""
    sys.path.insert(0, args.project_dir)
    import keras
    import numpy as np
    import tensorflow as tf

    def module(name):
        return importlib.import_module(f"{args.package}.{name}")

    config, dataset, main_module, model_lib, trainer_lib = (
        module(name) for name in ("config", "dataset", "main", "model", "trainer")
    )
    params, info = dataset.load(
        config.parse_config([f"{args.project_dir}/configs/cpu.gin"], ["Params.checkpoint_every = 1000000"]),
        args.data_dir,
    )
    batch = params.global_batch_size
    steps_per_window = args.window_examples // batch
    strategy = tf.distribute.get_strategy()
    keras.utils.set_random_seed(params.seed)

    def dense_model(num_classes, image_size, widths, dropout_rate):
        """A multilayer perceptron of about the CNN's parameter count: little compute per step, so overhead shows."""
        inputs = keras.Input((image_size, image_size, 3), name="image")
        x = keras.layers.Flatten()(inputs)
        for width in (64, 64):
            x = keras.layers.Dense(width, activation="relu")(x)
        return keras.Model(inputs, keras.layers.Dense(num_classes, dtype="float32")(x))

    def ours(build, source, **changes):
        """The generated project's host loop: Trainer.train_steps, steps_per_execution steps per call."""
        run_params = dataclasses.replace(params, **changes)
        keras.mixed_precision.set_global_policy(run_params.precision)
        model = build(run_params.num_classes, run_params.image_size, run_params.widths, run_params.dropout_rate)
        trainer = trainer_lib.Trainer(
            strategy, model, model_lib.build_optimizer(run_params), f"{model_dirs}/{id(model)}", run_params
        )
        keras.mixed_precision.set_global_policy("float32")
        if source == "tfrecord":
            batches = main_module.batches(trainer, info, "train", training=True)
        else:  # the decoded arrays in memory, as Keras fit gets them
            batches = iter(strategy.experimental_distribute_dataset(in_memory.repeat().batch(batch, True)))

        def window():
            done = 0
            while done < steps_per_window:
                steps = min(run_params.steps_per_execution, steps_per_window - done)
                trainer.train_steps(batches, tf.constant(steps))
                done += steps
            return trainer.step

        return window

    def keras_fit(build):
        """A keras.io tutorial: numpy arrays, compile with default settings, fit one epoch per window."""
        model = build(params.num_classes, params.image_size, params.widths, params.dropout_rate)
        model.compile(
            optimizer=model_lib.build_optimizer(params),
            loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["accuracy"],
        )
        examples = steps_per_window * batch

        def window():
            model.fit(images[:examples], labels[:examples], batch_size=batch, epochs=1, verbose=0)

        return window

    # The training split decoded once, as a tutorial's numpy arrays.
    records = tf.data.TFRecordDataset(info.files("train")).batch(1024).map(dataset.parse_batch)
    decoded = [
        (tf.io.decode_png(encoded, channels=3).numpy(), label)
        for chunk in records
        for encoded, label in zip(chunk["image/encoded"], chunk["image/class/label"].numpy(), strict=True)
    ]
    images = np.stack([image for image, _ in decoded]).astype(np.float32) / 255.0
    labels = np.array([label for _, label in decoded], np.int32)
    in_memory = tf.data.Dataset.from_tensor_slices({"image": images, "label": labels})

    runs = {
        "generated default (cpu.gin), from TFRecords": ours(model_lib.build_model, "tfrecord"),
        "plain Keras fit, numpy arrays": keras_fit(model_lib.build_model),
        **{
            f"generated, steps_per_execution={spe}": ours(model_lib.build_model, "tfrecord", steps_per_execution=spe)
            for spe in args.spe
            if spe != params.steps_per_execution
        },
        "generated, mixed_bfloat16": ours(model_lib.build_model, "tfrecord", precision="mixed_bfloat16"),
        "dense: generated loop, arrays in memory": ours(dense_model, "memory"),
        "dense: generated loop, from TFRecords": ours(dense_model, "tfrecord"),
        "dense: plain Keras fit, numpy arrays": keras_fit(dense_model),
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
