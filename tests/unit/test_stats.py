import math

import numpy as np
import pytest

from edgeprof.analysis import stats


@pytest.fixture
def samples():
    # heavy right tail, as real latencies have
    return np.random.RandomState(1).lognormal(mean=0.0, sigma=0.4, size=5000)


def test_percentiles_match_numpy_on_raw_samples(samples):
    s = stats.latency_summary(samples.tolist())
    for key, q in stats.PERCENTILES:
        assert getattr(s, key) == pytest.approx(np.percentile(samples, q), rel=1e-12)
    assert s.min == samples.min() and s.max == samples.max()
    assert s.mean == pytest.approx(samples.mean())
    assert s.std == pytest.approx(samples.std(ddof=1))
    assert s.cv == pytest.approx(samples.std(ddof=1) / samples.mean())
    assert s.n == 5000


def test_tail_is_not_clipped(samples):
    spiked = samples.tolist() + [1000.0]
    s = stats.latency_summary(spiked)
    assert s.max == 1000.0
    assert s.mean == pytest.approx(np.mean(spiked))


def test_early_stopping_minimum_queries_match_mlperf():
    # LoadGen: p90 needs >= 64 queries, p99 >= 662 (confidence 0.99, at least one over-latency query)
    assert stats.min_queries_for(0.90) == 64
    assert stats.min_queries_for(0.99) == 662
    assert stats.overlatency_limit(63, 0.90) is None
    assert stats.overlatency_limit(64, 0.90) == 1


def test_early_stopping_limit_is_binomial_bound():
    n, p = 1000, 0.90
    t = stats.overlatency_limit(n, p)
    cdf = lambda k: sum(math.comb(n, i) * 0.1 ** i * 0.9 ** (n - i) for i in range(k + 1))  # noqa: E731
    assert cdf(t) <= 0.01 < cdf(t + 1)


def test_early_stopping_estimate_is_conservative(samples):
    est = stats.early_stopping_estimate(samples, 0.90)
    assert est is not None
    assert est >= np.percentile(samples, 90)
    assert est in set(samples.tolist())  # an observed sample, not an interpolation


def test_few_samples_have_no_early_stop_and_warn():
    s = stats.latency_summary([1.0] * 10)
    assert s.early_stop_p90 is None and s.early_stop_p99 is None
    codes = [w.code for w in stats.stability_warnings(s)]
    assert "few_queries" in codes


def test_p99_estimate_needs_662():
    a = np.linspace(1, 2, 661)
    assert stats.latency_summary(a).early_stop_p99 is None
    assert stats.latency_summary(np.linspace(1, 2, 700)).early_stop_p99 is not None


def test_high_cv_warning_has_advice():
    s = stats.latency_summary([1.0, 1.0, 1.0, 3.0] * 50)
    w = [w for w in stats.stability_warnings(s) if w.code == "high_cv"]
    assert w and "jetson_clocks" in w[0].message and "--min-duration" in w[0].message
    quiet = stats.latency_summary([1.0, 1.01] * 100)
    assert not [w for w in stats.stability_warnings(quiet) if w.code == "high_cv"]


def test_throughput_counts_batch():
    assert stats.throughput(100, 4, 2.0) == 200.0
    assert stats.throughput(100, 1, 0.0) is None


def test_empty_samples_rejected():
    with pytest.raises(ValueError):
        stats.latency_summary([])


def test_high_cv_of_a_sustained_run_names_its_window_and_the_curve():
    s = stats.latency_summary([1.0, 1.0, 1.0, 3.0] * 50)
    (w,) = [w for w in stats.stability_warnings(s, min_duration_s=60, longer="--window", curve=True)
            if w.code == "high_cv"]
    assert "raise --window above 60 s" in w.message and "--min-duration" not in w.message
    assert "holds the curve itself" in w.message
