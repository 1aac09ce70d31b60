#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora into tests/fuzz/<target>/seeds/ (pure Python, no numpy).

    python3 tests/fuzz/make_seeds.py

The seeds are small, valid or nearly valid inputs that reach deep into each reader; the fuzzer
mutates them. They are committed; rerun this script after changing it. Inputs a fuzzer crashed on go
into tests/fuzz/<target>/regressions/ by hand (see docs/reliability.md).
"""
import io
import math
import pathlib
import shutil
import struct
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent
REPO = ROOT.parent.parent


def write(target, name, data):
    folder = ROOT / target / "seeds"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode())


# ---- pipe_format: the example pipelines plus the grammar's corners
def pipe_seeds():
    for pipe in sorted((REPO / "pipelines").glob("*.pipe")):
        shutil.copy(pipe, ROOT / "pipe_format" / "seeds" / pipe.name)
    write("pipe_format", "corners.pipe",
          'source synthetic epochs=2 channels=3 \\\n  seed=7 # joined\n'
          'stage bandpass pha=[[4,8],[8,12]] amp="60:160:10" on=cpu:0\n'
          'stage surrogates n=10 min_shift=250ms shifts=[1, 2, 3]\n'
          'sink png path="out dir/# not a comment.png" grid=false\n')
    write("pipe_format", "errors.pipe", 'stage mi bins=18 "unterminated\nsink npy dir=[1,\n')
    write("pipe_format", "set.pipe", "surrogates.n=200\n")
    # Nesting at the limit (32) and past it (40), in a .pipe value and a --set value.
    write("pipe_format", "nesting.pipe",
          "stage bandpass pha=" + "[" * 32 + "4,8" + "]" * 32 + "\n"
          "stage mi pairs=" + "[" * 40 + "]" * 40 + "\n")
    write("pipe_format", "nesting_set.pipe", "bandpass.pha=" + "[" * 40 + "]" * 40 + "\n")
    # Output paths the engine checks before a run: special files, dots, the same file twice, an input.
    write("pipe_format", "outputs.pipe",
          "source npy path=in.npy fs=256\n"
          "sink npy dir=out/../out\n"
          "sink png path=/dev/null\n"
          "sink hdf5 path=out/pac.npy\n"
          "sink png path=in.npy grid=false\n")


# ---- npy_reader
def npy(descr, shape, values, version=1, fortran=False, fmt="<f"):
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (descr, fortran, dims)
    length_bytes = 2 if version == 1 else 4
    total = 6 + 2 + length_bytes + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    prefix = b"\x93NUMPY" + bytes([version, 0])
    prefix += struct.pack("<H" if version == 1 else "<I", len(header))
    body = b"".join(struct.pack(fmt, v) for v in values)
    return prefix + header.encode("latin1") + body


def npy_seeds():
    write("npy_reader", "f4_2x3.npy", npy("<f4", (2, 3), [0.5 * i for i in range(6)]))
    write("npy_reader", "f8_big_endian.npy", npy(">f8", (1, 2, 2), [1, -2, 3, -4], fmt=">d"))
    write("npy_reader", "i2_segments.npy", npy("<i2", (1, 1, 2, 3), list(range(6)), fmt="<h"))
    write("npy_reader", "i4_v2.npy", npy("<i4", (2, 2), [7, 8, 9, 10], version=2, fmt="<i"))
    write("npy_reader", "f4_v3.npy", npy("<f4", (3,), [math.nan, math.inf, 1.0], version=3))
    write("npy_reader", "fortran.npy", npy("<f4", (2, 2), [1, 2, 3, 4], fortran=True))
    write("npy_reader", "empty_rows.npy", npy("<f4", (0, 4), []))
    write("npy_reader", "truncated.npy", npy("<f4", (10, 10), [1.0, 2.0]))
    # .npz archives as NumPy writes them (np.savez: stored; np.savez_compressed: deflated), by
    # Python's own zipfile, so the reader meets zip structures it did not write.
    def npz(members, compression):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", compression) as archive:
            for name, data in members:
                with archive.open(name, "w", force_zip64=True) as member:
                    member.write(data)
        return out.getvalue()
    x = npy("<f8", (3, 4), [0.25 * i - 1 for i in range(12)], fmt="<d")
    sf = npy("<f8", (), [256.0], fmt="<d")
    write("npy_reader", "stored.npz", npz([("x.npy", x)], zipfile.ZIP_STORED))
    write("npy_reader", "deflated.npz", npz([("x.npy", x)], zipfile.ZIP_DEFLATED))
    write("npy_reader", "two_arrays.npz", npz([("x.npy", x), ("sf.npy", sf)], zipfile.ZIP_DEFLATED))
    write("npy_reader", "not_npy_member.npz", npz([("notes.txt", b"no array here")], zipfile.ZIP_STORED))


# ---- edf_reader: EDF, EDF+ with an annotation signal, BDF; 1 s records
def edf(signals, records, bdf=False, plus=False, record_count=None):
    """signals: list of (label, samples per record, digital values per record)."""
    def field(text, width):
        return text.encode("latin1")[:width].ljust(width)
    n = len(signals)
    head = (b"\xffBIOSEMI" if bdf else field("0", 8)) + field("X X X X", 80) + field("Startdate 01-JAN-2020 X X X", 80)
    head += field("01.01.20", 8) + field("00.00.00", 8) + field(str(256 * (n + 1)), 8)
    head += field("BDF+C" if bdf and plus else "EDF+C" if plus else ("24BIT" if bdf else ""), 44)
    head += field(str(records if record_count is None else record_count), 8) + field("1", 8) + field(str(n), 4)
    low, high = (-8388608, 8388607) if bdf else (-32768, 32767)
    columns = [
        [field(label, 16) for label, _, _ in signals],
        [field("", 80) for _ in signals],
        [field("" if label.endswith("Annotations") else "uV", 8) for label, _, _ in signals],
        [field("-100", 8) for _ in signals], [field("100", 8) for _ in signals],
        [field(str(low), 8) for _ in signals], [field(str(high), 8) for _ in signals],
        [field("", 80) for _ in signals],
        [field(str(per), 8) for _, per, _ in signals],
        [field("", 32) for _ in signals],
    ]
    head += b"".join(b"".join(col) for col in columns)
    width = 3 if bdf else 2
    data = b""
    for r in range(records):
        for label, per, values in signals:
            if label.endswith("Annotations"):
                tal = ("+%d\x14\x14\x00" % r + ("+0.5\x14stim\x14\x00" if r == 0 else "")).encode()
                data += tal.ljust(per * width, b"\x00")
            else:
                data += b"".join(int(v).to_bytes(width, "little", signed=True) for v in values[r * per:(r + 1) * per])
    return head + data


def edf_seeds():
    wave = [int(3000 * math.sin(i / 2)) for i in range(16)]
    write("edf_reader", "two_signals.edf", edf([("Fz", 8, wave), ("Cz", 8, wave[::-1])], 2))
    write("edf_reader", "annotations.edf",
          edf([("Fz", 8, wave), ("EDF Annotations", 16, [])], 2, plus=True))
    write("edf_reader", "bdf.bdf", edf([("A1", 4, [v * 100 for v in wave])], 2, bdf=True))
    write("edf_reader", "never_closed.edf", edf([("Fz", 8, wave)], 2, record_count=-1))


# ---- hdf5_metadata: recipes (tests/fuzz/hdf5_metadata_entry.cpp reads them byte by byte)
F32LE, F64LE, I16BE = 7, 9, 2


def recipe(rank, dims, dtype, name, layout, fs=None, fs_attribute=0, labels=0, policy=0, samples=(), tail=b""):
    out = bytes([rank - 1]) + bytes(dims) + bytes([dtype, name, len(layout)])
    out += bytes("ECTX".index(c) for c in layout)
    out += bytes([1 if fs is not None else 0]) + struct.pack("<d", fs or 0.0)
    out += bytes([fs_attribute, labels, policy]) + b"".join(struct.pack("<f", v) for v in samples)
    return out + tail


def hdf5_seeds():
    wave = [math.sin(i) for i in range(32)]
    # [2][2][8] float32 ECT, fs on the dataset as float64 256, two variable-length channel names.
    names = bytes([0, 2, 2, 0, 1, 3, 1, 0, 2])  # variable, 2 names: "Cz", "3zC"
    write("hdf5_metadata", "ect_attributes",
          recipe(3, [2, 2, 8], F32LE, 0, "ECT", fs_attribute=1, labels=2, samples=wave,
                 tail=bytes([F64LE, 0]) + struct.pack("<d", 256.0) + names))
    # [3][8] int16 big-endian CT in a group, fs given.
    write("hdf5_metadata", "ct_fs_given", recipe(2, [3, 8], I16BE, 1, "CT", fs=512.0, samples=[100 * v for v in wave[:24]]))
    # [8][2] TC, fs as a root array attribute (refused: not one number).
    write("hdf5_metadata", "tc_root_array",
          recipe(2, [8, 2], F32LE, 0, "TC", fs_attribute=5, samples=wave[:16], tail=bytes([F64LE, 2, 1, 200, 1, 100])))
    # NaN samples under nan_policy=skip, fs given.
    write("hdf5_metadata", "nan_skip",
          recipe(3, [1, 3, 8], F32LE, 0, "ECT", fs=100.0, policy=2, samples=wave[:8] + [math.nan] * 8 + wave[8:16]))


# ---- brainvision_reader: header, marker file and data joined by the entry's separator
BV_SEPARATOR = b"\n#8<#\n"  # tests/fuzz/entry_points.hpp: kBrainVisionSeparator


def vhdr(channels, fmt="INT_16", orientation="MULTIPLEXED", interval="4000", codepage="UTF-8", extra=""):
    """channels: list of (name, resolution, unit) as written."""
    text = ("Brain Vision Data Exchange Header File Version 1.0\r\n; pacflow fuzz seed\r\n\r\n"
            "[Common Infos]\r\nCodepage=%s\r\nDataFile=rec.eeg\r\nMarkerFile=rec.vmrk\r\nDataFormat=BINARY\r\n"
            "DataOrientation=%s\r\nNumberOfChannels=%d\r\nSamplingInterval=%s\r\n%s\r\n"
            "[Binary Infos]\r\nBinaryFormat=%s\r\n\r\n[Channel Infos]\r\n"
            % (codepage, orientation, len(channels), interval, extra, fmt))
    text += "".join("Ch%d=%s,,%s,%s\r\n" % (i + 1, n, r, u) for i, (n, r, u) in enumerate(channels))
    return text + "\r\n[Comment]\r\nfree text [Common Infos]\r\n"


def vmrk(markers):
    """markers: list of (type, description, position, size)."""
    text = ("Brain Vision Data Exchange Marker File, Version 1.0\r\n\r\n[Common Infos]\r\nCodepage=UTF-8\r\n"
            "DataFile=rec.eeg\r\n\r\n[Marker Infos]\r\n")
    return text + "".join("Mk%d=%s,%s,%d,%d,0\r\n" % (i + 1, t, d, p, n) for i, (t, d, p, n) in enumerate(markers))


def brainvision(header, markers, data, codec="utf-8"):
    return header.encode(codec) + BV_SEPARATOR + markers.encode(codec) + BV_SEPARATOR + data


def brainvision_seeds():
    wave = [int(3000 * math.sin(i / 2)) for i in range(32)]
    stim = [("New Segment", "", 1, 1), ("Stimulus", "S  1", 5, 1), ("Stimulus", "S  2", 12, 1)]
    write("brainvision_reader", "int16_multiplexed",
          brainvision(vhdr([("Fz", "0.1", "µV"), ("C3\\1A2", "", "")]), vmrk(stim), struct.pack("<32h", *wave)))
    write("brainvision_reader", "float32_vectorized_ansi",
          brainvision(vhdr([("Fz", "1", "µV"), ("Cz", "1", "µV")], "IEEE_FLOAT_32", "VECTORIZED", "1953.125", "ANSI",
                           "DataPoints=16\r\n"),
                      vmrk(stim + [("Bad Interval", "Bad Min-Max", 3, 4)]),
                      struct.pack("<32f", *[v / 7 for v in wave]), codec="latin-1"))
    write("brainvision_reader", "int32_comment_bad",
          brainvision(vhdr([("A1", "0.5", "nV")], "INT_32"), vmrk(stim + [("Comment", "BAD_eye", 20, 1)]),
                      struct.pack("<32i", *[v * 1000 for v in wave])))
    write("brainvision_reader", "ascii_refused",
          brainvision(vhdr([("Fz", "1", "µV")]).replace("DataFormat=BINARY", "DataFormat=ASCII"), vmrk(stim),
                      b"1.0\n2.0\n"))
    write("brainvision_reader", "partial_sample",
          brainvision(vhdr([("Fz", "1", "µV"), ("Cz", "1", "µV")]), vmrk(stim), struct.pack("<31h", *wave[:31])))


if __name__ == "__main__":
    for target in ("pipe_format", "npy_reader", "edf_reader", "hdf5_metadata", "brainvision_reader"):
        shutil.rmtree(ROOT / target / "seeds", ignore_errors=True)
        (ROOT / target / "seeds").mkdir(parents=True)
        (ROOT / target / "regressions").mkdir(exist_ok=True)
    pipe_seeds()
    npy_seeds()
    edf_seeds()
    hdf5_seeds()
    brainvision_seeds()
