"""A TensorPAC script with only its import line changed (``from tensorpac import Pac`` before):
PAC of simulated coupled signals with three idpac settings, and the p-values of the coupling.

    .venv/bin/python python/examples/tensorpac_example.py
"""
import numpy as np
from tensorpac.signals import pac_signals_wavelet

from pacflow.tensorpac import Pac  # was: from tensorpac import Pac

sf = 512.
data, time = pac_signals_wavelet(sf=sf, f_pha=10, f_amp=100, noise=.8, n_epochs=20, n_times=4000)

p = Pac(idpac=(6, 0, 0), f_pha=(2, 30, 1, 1), f_amp=(60, 150, 5, 5))
xpac = p.filterfit(sf, data, n_jobs=2)
print(f"{p.method}: pac {xpac.shape}, strongest at {p.xvec[xpac.mean(-1).argmax(1).max()]:.1f} Hz phase")

p.idpac = (2, 2, 4)
xpac = p.filterfit(sf, data, n_perm=200, n_jobs=2, random_state=0)
amp, pha = np.unravel_index(xpac.mean(-1).argmax(), xpac.shape[:2])
print(f"{p.method}, {p.str_surro}, {p.str_norm}: z {xpac.mean(-1).max():.1f} at "
      f"{p.xvec[pha]:.1f} Hz x {p.yvec[amp]:.1f} Hz, p = {p.pvalues[amp, pha]:.3f}")

pha_data, amp_data = p.filter(sf, data, ftype="phase"), p.filter(sf, data, ftype="amplitude")
p.idpac = (1, 0, 0)
print(f"{p.method} from filter + fit: {p.fit(pha_data, amp_data).mean():.4f}")
