"""Writes the notch stage's reference with SciPy itself (scipy.signal.iirnotch and filtfilt).

Run from the repository root with NumPy and SciPy installed; the files are committed, so the tests
need neither. The input is series 0 of tests/data/small/x.npy (1024 samples at 256 Hz) plus a
50 Hz and a 100 Hz sine; the expected output removes 50 Hz, then 100 Hz (q = 30), each with
filtfilt's defaults (padtype='odd', padlen=9), in float64.

- x.npy: the input, float32 (what the stage reads).
- notched.npy: float64, filtfilt(iirnotch(100), filtfilt(iirnotch(50), x)).
- coefficients.json: b and a of iirnotch(50, 30, 256) and iirnotch(100, 30, 256), and lfilter_zi of the first.
"""
import json

import numpy as np
from scipy import signal

fs, q = 256.0, 30.0
t = np.arange(1024) / fs
x = np.load("tests/data/small/x.npy")[0, 0].astype(np.float64)
x = (x + 0.8 * np.sin(2 * np.pi * 50 * t + 0.3) + 0.3 * np.sin(2 * np.pi * 100 * t)).astype(np.float32)
np.save("tests/data/notch/x.npy", x)
y = x.astype(np.float64)
coefficients = {}
for f in (50.0, 100.0):
    b, a = signal.iirnotch(f, q, fs)
    coefficients[str(int(f))] = {"b": b.tolist(), "a": a.tolist(), "zi": signal.lfilter_zi(b, a).tolist()}
    y = signal.filtfilt(b, a, y)
np.save("tests/data/notch/notched.npy", y)
with open("tests/data/notch/coefficients.json", "w") as out:
    json.dump({"fs": fs, "q": q, "scipy": __import__("scipy").__version__, "notches": coefficients}, out, indent=1)
