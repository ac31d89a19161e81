"""Failures a user can fix. main.py prints their message, which names the cause and the fix, without a traceback."""

# The first item of a tf.debugging.Assert that a task's input pipeline raises for bad data; its second item says what
# is wrong, and the runtime turns it into an InputError that names --data_dir (records.read_errors_explained).
DATA_ERROR = "Bad data:"


class UserError(Exception):
    """A failure that the user fixes by changing input, config or hardware rather than code."""


class InputError(UserError, ValueError):
    """A flag, config file or data directory that cannot be used as it is."""


class SetupError(UserError, RuntimeError):
    """Hardware or a cluster that is not what the config asks for, or that does not answer in time."""


class DivergedError(UserError, FloatingPointError):
    """Training produced a loss that is not finite."""
