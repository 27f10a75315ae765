"""EXPERIMENT (benchmarks only): a fork server ("zygote") for training jobs.

The server imports torch and the ablation package once, then forks one child per request; the
child runs ``ablation.train.main(argv)`` with the client's stdin/stdout/stderr and working folder,
so a Snakemake job's shell command becomes a tiny client that costs an interpreter start (no torch
import) instead of a full ``python -m ablation.train`` start-up.

    python benchmarks/zygote.py serve --socket /tmp/z.sock          # imports torch, then waits
    python -S benchmarks/zygote.py client --socket /tmp/z.sock -- --settings '{...}' --outdir ...

The client passes its three standard file descriptors over the Unix socket (SCM_RIGHTS), so the
rule's ``> {log} 2>&1`` works unchanged; it exits with the child's exit status. If the server is
not reachable the client falls back to running ``python -m ablation.train`` itself.

Not production-ready (on purpose: it is a measurement): a killed client does not kill its forked
child, the server trusts anyone who can open the socket, and fork() after ``import torch`` is only
safe because the server never runs a torch operation (no thread pools exist yet when it forks).
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys

_LEN = struct.Struct("!I")


def _recv_exact(conn: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("peer closed")
        buf += chunk
    return buf


def client(sock_path: str, argv: list[str]) -> int:
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(sock_path)
    except OSError:
        os.execv(sys.executable, [sys.executable, "-m", "ablation.train", *argv])
    payload = json.dumps({"argv": argv, "cwd": os.getcwd()}).encode()
    socket.send_fds(conn, [_LEN.pack(len(payload)) + payload], [0, 1, 2])
    try:
        (status,) = _LEN.unpack(_recv_exact(conn, _LEN.size))
    except ConnectionError:
        return 1
    return status


def serve(sock_path: str) -> int:
    import signal
    import threading
    import traceback

    import torch  # noqa: F401  (the point: imported once, before any fork)

    import ablation.train as train
    from ablation import settings as _settings

    _settings.schema()  # parsed once, inherited by every child

    def reap() -> None:  # wait for children so their CPU time is accounted to this process
        while True:
            try:
                os.wait()
            except ChildProcessError:
                threading.Event().wait(0.05)

    threading.Thread(target=reap, daemon=True).start()
    if os.path.exists(sock_path):
        os.unlink(sock_path)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(sock_path)
    srv.listen(64)
    signal.signal(signal.SIGTERM, lambda *_: (srv.close(), os._exit(0)))
    print("ready", flush=True)
    while True:
        conn, _ = srv.accept()
        try:
            # the descriptors ride on the first segment: receive it with recv_fds
            msg, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
            if len(msg) < _LEN.size:
                msg += _recv_exact(conn, _LEN.size - len(msg))
            (n,) = _LEN.unpack(msg[: _LEN.size])
            msg = msg[_LEN.size :]
            if len(msg) < n:
                msg += _recv_exact(conn, n - len(msg))
            req = json.loads(msg)
        except (OSError, ValueError, ConnectionError):
            conn.close()
            continue
        pid = os.fork()
        if pid == 0:  # child
            srv.close()
            status = 1
            try:
                for target, fd in enumerate(fds):
                    os.dup2(fd, target)
                    os.close(fd)
                sys.stdin = open(0, closefd=False)  # noqa: SIM115
                sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
                sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
                os.chdir(req["cwd"])
                sys.argv = ["ablation.train", *req["argv"]]
                try:
                    status = train.main(req["argv"]) or 0
                except SystemExit as exc:
                    status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                except BaseException:
                    traceback.print_exc()
                    status = 1
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


def main(argv: list[str]) -> int:
    if len(argv) >= 3 and argv[0] in ("serve", "client") and argv[1] == "--socket":
        cmd, path, rest = argv[0], argv[2], argv[3:]
        if rest[:1] == ["--"]:
            rest = rest[1:]
        return serve(path) if cmd == "serve" else client(path, rest)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
