"""Writes the .npz fixtures of the npy source's tests with NumPy itself (np.savez, np.savez_compressed).

Run from the repository root with NumPy installed; the files are committed, so the tests need no
NumPy. The arrays come from tests/data/small/x.npy (2 epochs x 3 channels x 1024 samples, float32):

- tensorpac_like.npz (stored, np.savez): x = those 6 series as TensorPAC's (n_epochs, n_times),
  float64; sf = 256.0; channels = the channel names. Several arrays, so key= is needed.
- tensorpac_like_compressed.npz: the same, np.savez_compressed (deflated members).
- positional.npz (np.savez with one positional array): arr_0 = x.npy as it is, [E][C][T].
"""
import numpy as np

x = np.load("tests/data/small/x.npy")
epochs_times = x.reshape(-1, x.shape[-1]).astype(np.float64)
names = np.array(["Fz", "Cz", "Pz"])
np.savez("tests/data/npz/tensorpac_like.npz", x=epochs_times, sf=np.float64(256.0), channels=names)
np.savez_compressed("tests/data/npz/tensorpac_like_compressed.npz", x=epochs_times, sf=np.float64(256.0),
                    channels=names)
np.savez("tests/data/npz/positional.npz", x)
