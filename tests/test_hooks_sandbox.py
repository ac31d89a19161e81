"""The hooks open no network connection and start no process: checked with Python audit hooks in the hook processes."""

import json

AUDIT = """
import json, os, sys
LOG = os.environ["HOOK_AUDIT_LOG"]
FORBIDDEN = ("socket.", "subprocess.", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "urllib.")
def audit(event, args):
    if event.startswith(FORBIDDEN):
        with open(LOG, "a") as f:
            f.write(json.dumps([event, repr(args)[:200]]) + "\\n")
if sys.argv[0].endswith(".py"):  # a hook script (cookiecutter runs each as `python <rendered copy>.py`)
    with open(LOG, "a") as f:
        f.write(json.dumps(["started", sys.argv[0]]) + "\\n")
    sys.addaudithook(audit)
"""


def test_hooks_open_no_connection_and_start_no_process(tmp_path, render, monkeypatch):
    (tmp_path / "audit").mkdir()
    (tmp_path / "audit" / "sitecustomize.py").write_text(AUDIT)
    log = tmp_path / "audit.log"
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "audit"))  # the hook processes import sitecustomize from here
    monkeypatch.setenv("HOOK_AUDIT_LOG", str(log))
    render(tmp_path / "out")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    started = [e for e in events if e[0] == "started"]
    assert len(started) == 2, f"both hooks ran under the audit hook: {events}"
    assert [e for e in events if e[0] != "started"] == []
