"""Runs trusted reference solutions (a child of sebench.tasks.execute; never given model code).

stdin: {"jobs": [{"id", "code", "entry", "inputs": [kwargs strings], "side": "package"|"numpy",
"package": name}]}. stdout: one JSON line per job: {"id", "cases": [{"ok": true, "value": data} |
{"ok": false, "error": text}]}. Values are plain data, encoded as sebench.tasks.plain.encode does.
"""

import json
import math
import signal
import sys
import warnings

CASE_SECONDS = 2.0
MAX_CHARS = 20000


class CaseTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise CaseTimeout(f"over {CASE_SECONDS} s")


def numpy_plain(value):
    import numpy as np

    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [numpy_plain(v) for v in value]
    return value


def encode(value):
    t = type(value)
    if t is complex:
        return {"__complex__": [value.real, value.imag]}
    if t in (list, tuple):
        return [encode(v) for v in value]
    if value is None or t in (bool, int, float, str):
        return value
    raise TypeError(f"not plain data: {t.__name__}")


def run_job(job):
    ns = {"__name__": "__reference__"}
    try:
        exec(compile(job["code"], "<reference>", "exec"), ns)
    except BaseException as exc:  # a broken reference fails every case
        return [{"ok": False, "error": f"{type(exc).__name__}: {exc}"}] * len(job["inputs"])
    if job["side"] == "package":
        plain = getattr(sys.modules[job["package"]], "_plain")
    else:
        plain = numpy_plain
    cases = []
    for text in job["inputs"]:
        signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
        try:
            value = encode(plain(eval(f"{job['entry']}({text})", ns)))
            line = json.dumps(value)
            if len(line) > MAX_CHARS:
                raise ValueError("output too large")
            cases.append({"ok": True, "value": value})
        except BaseException as exc:
            cases.append({"ok": False, "error": f"{type(exc).__name__}: {str(exc)[:200]}"})
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return cases


def main():
    warnings.simplefilter("ignore")
    signal.signal(signal.SIGALRM, _alarm)
    request = json.loads(sys.stdin.read())
    out = sys.stdout
    for job in request["jobs"]:
        out.write(json.dumps({"id": job["id"], "cases": run_job(job)}) + "\n")
    out.flush()


if __name__ == "__main__":
    main()
