"""The template's own logic: answer validation, pruning of unselected options, and the `new` command."""
