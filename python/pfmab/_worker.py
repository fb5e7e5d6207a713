"""One worker process of pfmab.run(processes=N) (python/pfmab/_processes.py):
`python3 -m pfmab._worker FD` reads its job (pfmab.run's arguments, its
shard and part file among them) pickled on stdin after its length, runs it, and writes its
progress reports, then how it ended, as JSON lines on the pipe FD. A line
"stop" on stdin (or stdin's end: the parent is gone) stops the run as
Ctrl-C does, keeping its finished replications."""

import json
import os
import pickle
import signal
import sys
import threading
import traceback

from .running import run


def _read(size):
    """`size` bytes of stdin, read unbuffered (a buffered stdin read by a
    daemon thread stops the interpreter's shutdown)."""
    data = b""
    while len(data) < size:
        more = os.read(0, size - len(data))
        if not more:
            raise EOFError("the job ended early")
        data += more
    return data


def _stop_on_request():
    while (line := os.read(0, 64)) and b"stop" not in line:
        pass
    signal.raise_signal(signal.SIGINT)  # pfmab.run's Ctrl-C: rows kept


def main():
    pipe = os.fdopen(int(sys.argv[1]), "w", buffering=1)

    def say(**message):
        pipe.write(json.dumps(message) + "\n")

    job = pickle.loads(_read(int.from_bytes(_read(8), "little")))
    try:
        try:
            threading.Thread(target=_stop_on_request, daemon=True).start()
            run(job.pop("experiment"), progress=lambda report: say(progress=report), **job)
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a stop come too late
    except KeyboardInterrupt as e:
        say(interrupted=str(e))
        return 130
    except BaseException as e:  # noqa: B036: every error is the parent's to raise
        say(error={"type": type(e).__name__, "module": type(e).__module__, "message": str(e),
                   "traceback": traceback.format_exc()})
        return 1
    say(finished=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
