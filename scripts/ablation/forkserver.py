"""A fork server for training jobs: import torch once per Snakemake run, not once per job.

A training job's work is seconds; starting ``python -m ablation.train`` costs ~2.5 s on top of it,
almost all of it ``import torch`` (benchmarks/results.md, section 5). So, when Snakemake runs jobs on
this machine, the workflow's ``onstart`` hook starts one server process that imports torch and
``ablation.train`` and waits on a Unix socket; each train job's shell command is

    python -m ablation.forkserver train --settings ... --outdir ...   # same arguments as ablation.train

which, when ``$ABLATION_FORK_SERVER`` names a live server, sends its arguments, working folder,
environment and its three standard file descriptors (so ``> {log} 2>&1`` works as before) and waits
for the exit status; the server forks a child that runs ``ablation.train.main`` exactly as a fresh
process would (same seeds, same thread settings: results are bit-identical; tests/workflow/test_forkserver.py).
Without a server (variable unset or empty, the server gone, a cluster node) the command trains in
its own process: the fork server only ever changes speed, never results. Evaluate jobs
(``python -m ablation.forkserver evaluate ...``, the arguments of ``ablation.evaluate``) are forked
from the same server, which runs ``ablation.evaluate.main`` for them.

Lifetime: the server exits when Snakemake (its parent) exits, or on SIGTERM (the ``onsuccess``/
``onerror`` hooks). A child exits as soon as its client does (Snakemake killing a job kills the
training with it). Safety of fork: the server never runs a torch operation, so no thread pool exists
when it forks; each child sets its own thread counts. Set ``ABLATION_FORK_SERVER=0`` in the
environment to switch it off (``make reproduce ABLATION_FORK_SERVER=0`` works too).

What it changes for you: a job's ``benchmark:`` file measures the small client process, not the
training (its time is ``train_seconds`` in metrics.csv and ``duration_seconds`` in provenance.json,
whose ``launcher`` field says how the run was started).
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys
import time

ENV_VAR = "ABLATION_FORK_SERVER"
_LEN = struct.Struct("!I")
_STARTED = b"+"  # sent by a forked child before anything else: from then on the client must not fall back
_START_TIMEOUT_S = 30.0  # how long start() waits for the server to listen
_TICK_S = 1.0  # how often the server reaps children and checks that its parent is alive


# ----------------------------------------------------------------------------- protocol


def _recv_exact(conn: socket.socket, n: int, buf: bytes = b"") -> bytes:
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("peer closed the connection")
        buf += chunk
    return buf


def _send_request(conn: socket.socket, request: dict) -> None:
    payload = json.dumps(request).encode()
    # the descriptors ride on the first segment
    socket.send_fds(conn, [_LEN.pack(len(payload)) + payload], [0, 1, 2])


def _recv_request(conn: socket.socket) -> tuple[dict, list[int]]:
    msg, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    try:
        msg = _recv_exact(conn, _LEN.size, msg)
        (n,) = _LEN.unpack(msg[: _LEN.size])
        body = _recv_exact(conn, n, msg[_LEN.size :])
        return json.loads(body), fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


# ----------------------------------------------------------------------------- client


def server_address() -> str | None:
    """The socket of the fork server to use, or None (unset, empty or "0": train in this process)."""
    value = os.environ.get(ENV_VAR, "")
    return None if value in ("", "0") else value


def _train_here(argv: list[str]) -> int:
    from ablation import train  # torch: imported only where training runs, never by a client the server serves

    return train.main(argv)


def _evaluate_here(argv: list[str]) -> int:
    from ablation import evaluate  # torch: imported only where evaluation runs, never by a client the server serves

    return evaluate.main(argv)


COMMANDS = {"train": (None, _train_here), "evaluate": ("ablation.evaluate", _evaluate_here)}
"""command -> (the module a forked child runs, None: the server's own target; the same in this process)."""


def client(argv: list[str], command: str = "train") -> int:
    """Run ``command`` (``ablation.train.main(argv)``, or ``ablation.evaluate``'s) in the fork server if
    one is reachable, else in this process."""
    target, here = COMMANDS[command]
    address = server_address()
    if address is None:
        return here(argv)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(address)
        _send_request(conn, {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "target": target})
        started = conn.recv(1) == _STARTED  # the forked child's first word
    except OSError:
        started = False
    if not started:  # no server (gone, never there, a different machine): same work, just slower
        conn.close()
        return here(argv)
    try:
        (status,) = _LEN.unpack(_recv_exact(conn, _LEN.size))
    except (ConnectionError, OSError):
        print(f"ablation.forkserver: the training process ended without an exit status ({address})", file=sys.stderr)
        return 1
    finally:
        conn.close()
    return status


# ----------------------------------------------------------------------------- server


def _child(conn: socket.socket, request: dict, fds: list[int], target: str) -> int:
    """In the forked child: become the client's process (fds, cwd, environment), then run ``target.main``."""
    import importlib
    import threading
    import traceback

    from ablation.provenance import LAUNCHER_VAR  # the server has imported it (train does) before it forked

    conn.sendall(_STARTED)

    for number, fd in enumerate(fds):
        os.dup2(fd, number)
        os.close(fd)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    os.environ[LAUNCHER_VAR] = "fork-server"
    argv = list(request["argv"])
    if request.get("target") in {module for module, _ in COMMANDS.values() if module}:
        target = request["target"]  # a command's own module (COMMANDS), else the server's
    sys.argv = [target, *argv]

    def die_with_client() -> None:  # the client sends nothing more: EOF means it is gone
        try:
            conn.recv(1)
        except OSError:
            pass
        os._exit(143)

    threading.Thread(target=die_with_client, daemon=True).start()
    try:
        return importlib.import_module(target).main(argv) or 0
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
        return 1


def serve(address: str, parent: int | None = None, target: str = "ablation.train") -> int:
    """Import torch and ``target`` (a module with ``main(argv)``), then fork one child per request until
    told to stop."""
    import importlib
    import signal

    parent = os.getppid() if parent is None else parent
    if os.path.exists(address):
        os.unlink(address)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(address)  # before the imports: early clients wait in the backlog instead of falling back
    srv.listen(128)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))

    import torch  # noqa: F401  (the point: imported once, before any fork; no torch operation runs here)

    from ablation import settings  # the schema, parsed once below and inherited by every child

    importlib.import_module(target)
    settings.schema()  # parsed once, inherited by every child
    srv.settimeout(_TICK_S)
    while True:
        _reap()
        if os.getppid() != parent:  # Snakemake is gone
            return 0
        try:
            conn, _ = srv.accept()
        except TimeoutError:
            continue
        conn.settimeout(None)
        try:
            request, fds = _recv_request(conn)
        except (OSError, ValueError, ConnectionError):
            conn.close()
            continue
        pid = os.fork()
        if pid == 0:
            status = 1
            try:
                srv.close()
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                status = _child(conn, request, fds, target)
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    conn.sendall(_LEN.pack(status & 0xFF))
                finally:
                    os._exit(status & 0xFF)
        for fd in fds:
            os.close(fd)
        conn.close()


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


# ----------------------------------------------------------------------------- Snakemake hooks


_started: list = []  # the servers start() started in this process, for stop()


def start(workflow) -> object | None:
    """onstart: start a server when jobs run on this machine; sets $ABLATION_FORK_SERVER for them.

    Returns a handle (stop() stops it, or every server started here when given none), or None when
    no server is used (switched off, a cluster executor, --software-deployment-method
    conda/apptainer, or not Linux).
    """
    import subprocess
    import tempfile

    if os.environ.get(ENV_VAR) == "0" or not sys.platform.startswith("linux"):
        return None
    # Cluster jobs run elsewhere, and jobs in a conda/apptainer environment must use its software:
    # then each job trains in its own process.
    if not workflow.local_exec or workflow.deployment_settings.deployment_method:
        os.environ[ENV_VAR] = ""
        return None
    folder = tempfile.mkdtemp(prefix="ablation-fork-server-")
    address = os.path.join(folder, "socket")
    proc = subprocess.Popen(
        _server_command(address),
        stdin=subprocess.DEVNULL,
        start_new_session=True,  # Ctrl-C in the terminal goes to Snakemake, which then stops us
    )
    # Jobs start as soon as this hook returns: wait until the server listens (a Python start-up, well
    # under a second), else the first jobs would find no server and train in their own processes.
    deadline = time.monotonic() + _START_TIMEOUT_S
    while not _listening(address):
        if proc.poll() is not None or time.monotonic() > deadline:
            stop((proc, folder))
            os.environ[ENV_VAR] = ""
            print("ablation: the fork server did not start; every training job runs in its own process", file=sys.stderr)
            return None
        time.sleep(0.005)
    os.environ[ENV_VAR] = address
    print(f"ablation: training jobs fork from one torch process (ablation.forkserver, {address})", file=sys.stderr)
    _started.append((proc, folder))
    return proc, folder


def _listening(address: str) -> bool:
    """Whether a server listens at ``address`` (the probe's empty connection is dropped by the server)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(address)
        return True
    except OSError:
        return False
    finally:
        probe.close()


def _server_command(address: str) -> list[str]:
    return [sys.executable, "-m", "ablation.forkserver", "serve", "--socket", address, "--parent", str(os.getpid())]


def stop(handle=None) -> None:
    """onsuccess/onerror: stop the server ``handle`` (default: every one start() started here) and
    remove its socket folder."""
    import shutil

    for proc, folder in [handle] if handle else list(_started):
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except Exception:  # noqa: BLE001
            proc.kill()
        shutil.rmtree(folder, ignore_errors=True)
        if (proc, folder) in _started:
            _started.remove((proc, folder))


# ----------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] and argv[0] in COMMANDS:
        return client(argv[1:], argv[0])
    if argv[:1] == ["serve"]:
        import argparse

        parser = argparse.ArgumentParser(prog="python -m ablation.forkserver serve")
        parser.add_argument("--socket", required=True)
        parser.add_argument("--parent", type=int, default=None, help="exit when this process is gone")
        parser.add_argument("--target", default="ablation.train", help="the module whose main(argv) a child runs")
        args = parser.parse_args(argv[1:])
        return serve(args.socket, args.parent, args.target)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
