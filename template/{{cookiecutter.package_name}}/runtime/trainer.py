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


class Trainer:
    """Trains and evaluates a model under a strategy; checkpoints in <model_dir>/checkpoints.

    The step counter is the optimizer's `iterations`, saved with the model, so a rerun of the same command resumes
    at the exact step of the latest checkpoint.
    """

    def __init__(self, steps, model_dir, params, chief=True):
        self.steps = steps
        self.strategy = steps.strategy
        self.model = steps.model
        self.optimizer = steps.optimizer
        self.params = params
        self.chief = chief
        self.stop_requested = threading.Event()  # set by SIGTERM (see sigterm_stops); training saves and stops
        # Keras keeps the state of its random draws (dropout masks) out of the model's weights; saving it too makes a
        # resumed run draw what an uninterrupted one would.
        random_state = [v for v in self.model.variables if "seed_generator_state" in v.path]
        self.checkpoint = tf.train.Checkpoint(model=self.model, optimizer=self.optimizer, random_state=random_state)
        self.manager = tf.train.CheckpointManager(
            self.checkpoint, os.path.join(model_dir, "checkpoints"), max_to_keep=params.keep_checkpoints
        )
        # Other workers take part in every save (their variables may be needed) but write to a private folder.
        self._worker_dir = None if chief else os.path.join(model_dir, f".worker-{os.getpid()}")
        self._writers = {
            split: tf.summary.create_file_writer(os.path.join(model_dir, split))
            if chief
            else tf.summary.create_noop_writer()
            for split in ("train", "eval")
        }

    @property
    def step(self):
        return int(self.optimizer.iterations.numpy())

    def restore(self):
        """Restores the latest checkpoint, if any; returns whether there was one.

        Raises InputError, before any training and leaving the checkpoint as it was, if it was written by another
        model (another network, other sizes or classes).
        """
        latest = self.manager.latest_checkpoint
        if latest:
            try:
                self.checkpoint.restore(latest).assert_existing_objects_matched()
            except (ValueError, AssertionError) as error:
                raise InputError(
                    f"The checkpoint {latest} does not fit this model: {str(error).splitlines()[0]} It was written "
                    "by another model (network, sizes or classes). Train into a new --model_dir (or restore "
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
        names = [*self.steps.metrics["train"], "learning_rate", "steps/s"]
        progress = keras.utils.Progbar(until_step, interval=0, stateful_metrics=names)
        while self.step < until_step and not self.stop_requested.is_set():
            logs = self._train_call(iterator, until_step, progress)
        if self.stop_requested.is_set():
            # A preemptible VM gets SIGTERM about 30 s before it goes: save what the last call trained, and stop.
            if self.step % self.params.checkpoint_every:
                self.save()
            logging.warning("SIGTERM: saved step %d and stopped. Rerun the same command to resume.", self.step)
            return logs
        # Gradients are summed across replicas, so these weights are equal on every worker of a multi-worker run.
        # (Non-trainable statistics, such as a normalization layer's moving means, are not: Keras keeps one estimate per
        # replica and saves the chief's.)
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
        self.steps.train_steps(iterator, tf.constant(steps))
        logs = self.steps.results("train")
        if not np.isfinite(logs["loss"]):
            raise DivergedError(
                f"The training loss became {logs['loss']} in steps {self.step - steps + 1}-{self.step}; nothing was "
                f"saved after it, so the latest checkpoint is still {self.manager.latest_checkpoint}. Lower "
                "Runtime.base_learning_rate or raise Runtime.warmup_steps, then rerun."
            )
        logs["steps/s"] = steps / (time.perf_counter() - start)
        logs["learning_rate"] = float(np.asarray(self.optimizer.learning_rate))
        self._write_summaries("train", logs)
        progress.update(self.step, list(logs.items()))
        if self.step % params.checkpoint_every == 0 or self.step == until_step:
            self.save()
        return logs

    def evaluate(self, iterator, steps):
        """Runs `steps` eval steps; returns the metrics over the unpadded examples, their number and the step."""
        self.steps.eval_steps(iterator, tf.constant(steps))
        examples = self.steps.examples_seen("eval")
        results = self.steps.results("eval")
        self._write_summaries("eval", results)
        results |= {"examples": examples, "step": self.step}
        logging.info("Eval at step %d: %s", self.step, results)
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
