"""A comodulogram of an mne.Epochs, drawn with Result.plot().

    .venv/bin/python python/examples/mne_epochs.py [out.png]
"""
import sys

import matplotlib

matplotlib.use("Agg")
import mne
import numpy as np

import pacflow

# Epochs of four EEG channels; Cz's 80 Hz activity follows the phase of a wandering 6 Hz rhythm.
sfreq, n_epochs, n_times = 256.0, 30, 1024
rng = np.random.default_rng(0)
drift = np.cumsum(rng.standard_normal((n_epochs, 4, n_times)), axis=-1)
slow = np.sin(2 * np.pi * np.cumsum(6 + 2 * drift / np.abs(drift).max(axis=-1, keepdims=True), axis=-1) / sfreq)
fast = np.sin(2 * np.pi * 80 * np.arange(n_times) / sfreq)
coupled = np.array([0, 1, 0, 0])[None, :, None]
data = 1e-5 * (slow + 0.4 * (1 + coupled * slow) * fast + 0.5 * rng.standard_normal((n_epochs, 4, n_times)))
info = mne.create_info(["Fz", "Cz", "Pz", "Oz"], sfreq, "eeg")
epochs = mne.EpochsArray(data, info, verbose=False)

result = pacflow.comodulogram(epochs, f_pha="4:12:5", f_amp="60:100:5", n_perm=200, picks=["Fz", "Cz", "Pz"])
print(result)
print("channels:", result.channels, "| significant cells per channel:", (result.trial_pvalues < 0.05).sum(axis=(1, 2)))
figure = result.plot(per_channel=True)
figure.savefig(sys.argv[1] if len(sys.argv) > 1 else "mne_comodulogram.png", dpi=100)
