"""Per-epoch z of swap_trials surrogates against each epoch's gain, by measure (docs/methods.md).

White noise, 20 epochs x 8 channels x 4 s at 512 Hz, each epoch scaled by exp(N(0, 1)); three
seeded datasets per measure. Prints the correlation of an epoch's mean pac_z with its log gain.
Run: PYTHONPATH=build/python .venv/bin/python bench/swap_trials_gain.py
"""

from __future__ import annotations

import numpy as np

import pacflow


def main() -> None:
    rng = np.random.default_rng(1)
    epochs, channels, times, fs = 20, 8, 2048, 512.0
    for method in ["tort", "mvl", "hr", "ndpac", "plv", "gc"]:
        z_means, log_gains = [], []
        for _ in range(3):
            gain = np.exp(rng.normal(0.0, 1.0, epochs))
            x = rng.standard_normal((epochs, channels, times)) * gain[:, None, None]
            extra = {"surrogates__gain_confound": "warn"} if method == "mvl" else {}
            result = pacflow.comodulogram(x, fs, f_pha="4:12:3", f_amp="60:120:3", method=method, n_perm=100,
                                          surrogates="swap_trials", surrogates__trials="none", progress=False,
                                          **extra)
            z_means.append(np.asarray(result["pac_z"]).reshape(epochs, -1).mean(axis=1))
            log_gains.append(np.log(gain))
        r = np.corrcoef(np.concatenate(z_means), np.concatenate(log_gains))[0, 1]
        print(f"{method:6s} r(z, log gain) = {r:+.2f}")


if __name__ == "__main__":
    main()
