"""The one step function, and the tf.function loops that run it under a strategy.

Training, evaluation, the pre-flight's XLA check and the benchmark (its rates and its FLOP count) all run `train_step`
or its forward part, `losses`, so what is checked and measured is what trains. Nothing here writes files.
"""

import keras
import numpy as np
import tensorflow as tf


class Steps:
    """A task's model and loss, an optimizer and per-split metrics, stepped under `strategy`.

    Args:
      strategy: the tf.distribute strategy whose scope holds the model and optimizer.
      task: the task (runtime/task.py): per_example gives each example's loss and metrics.
      model, optimizer: built under strategy.scope().
      global_batch_size: the loss is summed over a replica's examples and divided by this, as gradients are summed
        over replicas.
      jit_compile: XLA for the steps. TPUs always compile; on CPUs whether it pays depends on the network.
    """

    def __init__(self, strategy, task, model, optimizer, global_batch_size, jit_compile=False):
        self.strategy = strategy
        self.task = task
        self.model = model
        self.optimizer = optimizer
        self.global_batch_size = global_batch_size
        example = task.example_batch(1)  # the metrics are per_example's keys, which one example shows
        names = task.per_example(example, model(example["inputs"], training=False))
        with strategy.scope():
            # Built now, not at the first step, so that a checkpoint restores into existing variables.
            optimizer.build(model.trainable_variables)
            # Means of per-example values, summed on each replica and then across them: Keras' stateful metrics
            # aggregate wrongly under distribution (keras#21054).
            self.metrics = {split: {name: keras.metrics.Mean() for name in names} for split in ("train", "eval")}
        self._train_step = tf.function(self.train_step, jit_compile=jit_compile)
        self._eval_step = tf.function(self.eval_step, jit_compile=jit_compile)

    def losses(self, batch, training):
        """The forward part of a step: (the loss to minimise, {name: per-example value}) for one replica's batch.

        The loss is this replica's share of the global batch's mean loss, plus its share of the model's
        regularization losses (`model.losses`, which Keras fit would add too). The per-example "loss" shown in the
        metrics includes the whole regularization penalty, as Keras fit shows it.
        """
        values = self.task.per_example(batch, self.model(batch["inputs"], training=training))
        loss = tf.nn.compute_average_loss(values["loss"], global_batch_size=self.global_batch_size)
        if self.model.losses:
            penalty = tf.add_n([tf.cast(x, tf.float32) for x in self.model.losses])
            loss += tf.nn.scale_regularization_loss(penalty)
            values = {**values, "loss": values["loss"] + penalty}
        return loss, values

    def train_step(self, batch):
        """One training step on one replica's batch; returns the loss it minimised."""
        with tf.GradientTape() as tape:
            loss, values = self.losses(batch, training=True)
            scaled_loss = self.optimizer.scale_loss(loss)
        gradients = tape.gradient(scaled_loss, self.model.trainable_variables)
        # An embedding's gradient is sparse (IndexedSlices); all-gathering those across replicas fails in Keras'
        # optimizers (a collective shape mismatch, measured on 8 logical CPUs). Dense, it is one all-reduce, as on TPUs.
        gradients = [tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g for g in gradients]
        self.optimizer.apply_gradients(zip(gradients, self.model.trainable_variables, strict=True))
        for name, value in values.items():
            self.metrics["train"][name].update_state(value)
        return loss

    def eval_step(self, batch):
        _, values = self.losses(batch, training=False)
        for name, value in values.items():
            self.metrics["eval"][name].update_state(value, sample_weight=batch["weight"])

    @tf.function
    def train_steps(self, iterator, steps):
        """Trains `steps` steps on batches from a distributed iterator, in one call."""
        for _ in tf.range(steps):
            self.strategy.run(self._train_step, args=(next(iterator),))

    @tf.function
    def train_steps_on(self, batch, steps):
        """Trains `steps` steps on one distributed batch: the step's own speed, without input (--mode=benchmark)."""
        for _ in tf.range(steps):
            self.strategy.run(self._train_step, args=(batch,))

    @tf.function
    def eval_steps(self, iterator, steps):
        for _ in tf.range(steps):
            self.strategy.run(self._eval_step, args=(next(iterator),))

    @tf.function
    def predict_step(self, iterator):
        def step(batch):
            outputs = self.model(batch["inputs"], training=False)
            return {"outputs": outputs} | {key: value for key, value in batch.items() if key != "inputs"}

        return self.strategy.run(step, args=(next(iterator),))

    def predict(self, iterator, steps):
        """{"outputs", and the batch's other entries}: numpy arrays for the real examples, in split order."""
        local = self.strategy.experimental_local_results
        calls = [self.predict_step(iterator) for _ in range(steps)]
        gathered = tf.nest.map_structure(
            lambda *per_call: np.concatenate([t.numpy() for value in per_call for t in local(value)]), *calls
        )
        real = gathered["weight"] > 0
        order = np.argsort(gathered["index"][real])
        return tf.nest.map_structure(lambda array: array[real][order], gathered)

    def results(self, split):
        """The metrics' means since the last call, as floats; resets them."""
        results = {}
        for name, metric in self.metrics[split].items():
            results[name] = float(metric.result())
            metric.reset_state()
        return results

    def examples_seen(self, split):
        """The number of real examples the metrics of `split` have seen since their last reset."""
        return int(np.asarray(self.metrics[split]["loss"].count))
