"""The accuracy data goes through the one data-file reader's value checks (issue 21): labels above int64's max
do not wrap, non-finite or huge expected outputs are refused, casts that overflow are refused."""

from __future__ import annotations

import numpy as np
import pytest

from edgeprof.errors import ConfigError
from edgeprof.evaluation import accuracy


def test_uint64_labels_above_int64_max_are_refused_not_wrapped() -> None:
    lab = np.array([1, np.iinfo(np.uint64).max], dtype=np.uint64)
    with pytest.raises(ConfigError, match="does not fit int64"):
        accuracy._labels(lab, "labels", 2, ["out"], "--accuracy v.npz")


def test_labels_in_range_stay_int64() -> None:
    got, (idx, name) = accuracy._labels(np.array([0, 3], dtype=np.uint8), "labels", 2, ["out"], "--accuracy v")
    assert got.dtype == np.int64 and list(got) == [0, 3] and (idx, name) == (0, "out")


def test_a_float64_value_that_overflows_float32_is_refused() -> None:
    with pytest.raises(ConfigError, match="overflows float32"):
        accuracy._cast(np.array([1e300]), "float32", "--accuracy v.npz: array 'x'")
    assert accuracy._cast(np.array([0.5]), "float32", "x").dtype == np.float32


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e308])
def test_expected_outputs_must_be_finite_and_scorable(bad: float) -> None:
    from edgeprof.files import datafiles

    with pytest.raises(ConfigError):
        datafiles.require_finite(np.array([0.0, bad]), "e", "expected outputs", max_abs=accuracy.MAX_EXPECTED_ABS)
