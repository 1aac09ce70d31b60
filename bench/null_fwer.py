#!/usr/bin/env python3
"""Seeded null simulations (issue 36) of the trial-level test (surrogates trials=maxstat) through pipeline_cli.
Each dataset: E epochs x C channels x T samples of noise with no coupling; a channel's family
(its cells) rejects when its smallest trial p-value is <= 0.05. Prints FWER per design.
    /usr/bin/python3 bench/null_fwer.py build/bin/pipeline_cli 250   (docs/methods.md: the figures)"""
import json, subprocess, sys, os
import numpy as np
CLI = sys.argv[1]; N = int(sys.argv[2]); work = sys.argv[3] if len(sys.argv) > 3 else "/tmp/pacflow_null_fwer"; os.makedirs(work, exist_ok=True)
def pink(rng, shape):
    x = rng.standard_normal(shape); f = np.fft.rfftfreq(shape[-1]); f[0] = f[1]
    return np.fft.irfft(np.fft.rfft(x) / np.sqrt(f), n=shape[-1])
def run(x, extra=""):
    np.save(f"{work}/x.npy", x.astype(np.float32))
    open(f"{work}/p.pipe", "w").write(
        f"source npy path=x.npy fs=512\nstage bandpass pha=4:12:3 amp=60:120:3\nstage hilbert\nstage mi\n"
        f"stage surrogates n=200 seed=7 trials=maxstat {extra}\nsink npy dir=o\n")
    r = subprocess.run([CLI, "run", "-q", f"{work}/p.pipe"], capture_output=True, text=True)
    if r.returncode: return None, r.stderr.strip().splitlines()[-1]
    return np.load(f"{work}/o/trial_pvalues.npy"), r.stderr
designs = [("white, 8 epochs", lambda g: g.standard_normal((8, 4, 2048))),
           ("pink, 8 epochs", lambda g: pink(g, (8, 4, 2048))),
           ("white, 6 epochs", lambda g: g.standard_normal((6, 4, 2048))),
           ("white, 4 epochs", lambda g: g.standard_normal((4, 4, 2048)))]
for name, make in designs:
    hits = fams = 0; warned = 0
    for seed in range(N):
        p, err = run(make(np.random.default_rng(1000 + seed)))
        if p is None: print(name, "refused:", err); break
        warned += "smallest p-value" in err or "orderings" in err
        m = p.reshape(p.shape[0], -1).min(axis=1); hits += int((m <= 0.05).sum()); fams += len(m)
    print(f"{name}: FWER {hits}/{fams} = {100*hits/fams:.1f} % (channel families, {N} datasets; warned in {warned})", flush=True)
# Overlapping epochs cut from one continuous white recording (50 % and 75 % overlap), given as an
# array: the npy source cannot know they overlap, so the test still runs: the hole arrays leave.
def overlapping(g, step):
    x = g.standard_normal((4, 2048 + step * 7))
    return np.stack([x[:, e * step:e * step + 2048] for e in range(8)])
for name, step in (("50 % overlap (npy, undeclared)", 1024), ("75 % overlap (npy, undeclared)", 512)):
    hits = fams = 0
    for seed in range(N):
        p, err = run(overlapping(np.random.default_rng(2000 + seed), step))
        m = p.reshape(p.shape[0], -1).min(axis=1); hits += int((m <= 0.05).sum()); fams += len(m)
    print(f"{name}: FWER {hits}/{fams} = {100*hits/fams:.1f} %", flush=True)
