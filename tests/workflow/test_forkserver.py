"""The fork server (ablation.forkserver): same results as a fresh process, falls back when absent,
passes exit status and log through, and leaves nothing running behind it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the fork server is Linux-only")

PY = sys.executable
SETTINGS = {"epochs": 25, "seed": 3, "arch": "encoder", "depth": 2, "heads": 2}


def _env(address: str | None) -> dict:
    env = dict(os.environ)
    env.pop("ABLATION_LAUNCHER", None)
    if address is None:
        env.pop("ABLATION_FORK_SERVER", None)
    else:
        env["ABLATION_FORK_SERVER"] = address
    return env


def _train(cwd: Path, outdir: str, address: str | None, settings=SETTINGS, module="ablation.forkserver") -> tuple:
    args = [PY, "-m", module] + (["train"] if module == "ablation.forkserver" else [])
    args += ["--settings", json.dumps(settings), "--outdir", outdir, "--study", "s", "--run-id", "r"]
    log = cwd / f"{outdir}.log"
    with log.open("w") as fh:
        rc = subprocess.run(args, cwd=cwd, env=_env(address), stdout=fh, stderr=subprocess.STDOUT, timeout=300).returncode
    return rc, log.read_text()


def _metrics(path: Path) -> dict:
    header, row = path.read_text().splitlines()[:2]
    values = dict(zip(header.split(","), row.split(",")))
    values.pop("train_seconds")
    return values


def _children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids += [int(k) for k in (task / "children").read_text().split()]
    return kids


def _gone(pid: int, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":  # exited, waiting to be reaped
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def server(tmp_path):
    address = str(tmp_path / "fs.sock")
    proc = subprocess.Popen([PY, "-m", "ablation.forkserver", "serve", "--socket", address], env=_env(None))
    deadline = time.monotonic() + 60
    while not os.path.exists(address):
        assert proc.poll() is None, "the server exited"
        assert time.monotonic() < deadline, "the server did not bind its socket"
        time.sleep(0.05)
    yield proc, address
    proc.terminate()
    proc.wait(timeout=10)


def test_same_results_as_a_fresh_process(tmp_path, server):
    proc, address = server
    rc_fs, log_fs = _train(tmp_path, "fs", address)
    rc_p, _ = _train(tmp_path, "p", None, module="ablation.train")
    assert rc_fs == rc_p == 0
    assert "s/r: ok after 25 epochs" in log_fs  # the child's stdout went to the client's log file
    assert _metrics(tmp_path / "fs" / "metrics.csv") == _metrics(tmp_path / "p" / "metrics.csv")
    for name in ("curve.csv", "init_grads.csv", "settings.json"):
        assert (tmp_path / "fs" / name).read_bytes() == (tmp_path / "p" / name).read_bytes(), name
    assert json.loads((tmp_path / "fs" / "provenance.json").read_text())["launcher"] == "fork-server"
    assert json.loads((tmp_path / "p" / "provenance.json").read_text())["launcher"] == "process"
    assert proc.poll() is None  # still serving


@pytest.mark.parametrize(
    "settings, status, message",
    [({"bogus": 1}, 2, "unknown settings: bogus"), ({"heads": 3}, 1, "must be a positive divisor of d_model")],
)
def test_exit_status_and_errors_pass_through(tmp_path, server, settings, status, message):
    _, address = server
    rc, log = _train(tmp_path, "bad", address, settings=settings)
    rc_p, log_p = _train(tmp_path, "bad_p", None, settings=settings, module="ablation.train")
    assert rc == rc_p == status
    assert message in log and message in log_p


def test_falls_back_to_training_in_process(tmp_path):
    rc, log = _train(tmp_path, "nosrv", str(tmp_path / "no-such.sock"), settings={**SETTINGS, "epochs": 2})
    assert rc == 0, log
    assert json.loads((tmp_path / "nosrv" / "provenance.json").read_text())["launcher"] == "process"
    rc, _ = _train(tmp_path, "off", "0", settings={**SETTINGS, "epochs": 2})
    assert rc == 0
    assert json.loads((tmp_path / "off" / "provenance.json").read_text())["launcher"] == "process"


PROBE = """
import json, os, sys

def main(argv):
    print(json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}))
    print("to stderr", file=sys.stderr)
    return int(argv[0])
"""


def test_the_child_runs_as_the_client_would(tmp_path):
    """The forked child takes the client's arguments, working folder, environment (not the server's)
    and standard files, and its exit status is the client's."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "probe_target.py").write_text(PROBE)
    address = str(tmp_path / "probe.sock")
    path = os.pathsep.join(filter(None, [str(tmp_path / "lib"), os.environ.get("PYTHONPATH")]))
    server_env = {**_env(None), "PYTHONPATH": path, "ONLY_IN_THE_SERVER": "1"}
    proc = subprocess.Popen([PY, "-m", "ablation.forkserver", "serve", "--socket", address, "--target", "probe_target"],
                            env=server_env)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(address):
            assert proc.poll() is None and time.monotonic() < deadline, "the server did not bind its socket"
            time.sleep(0.05)
        cwd = tmp_path / "job"
        cwd.mkdir()
        client_env = {**_env(address), "ONLY_IN_THE_CLIENT": "token"}
        with (cwd / "out").open("w") as out, (cwd / "err").open("w") as err:
            rc = subprocess.run([PY, "-m", "ablation.forkserver", "train", "7", "--x"], cwd=cwd, env=client_env,
                                stdout=out, stderr=err, timeout=60).returncode  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert rc == 7
    seen = json.loads((cwd / "out").read_text())
    assert seen["argv"] == ["7", "--x"] and seen["cwd"] == str(cwd)
    assert seen["env"] == {**client_env, "ABLATION_LAUNCHER": "fork-server"}
    assert (cwd / "err").read_text() == "to stderr\n"


def test_killing_the_client_kills_the_training(tmp_path, server):
    proc, address = server
    args = [PY, "-m", "ablation.forkserver", "train", "--settings", json.dumps({**SETTINGS, "epochs": 100000}),
            "--outdir", "long"]  # fmt: skip
    client = subprocess.Popen(args, cwd=tmp_path, env=_env(address), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not (kids := _children(proc.pid)):
        assert time.monotonic() < deadline, "no training child was forked"
        time.sleep(0.05)
    client.send_signal(signal.SIGTERM)
    client.wait(timeout=10)
    assert _gone(kids[0], within_s=10), "the forked training outlived its client"
    assert not (tmp_path / "long" / "metrics.csv").exists()


def test_server_exits_with_its_parent(tmp_path):
    address = str(tmp_path / "orphan.sock")
    # a parent that starts the server and exits at once: the server must notice and exit
    starter = (
        "import subprocess, sys; "
        "import os; "
        "p = subprocess.Popen([sys.executable, '-m', 'ablation.forkserver', 'serve', '--socket', "
        f"{address!r}, '--parent', str(os.getpid())], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
        "print(p.pid, flush=True)"
    )
    out = subprocess.run([PY, "-c", starter], capture_output=True, text=True, timeout=60, env=_env(None))
    pid = int(out.stdout.split()[0])
    assert _gone(pid, within_s=60), "the server outlived the process that started it"


def _workflow():
    from types import SimpleNamespace

    return SimpleNamespace(local_exec=True, deployment_settings=SimpleNamespace(deployment_method=None))


def test_start_returns_only_once_the_server_listens(monkeypatch):
    """Snakemake starts jobs right after onstart: the first job must already find the server (a race
    that sent one run of the CI harness down the in-process path)."""
    import socket

    from ablation import forkserver

    monkeypatch.delenv("ABLATION_FORK_SERVER", raising=False)
    handle = forkserver.start(_workflow())
    try:
        assert handle is not None
        address = os.environ["ABLATION_FORK_SERVER"]
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(address)  # no wait, no retry
        conn.close()
    finally:
        forkserver.stop()  # as the Snakefile's onsuccess/onerror: whatever start() started
        monkeypatch.delenv("ABLATION_FORK_SERVER", raising=False)
    proc, folder = handle
    assert proc.poll() is not None and not os.path.exists(folder)


def test_start_falls_back_when_the_server_cannot_start(monkeypatch, capsys):
    from ablation import forkserver

    monkeypatch.delenv("ABLATION_FORK_SERVER", raising=False)
    monkeypatch.setattr(forkserver, "_server_command", lambda address: [PY, "-c", "raise SystemExit(3)"])
    assert forkserver.start(_workflow()) is None
    assert os.environ["ABLATION_FORK_SERVER"] == ""  # jobs train in their own processes
    assert "did not start" in capsys.readouterr().err
    monkeypatch.delenv("ABLATION_FORK_SERVER", raising=False)
