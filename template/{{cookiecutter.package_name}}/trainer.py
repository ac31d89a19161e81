"""The host loop: `steps_per_execution` steps of strategy.run per tf.function call, with checkpoints and summaries.

This is the TF 2 form of TPUEstimator's `iterations_per_loop` and of the TPU guide's custom training loop. It is
not `model.fit`: in Keras 3, fit with steps_per_execution > 1 fails under MirroredStrategy, fit fails under
multi-worker strategies, and BackupAndRestore does not resume at the exact step. Keras still provides the layers,
optimizer, losses, metrics and progress bar.
"""

import contextlib
import os
import signal
import threading
import time

import keras
import numpy as np
import tensorflow as tf
from absl import logging

from .errors import DivergedError, InputError


def per_example_loss(labels, logits):
    """Cross-entropy per example; the caller divides the sum by the global batch (or takes the mean)."""
    return keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)


class Trainer:
    """Trains, evaluates and predicts with a model under a strategy; checkpoints in <model_dir>/checkpoints.

    The step counter is the optimizer's `iterations`, saved with the model, so a rerun of the same command resumes
    at the exact step of the latest checkpoint.
    """

    def __init__(self, strategy, model, optimizer, model_dir, params, chief=True):
        self.strategy = strategy
        self.chief = chief
        self.stop_requested = threading.Event()  # set by SIGTERM (see sigterm_stops); training saves and stops
        self.model = model
        self.optimizer = optimizer
        self.params = params
        with strategy.scope():
            # Built now, not at the first step, so that a checkpoint restores into existing variables.
            optimizer.build(model.trainable_variables)
            self._metrics = {
                split: {"loss": keras.metrics.Mean(), "accuracy": keras.metrics.SparseCategoricalAccuracy()}
                for split in ("train", "eval")
            }
        self.checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
        self.manager = tf.train.CheckpointManager(
            self.checkpoint, os.path.join(model_dir, "checkpoints"), max_to_keep=params.keep_checkpoints
        )
        # Other workers take part in every save (their variables may be needed) but write to a private folder.
        self._worker_dir = None if chief else os.path.join(model_dir, f".worker-{os.getpid()}")
        self._writers = {
            split: tf.summary.create_file_writer(os.path.join(model_dir, split))
            if chief
            else tf.summary.create_noop_writer()
            for split in self._metrics
        }
        # XLA on CPU makes convolutions slower (see configs/cpu.gin); TPUs compile whatever this says.
        self._train_step = tf.function(self._train_step, jit_compile=params.jit_compile)
        self._eval_step = tf.function(self._eval_step, jit_compile=params.jit_compile)

    @property
    def step(self):
        return int(self.optimizer.iterations.numpy())

    def restore(self):
        """Restores the latest checkpoint, if any; returns whether there was one.

        Raises InputError, before any training and leaving the checkpoint as it was, if it was written by another
        model (other classes, widths or image size).
        """
        latest = self.manager.latest_checkpoint
        if latest:
            try:
                self.checkpoint.restore(latest).assert_existing_objects_matched()
            except (ValueError, AssertionError) as error:
                raise InputError(
                    f"The checkpoint {latest} does not fit this model: {str(error).splitlines()[0]} It was written "
                    "by a model with other classes, widths or image size. Train into a new --model_dir (or restore "
                    "the config that wrote it); the checkpoint was left as it is."
                ) from error
            logging.info("Restored %s: resuming at step %d.", latest, self.step)
        return bool(latest)

    def save(self):
        if self.chief:
            logging.info("Saved %s.", self.manager.save(checkpoint_number=self.step))
        else:
            self.checkpoint.write(os.path.join(self._worker_dir, "ckpt"))
            tf.io.gfile.rmtree(self._worker_dir)

    def train(self, iterator, until_step):
        """Trains until the step counter reaches `until_step`, saving every `checkpoint_every` steps and at the end.

        Returns the metrics of the last tf.function call ({} if there was nothing left to train).
        """
        logs = {}
        # interval=0: every call shows its step (Keras skips updates within 50 ms of the last), so the last step shown
        # is the last one trained; a call is steps_per_execution steps, so this is still one line every few seconds.
        progress = keras.utils.Progbar(
            until_step, interval=0, stateful_metrics=["loss", "accuracy", "learning_rate", "steps/s"]
        )
        while self.step < until_step and not self.stop_requested.is_set():
            logs = self._train_call(iterator, until_step, progress)
        if self.stop_requested.is_set():
            # A preemptible VM gets SIGTERM about 30 s before it goes: save what the last call trained, and stop.
            if self.step % self.params.checkpoint_every:
                self.save()
            logging.warning("SIGTERM: saved step %d and stopped. Rerun the same command to resume.", self.step)
            return logs
        # Gradients are summed across replicas, so these weights are equal on every worker of a multi-worker run.
        # (Batch-norm moving statistics are not: Keras keeps one estimate per replica and saves the chief's.)
        fingerprint = sum(float(tf.reduce_sum(w)) for w in self.model.trainable_weights)
        logging.info("Step %d: trainable weights fingerprint %.10g", self.step, fingerprint)
        return logs

    def _train_call(self, iterator, until_step, progress):
        """One tf.function call of up to steps_per_execution steps; saves on checkpoint boundaries."""
        params = self.params
        # A call never crosses a checkpoint boundary, so checkpoints land on exact multiples.
        to_checkpoint = params.checkpoint_every - self.step % params.checkpoint_every
        steps = min(params.steps_per_execution, until_step - self.step, to_checkpoint)
        start = time.perf_counter()
        self.train_steps(iterator, tf.constant(steps))
        logs = self._results("train")
        if not np.isfinite(logs["loss"]):
            raise DivergedError(
                f"The training loss became {logs['loss']} in steps {self.step - steps + 1}-{self.step}; nothing was "
                f"saved after it, so the latest checkpoint is still {self.manager.latest_checkpoint}. Lower "
                "Params.base_learning_rate or raise Params.warmup_steps, then rerun."
            )
        logs["steps/s"] = steps / (time.perf_counter() - start)
        logs["learning_rate"] = float(np.asarray(self.optimizer.learning_rate))
        self._write_summaries("train", logs)
        progress.update(self.step, list(logs.items()))
        if self.step % params.checkpoint_every == 0 or self.step == until_step:
            self.save()
        return logs

    def evaluate(self, iterator, steps):
        """Runs `steps` eval steps; returns {"accuracy", "loss", "examples", "step"} over the unpadded examples."""
        self._eval_steps(iterator, tf.constant(steps))
        examples = int(np.asarray(self._metrics["eval"]["loss"].count))
        results = self._results("eval")
        self._write_summaries("eval", results)
        results |= {"examples": examples, "step": self.step}
        logging.info("Eval at step %d: %s", self.step, results)
        return results

    def predict(self, iterator, steps):
        """Returns {"index", "label", "probabilities"} numpy arrays for the unpadded examples, in split order."""
        outputs = [self._predict_step(iterator) for _ in range(steps)]
        local = self.strategy.experimental_local_results
        gathered = {key: np.concatenate([t.numpy() for out in outputs for t in local(out[key])]) for key in outputs[0]}
        real = gathered["weight"] > 0
        order = np.argsort(gathered["index"][real])
        return {key: gathered[key][real][order] for key in ("index", "label", "probabilities")}

    @tf.function
    def train_steps(self, iterator, steps):
        """Trains `steps` steps on batches from a distributed iterator, in one call: no checkpoints or summaries."""
        for _ in tf.range(steps):
            self.strategy.run(self._train_step, args=(next(iterator),))

    @tf.function
    def train_steps_on(self, batch, steps):
        """Trains `steps` steps on one distributed batch: the step's own speed, without input (--mode=benchmark)."""
        for _ in tf.range(steps):
            self.strategy.run(self._train_step, args=(batch,))

    @tf.function
    def _eval_steps(self, iterator, steps):
        for _ in tf.range(steps):
            self.strategy.run(self._eval_step, args=(next(iterator),))

    @tf.function
    def _predict_step(self, iterator):
        batch = next(iterator)

        def step(batch):
            probabilities = tf.nn.softmax(self.model(batch["image"], training=False))
            return {"probabilities": probabilities} | {key: batch[key] for key in ("index", "label", "weight")}

        return self.strategy.run(step, args=(batch,))

    def _train_step(self, batch):
        with tf.GradientTape() as tape:
            logits = self.model(batch["image"], training=True)
            per_example = per_example_loss(batch["label"], logits)
            # Each replica sees 1/replicas of the batch and gradients are summed, so divide by the global batch.
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=self.params.global_batch_size)
            scaled_loss = self.optimizer.scale_loss(loss)
        gradients = tape.gradient(scaled_loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(gradients, self.model.trainable_variables, strict=True))
        self._metrics["train"]["loss"].update_state(per_example)
        self._metrics["train"]["accuracy"].update_state(batch["label"], logits)

    def _eval_step(self, batch):
        logits = self.model(batch["image"], training=False)
        per_example = per_example_loss(batch["label"], logits)
        self._metrics["eval"]["loss"].update_state(per_example, sample_weight=batch["weight"])
        self._metrics["eval"]["accuracy"].update_state(batch["label"], logits, sample_weight=batch["weight"])

    def _results(self, split):
        """The metrics' values since the last call, as floats; resets them."""
        results = {}
        for name, metric in self._metrics[split].items():
            results[name] = float(metric.result())
            metric.reset_state()
        return results

    def _write_summaries(self, split, logs):
        with self._writers[split].as_default(step=self.step):
            for name, value in logs.items():
                tf.summary.scalar(name.replace("/", "_per_"), value)


@contextlib.contextmanager
def sigterm_stops(trainer):
    """While the block runs, SIGTERM asks `trainer` to save and stop at the end of its current call.

    Signals reach Python between tf.function calls, so a step is never cut in half. Only the main thread can catch
    them; elsewhere (a notebook's worker thread) this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: trainer.stop_requested.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
