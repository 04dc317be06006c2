"""The accuracy pass: every sample of a data file through the loaded model, after the timed loop.

Owns: feeding the samples (run.accuracy: arrays `in:NAME` with samples along axis 0, `per_inference` samples an
inference, the last inference padded with the last sample and its extra outputs dropped), and reducing each
sample's outputs to what the host scores: the top-k class indices of one output, and per-sample errors of outputs
against arrays `expected:<output index>`. Raw per-sample values go back; the host computes top-1 / top-5 (it keeps
the labels) and the error metrics (edgeprof/accuracy.py).
Does not own: reading or checking the user's file (the host writes the data file this reads, with every input
already of the dtype and shape the run feeds), timing (the pass is outside the timed loop and the power window).
"""

from .clock import now_ns
from .protocol import OpError, send_progress
from .vocab import ErrorKind

PROGRESS_INTERVAL_NS = 500 * 1000 * 1000


def _sample_outputs(out, per, stacked, index, name):
    """Output `index` of one inference -> its per-sample arrays (the first `per`)."""
    if stacked and out.ndim >= 1 and out.shape[0] == per:
        return [out[j] for j in range(per)]
    if per == 1:
        return [out]
    raise OpError(ErrorKind.BAD_INPUTS, "output %s is %s: no dim 0 of %d samples to score per sample"
                  % (name, list(out.shape), per), hint="run the accuracy pass with --batch 1")


def _topk(values, k):
    """Indices of the k largest values (ties: the lower index first), or [] when a value is not finite."""
    import numpy as np

    flat = np.asarray(values, dtype=np.float64).ravel()
    if not np.all(np.isfinite(flat)):
        return None
    order = np.argsort(-flat, kind="mergesort")  # stable: ties keep index order
    return [int(i) for i in order[:k]]


def _errors(got, ref):
    """(max abs, mean abs, mean squared error, cosine similarity) of one sample, or None if not finite."""
    import numpy as np

    g = np.asarray(got, dtype=np.float64).ravel()
    r = np.asarray(ref, dtype=np.float64).ravel()
    if not (np.all(np.isfinite(g)) and np.all(np.isfinite(r))):
        return None
    d = g - r
    ad = np.abs(d)
    ng, nr = float(np.sqrt(np.dot(g, g))), float(np.sqrt(np.dot(r, r)))
    if ng == 0.0 and nr == 0.0:
        cos = 1.0
    elif ng == 0.0 or nr == 0.0:
        cos = 0.0
    else:
        cos = float(np.dot(g, r)) / (ng * nr)
    return (float(ad.max()) if ad.size else 0.0, float(ad.mean()) if ad.size else 0.0,
            float(np.mean(d * d)) if d.size else 0.0, max(-1.0, min(1.0, cos)))


def run_pass(backend, spec, data, output_names=None):
    """spec: messages.AccuracySpec; data: the data file's arrays by key; backend: loaded, with the run's inputs
    set (inputs not in the file keep them). Returns a messages.AccuracyReply; an OpError for a file that does not
    fit the model (the caller turns it into the reply's `error`)."""
    import numpy as np

    from .messages import AccuracyReply

    n, per = spec.samples, max(1, spec.per_inference)
    arrays, expected = _check_data(spec, data, n)
    scores = _Scores(spec, per, expected, output_names)
    inferences = 0
    padded = 0
    t0 = now_ns()
    next_progress = t0 + PROGRESS_INTERVAL_NS
    send_progress("accuracy", n=0, total=n)
    for start in range(0, n, per):
        rows = list(range(start, min(start + per, n)))
        pad = per - len(rows)
        padded += pad
        rows += [n - 1] * pad
        feed = []
        for name, arr in arrays:
            chunk = arr[rows] if spec.stacked else arr[rows[0]]
            feed.append((name, np.ascontiguousarray(chunk)))
        backend.set_inputs(feed)
        backend.run()
        inferences += 1
        scores.add(backend.outputs(), start, per - pad)
        now = now_ns()
        if now >= next_progress:
            send_progress("accuracy", n=min(start + per, n), total=n)
            next_progress = now + PROGRESS_INTERVAL_NS
    duration = (now_ns() - t0) / 1e9
    send_progress("accuracy", n=n, total=n)
    return AccuracyReply(
        samples=n, inferences=inferences, padded=padded, duration_s=round(duration, 4), classes=scores.classes,
        topk=scores.topk, nonfinite=scores.nonfinite, errors=scores.errors())


def _check_data(spec, data, n):
    """([(input name, its n samples)], [(output index, its n expected samples)]) from the data file's arrays;
    an OpError naming the first array that is missing or holds another number of samples."""
    arrays = []
    for name in spec.inputs:
        key = "in:" + name
        if key not in data:
            raise OpError(ErrorKind.BAD_INPUTS, "the accuracy data file has no array %r" % key)
        arr = data[key]
        if arr.ndim < 1 or arr.shape[0] != n:
            raise OpError(ErrorKind.BAD_INPUTS, "accuracy array %r has %s samples, the run asks for %d"
                          % (key, arr.shape[0] if arr.ndim else "no", n))
        arrays.append((name, arr))
    expected = []
    for index in spec.expected:
        key = "expected:%d" % index
        if key not in data or data[key].ndim < 1 or data[key].shape[0] != n:
            raise OpError(ErrorKind.BAD_INPUTS, "the accuracy data file has no %d samples in %r" % (n, key))
        expected.append((index, data[key]))
    return arrays, expected


class _Scores(object):
    """What the pass gathers inference by inference: the top-k indices of spec.topk_output per sample, the
    per-sample errors of each expected output, the class count and the samples with a non-finite value."""

    def __init__(self, spec, per, expected, output_names):
        self.spec = spec
        self.per = per
        self.expected = expected
        self.names = list(output_names or [])
        self.topk = []
        self.errs = dict((i, ([], [], [], [])) for i, _ in expected)  # max abs, mean abs, mse, cosine
        self.classes = None
        self.nonfinite = 0

    def oname(self, i):
        return self.names[i] if i < len(self.names) else "#%d" % i

    def add(self, outs, start, real):
        """Score the `real` (not padded) samples of one inference, the samples from `start` on, from its `outs`."""
        per_out = {}

        def samples_of(i):
            import numpy as np

            if i not in per_out:
                if i >= len(outs):
                    raise OpError(ErrorKind.BAD_INPUTS, "the model has %d output(s); output #%d was asked for"
                                  % (len(outs), i))
                per_out[i] = _sample_outputs(np.asarray(outs[i]), self.per, self.spec.stacked, i, self.oname(i))
            return per_out[i]

        bad = [False] * real
        if self.spec.topk_output is not None:
            self._add_topk(samples_of(self.spec.topk_output), real, bad)
        for index, ref in self.expected:
            self._add_errors(index, samples_of(index), ref, start, real, bad)
        self.nonfinite += sum(1 for b in bad if b)

    def _add_topk(self, scored, real, bad):
        spec = self.spec
        for j in range(real):
            size = int(scored[j].size)
            if self.classes is None:
                if size < 2:
                    raise OpError(ErrorKind.BAD_INPUTS, (
                        "output %s has %d value(s) per sample: labels need class scores (2 or more)"
                        % (self.oname(spec.topk_output), size)),
                        hint="give expected outputs (expected:NAME arrays) instead of labels")
                self.classes = size
            top = _topk(scored[j], min(spec.k, size))
            if top is None:
                bad[j] = True
                top = []
            self.topk.append(top)

    def _add_errors(self, index, got, ref, start, real, bad):
        import numpy as np

        lists = self.errs[index]
        for j in range(real):
            want = ref[start + j]
            if int(np.asarray(got[j]).size) != int(want.size):
                raise OpError(ErrorKind.BAD_INPUTS, "output %s has %d values per sample, the expected array "
                              "%d" % (self.oname(index), int(np.asarray(got[j]).size), int(want.size)))
            e = _errors(got[j], want)
            if e is None:
                bad[j] = True
            for lst, v in zip(lists, e if e is not None else (None,) * 4):
                lst.append(v)

    def errors(self):
        """[messages.OutputErrors] per expected output, in the order the spec names them."""
        from .messages import OutputErrors

        errs = self.errs
        return [OutputErrors(output=i, max_abs=errs[i][0], mean_abs=errs[i][1], mse=errs[i][2], cosine=errs[i][3])
                for i, _ in self.expected]
