"""Fourier-transform calibration models for kernels.py: onnxruntime's own STFT op, and the strided convolution
some exporters write instead.

Owns:
- `stft_op(g)`: one STFT on its own input and output (the "misc" models);
- `stft_front(g)`: a log-mel front end before a "cnn1d" model — raw samples [1, L, 1] → STFT (a window of 256 to 2048
  samples, half of them not a power of 2, as kaldi's 400-sample frames and whisper's are; a hop of a half, a quarter
  or 10 ms at 16 kHz; 8 to 600 frames) → power (ReduceSumSquare over real and imaginary) → a mel filterbank (MatMul
  against 40 to 128 filters) → Log → [1, mels, frames], as torch.stft exports it and onnx-asr's front ends run it;
- `conv_front(g)`: the STFT as Silero VAD and openWakeWord write it, one wide strided convolution (64-512 taps)
  over [1, 1, samples], then its square — the only front end below opset 17, where the STFT op does not exist.
onnxruntime computes a power-of-2 window with a radix-2 FFT and any other with Bluestein's chirp-z around two FFTs
of twice the length (export/flops.py counts both): round 9's held-out kaldi front end, whose STFT no table had
measured, was predicted at a tenth of its time.
Does not own: the graph under construction (kernels._G), the rest of the 1-D CNN.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..export.flops import fft_flops

__all__ = ["stft_front", "stft_op", "conv_front", "STFT_OPSET"]

STFT_OPSET = 17


def _stft(g: Any, max_flops: float) -> tuple[str, int, int]:
    """One STFT over a new input of raw samples [1, L, 1], within `max_flops`; (spectrum [1, frames, bins, 2],
    frames, window)."""
    rng: np.random.Generator = g.rng
    win = int(rng.choice([256, 512, 1024, 2048, 320, 400, 480, 1000]))
    hop = int(rng.choice([win // 2, win // 4, 160]))
    frames = int(rng.choice([8, 32, 100, 300, 600]))
    while frames > 8 and frames * fft_flops(win) > max_flops:
        frames //= 2
    x = g.input([1, win + hop * (frames - 1), 1])
    spec = g.node("STFT", [x, g.const([], np.int64, hop), g.const([win], value=np.hanning(win))], onesided=1)
    g.flops += frames * fft_flops(win)
    return spec, frames, win


def stft_op(g: Any, max_flops: float) -> None:
    """One STFT on its own input and output (kernels.py's "misc" models: one sample each, several a table)."""
    spec, frames, win = _stft(g, max_flops)
    g.output(spec, [1, frames, win // 2 + 1, 2])


def stft_front(g: Any, max_flops: float) -> tuple[str, int, int]:
    """Write the front end into `g` (kernels._G), its STFT within half of `max_flops`; (output tensor
    [1, mels, frames], mels, frames)."""
    spec, frames, win = _stft(g, max_flops / 2)
    bins, mels = win // 2 + 1, int(g.rng.choice([40, 64, 80, 128]))
    power = g.node("ReduceSumSquare", [spec], axes=[-1], keepdims=0)  # [1, frames, bins]
    weights = np.abs(g.rng.standard_normal((bins, mels))) * 0.01
    mel = g.node("MatMul", [power, g.const([bins, mels], value=weights)])
    g.flops += 2.0 * frames * bins * mels
    logmel = g.node("Log", [g.node("Add", [mel, g.const([], value=1e-6)])])
    return g.node("Transpose", [logmel], perm=[0, 2, 1]), mels, frames


def conv_front(g: Any) -> tuple[str, int, int]:
    """Write the strided-convolution front end into `g`: [1, 1, samples] → [1, win + 2, frames], k = win,
    stride = hop; (output tensor, channels, frames)."""
    rng: np.random.Generator = g.rng
    win = int(rng.choice([64, 128, 256, 400, 512]))
    hop = win // int(rng.choice([2, 4]))
    length = win + hop * int(rng.choice([3, 8, 16, 64]))
    t = g.node("Conv", [g.input([1, 1, length]), g.const([win + 2, 1, win])], kernel_shape=[win], strides=[hop])
    frames = (length - win) // hop + 1
    g.flops += 2.0 * (win + 2) * frames * win
    return g.node("Mul", [t, t]), win + 2, frames
