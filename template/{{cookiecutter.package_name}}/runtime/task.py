"""The contract between the runtime and a task: everything the runtime asks of a task, and nothing more.

The runtime (this folder) is the same in every project this template generates; the task (the modules beside it)
is what a project is about. main.py makes the task's `Task` and hands it to the runtime, which calls only these
members. Batches are dicts of tensors whose every dimension is known:

    "inputs"   what the model takes: one tensor, or a dict of them
    ...        whatever else `per_example` reads (a label, say), made by the task's input pipeline
    "weight"   float32 [B], evaluation and prediction only: 0 for the padding that fills the last batches
    "index"    int32 [B], evaluation and prediction only: the example's position in its split

The last two come from records.eval_records (or records.synthetic), which the task's pipeline starts from.
A task is made before the strategy, so making one must not run TensorFlow (no tables or tensors in __init__): a
multi-worker strategy has to start first.
"""

from typing import Protocol

import keras
import tensorflow as tf


class Task(Protocol):
    def build_model(self) -> keras.Model:
        """The network, from batch["inputs"] to its outputs. Called under strategy.scope()."""

    def per_example(self, batch: dict, outputs) -> dict[str, tf.Tensor]:
        """{"loss": float [B], and any metric: float [B]} for each example of a batch.

        The runtime divides the loss by the global batch (adding `model.losses`, the regularization), and averages
        each value over the real examples of a split for its metrics, so every replica's share counts once.
        """

    def input_pipeline(self, split: str, training: bool, global_batch_size: int, start_step: int = 0, seed: int = 0):
        """A function from a tf.distribute.InputContext to the tf.data.Dataset of that input pipeline's batches.

        Per-replica batches of input_context.get_per_replica_batch_size(global_batch_size) examples, with
        drop_remainder. Training (records.train_records): endless, shuffled by `seed`, resuming after `start_step`
        global steps. Otherwise (records.eval_records): one pass over `split` in order, padded to whole batches.
        """

    def example_batch(self, batch_size: int) -> dict:
        """One training batch of `batch_size` valid examples, as the input pipeline yields them.

        It needs no data directory: the synthetic source repeats it, the pre-flight traces the step on it, and the
        runtime reads the names of the metrics from per_example's answer to it.
        """

    def serving_signature(self, model: keras.Model) -> tuple:
        """(function, input_signature, *resources) for the exported SavedModel: raw inputs in, answers out.

        `resources` are what the function uses besides the model that holds state (a Keras layer with a lookup
        table, say): the export tracks them, so that the SavedModel holds them.
        """

    def prediction_rows(self, keys: list[str], results: dict) -> list[dict]:
        """The CSV rows of --mode=predict, one dict per example, in column order.

        `results` holds numpy arrays, one row per example in split order: the model's "outputs" and the batch's
        other entries ("label", "index", ...).
        """
