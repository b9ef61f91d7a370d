"""The one validation layer: every estimator checks its input and parameters here.

Each check raises ``ValueError`` (``TypeError`` for a value of the wrong kind) with a message
that names what is wrong and what is accepted. Nothing is changed in place: when an array must
be converted, the result is a new array and the caller's is left as it was.
"""

import functools
import numbers
import sys
import warnings

import numpy as np
import scipy.sparse as sp

from .objective import LOSS_CODES
from .regression import LOSS_CODES as REGRESSION_LOSS_CODES


def check_array(X, name="X"):
    """A finite, non-empty 2-D float64 array (C order) or canonical float64 CSR matrix."""
    return _validated(X, name)[0]


def _validated(X, name):
    """:func:`check_array`'s array, and whether its sum of squares is finite (then no row's
    |x_i|^2 overflows either, which :func:`check_X_y` needs to know for a fit)."""
    if sp.issparse(X):
        return _check_sparse(X, name)
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{name} must be a 2-D array of numbers; could not convert it: {exc}") from None
    if arr.dtype.kind == "O":
        arr = _numbers_from_objects(arr, name)
    if arr.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {name} has dtype {arr.dtype}; an SVM needs real numbers.")
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold real numbers; got dtype {arr.dtype}. "
                         "Encode categories as numbers first.")
    if arr.ndim != 2:
        hint = (" Reshape your data: X.reshape(-1, 1) for a single feature, X.reshape(1, -1) for a "
                "single sample.") if arr.ndim == 1 else ""
        raise ValueError(f"{name} must be 2-D (n_samples, n_features); got {arr.ndim}-D "
                         f"with shape {arr.shape}.{hint}")
    _check_size(arr.shape, name)
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not arr.flags.writeable:  # a read-only view would make numba compile every kernel again
        arr = arr.copy()
    return arr, _check_finite(arr.ravel(), name)


def _numbers_from_objects(arr, name):
    """An object array of real numbers as float64. Text, numeric or not, is refused as a '<U'
    array of strings is (strings are not numbers); other objects raise numpy's TypeError."""
    if any(isinstance(v, (str, bytes)) for v in arr.ravel()):
        raise ValueError(f"{name} must hold real numbers; it holds text. Encode categories and text as numbers "
                         "first.")
    return arr.astype(np.float64)


def _check_finite(values, name):
    """Refuse NaN and infinity in the 1-D ``values``; returns whether their sum of squares is
    finite. One pass proves both every entry finite and every |x_i|^2 finite; only when it
    overflows (NaN, infinity, or legitimately huge entries) is each entry checked. The pass is
    numpy's einsum, not a BLAS dot: OpenBLAS runs a long dot on its own threads, which then spin on
    the other cores for a while and slow a fit that computes on them (``n_jobs``)."""
    with np.errstate(over="ignore", invalid="ignore"):
        squares = np.einsum("i,i->", values, values)
    if np.isfinite(squares):
        return True
    if not np.isfinite(values).all():
        raise ValueError(f"{name} contains NaN or infinity; remove or impute those entries.")
    return False


def _check_scale(X, name):
    """Refuse data whose squared row norms |x_i|^2 overflow float64: every solver's step, the
    kernels and gamma="scale" are meaningless there (a ValueError, not a NaN model)."""
    with np.errstate(over="ignore"):
        squares = X.multiply(X).sum(axis=1) if sp.issparse(X) else np.einsum("ij,ij->i", X, X)
    if not np.isfinite(squares).all():
        largest = abs(X).max() if sp.issparse(X) else np.abs(X).max()
        raise ValueError(f"{name} has entries so large (max |x| = {largest:.3g}) that |x_i|^2 overflows float64; "
                         "rescale it (e.g. standardize its columns) before fitting.")
    return X


def _check_sparse(X, name):
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D; got a sparse array of shape {X.shape}.")
    _check_size(X.shape, name)
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold real numbers; got dtype {X.dtype}.")
    if not _is_canonical_csr(X):
        X = sp.csr_matrix(X, dtype=np.float64, copy=True)  # canonicalised on a copy, never in place
        X.sum_duplicates()
        X.sort_indices()
        if X.nnz >= 2**31:
            raise ValueError(f"{name} has {X.nnz} non-zeros; svmlab's kernels index them with 32-bit integers.")
        X.indices = X.indices.astype(np.int32, copy=False)
        X.indptr = X.indptr.astype(np.int32, copy=False)
    return X, _check_finite(X.data, name)


def _is_canonical_csr(X):
    """Already what the kernels read (float64 CSR, sorted and summed, int32 indices), so no copy."""
    return (X.format == "csr" and isinstance(X, sp.csr_matrix) and X.dtype == np.float64
            and X.indices.dtype == np.int32 and X.indptr.dtype == np.int32 and X.has_canonical_format)


def _check_size(shape, name):
    for count, what in zip(shape, ("sample", "feature")):
        if count == 0:
            raise ValueError(f"{name} is empty: 0 {what}(s) (shape={tuple(shape)}) while a minimum of 1 is "
                             f"required.")


class DataConversionWarning(UserWarning):
    """An input was converted to the form the estimators need (e.g. a column y raveled)."""


def sklearn_compatible(cls):
    """``cls``, or when scikit-learn is loaded a subclass of both ``cls`` and scikit-learn's
    class of the same name (sklearn.exceptions), so that ``except`` clauses and warning filters
    written for either catch it. Called where svmlab raises or warns: ``import svmlab`` never
    imports scikit-learn."""
    module = sys.modules.get("sklearn.exceptions")
    theirs = getattr(module, cls.__name__, None) if module is not None else None
    return cls if theirs is None else _joined(cls, theirs)


@functools.cache
def _joined(ours, theirs):
    """The subclass of both, named in its module as ``_<Name>ForSklearn`` so that pickle finds
    it by reference (the modules' ``__getattr__`` make it in a process that has not yet)."""
    name = f"_{ours.__name__}ForSklearn"
    joined = type(ours.__name__, (ours, theirs), {"__module__": ours.__module__, "__qualname__": name,
                                                   "__doc__": ours.__doc__})
    setattr(sys.modules[ours.__module__], name, joined)
    return joined


def joined_by_name(name, classes):
    """Module ``__getattr__`` helper: the joined class ``name`` for one of ``classes``."""
    for cls in classes:
        if name == f"_{cls.__name__}ForSklearn":
            import sklearn.exceptions

            return _joined(cls, getattr(sklearn.exceptions, cls.__name__))
    return None


def __getattr__(name):
    joined = joined_by_name(name, (DataConversionWarning,))
    if joined is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return joined


def _is_missing(v):
    """None, a float NaN, or pandas' NA (recognised by name: pandas is not imported here)."""
    return v is None or (isinstance(v, float) and v != v) or type(v).__name__ in ("NAType", "NaTType")


def _labels_array(y):
    """y as an array, with object labels sorted out as scikit-learn's type_of_target does:
    missing values are refused, numbers become a numeric array (then checked like one),
    strings stay strings, and a mix of strings and numbers is refused."""
    y = np.asarray(y)
    if y.dtype.kind == "c" or (y.dtype.kind == "O" and any(isinstance(v, complex) for v in y.ravel())):
        raise ValueError("Complex labels are not supported; y must hold class labels (integers or strings).")
    if y.dtype.kind != "O":
        return y
    values = y.ravel()
    if any(_is_missing(v) for v in values):
        raise ValueError("Input y contains NaN or infinity; every sample needs a class label.")
    text = [isinstance(v, str) for v in values]
    if any(text) and not all(text):
        raise ValueError("y mixes strings and numbers as labels; use one kind (e.g. y.astype(str)).")
    if all(text):
        return y.astype(str)
    if all(isinstance(v, (numbers.Integral, np.bool_)) for v in values):
        return y.astype(np.int64)
    try:
        return y.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError("y must hold class labels (integers, strings or floats with integer values).") from None


def _X_with_y(X, y, kind):
    """Validated ``X`` (finite, and no |x_i|^2 overflowing), once ``y`` is known to be given and
    not sparse; ``kind`` names what y holds ("labels", "targets")."""
    X, squares_finite = _validated(X, "X")
    if not squares_finite:
        _check_scale(X, "X")
    if y is None:
        raise ValueError("This estimator requires y to be passed, but the target y is None.")
    if sp.issparse(y):
        raise ValueError(f"y must be a 1-D array of {kind}; got a sparse matrix of shape {y.shape}: pass "
                         "y.toarray().ravel().")
    return X


def check_X_y(X, y):
    """Validated ``X`` (finite, and no |x_i|^2 overflowing) and a 1-D ``y`` of the same length."""
    X = _X_with_y(X, y, "labels")
    y = _labels_array(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected; it is used as y.ravel().",
                      sklearn_compatible(DataConversionWarning), stacklevel=3)
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D with one label per sample; got shape {y.shape}.")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X and y have different lengths: X has {X.shape[0]} samples, y has {y.shape[0]}.")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError("Input y contains NaN or infinity; every sample needs a class label.")
    return X, y


def check_X_target(X, y, estimator):
    """Validated ``X`` (as :func:`check_X_y`) and a regression target: finite real numbers,
    one per sample, as a new 1-D float64 array. A column (n, 1) is raveled with a warning;
    several columns (multi-output) are refused."""
    X = _X_with_y(X, y, "targets")
    z = np.asarray(y)
    if z.dtype.kind == "O":
        if any(_is_missing(v) for v in z.ravel()):
            raise ValueError("Input y contains NaN or infinity; every sample needs a finite real-valued target.")
        z = _numbers_from_objects(z, "y")
    if z.dtype.kind == "c":
        raise ValueError(f"Complex targets are not supported: y has dtype {z.dtype}; a regression needs real numbers.")
    if z.dtype.kind not in "biuf":
        raise ValueError(f"y must hold real numbers (a regression target); got dtype {z.dtype}.")
    if z.ndim == 2 and z.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected; it is used as y.ravel().",
                      sklearn_compatible(DataConversionWarning), stacklevel=3)
        z = z.ravel()
    if z.ndim == 2:
        raise ValueError(f"{estimator} fits one target, but y has shape {z.shape} ({z.shape[1]} targets, "
                         "multi-output). Fit one model per column, e.g. with "
                         "sklearn.multioutput.MultiOutputRegressor.")
    if z.ndim != 1:
        raise ValueError(f"y must be 1-D with one target per sample; got shape {z.shape}.")
    if z.shape[0] != X.shape[0]:
        raise ValueError(f"X and y have different lengths: X has {X.shape[0]} samples, y has {z.shape[0]}.")
    z = np.array(z, dtype=np.float64)  # a new array: the caller's is never touched
    if not np.isfinite(z).all():
        raise ValueError("Input y contains NaN or infinity; every sample needs a finite real-valued target.")
    return X, z


def class_labels(y):
    """``classes_`` (sorted) and each sample's index into it; at least two classes."""
    if y.dtype.kind == "f" and np.any(y != np.round(y)):
        raise ValueError("Unknown label type: continuous. y must hold class labels (integers, strings, "
                         "or floats with integer values); this is a classifier, not a regression.")
    classes, codes = np.unique(y, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(f"y has one class only ({classes.tolist()[0]!r}); a classifier needs at least two.")
    return classes, codes


def check_features(X, n_features, estimator):
    """``X`` at predict time: validated and with as many features as at fit."""
    X = check_array(X)
    if X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} features, but {estimator} is expecting {n_features} "
                         "features as input.")
    return X


def positive_number(value, name):
    """A finite real number > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a positive number; got {value!r}.")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive, finite number; got {value!r}.")
    return float(value)


def non_negative_number(value, name):
    """A finite real number >= 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0; got {value!r}.")
    return float(value)


def positive_int(value, name):
    """An integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1; got {value!r}.")
    return int(value)


def n_jobs_threads(value, name):
    """The threads of scikit-learn's ``n_jobs``: None is 1, a positive integer is itself, and
    -1 is every core numba may use, -2 all but one, and so on (at least 1)."""
    if value is None:
        return 1
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value == 0:
        raise ValueError(f"{name} must be None, a positive integer (the threads) or a negative one (-1: every "
                         f"core); got {value!r}.")
    if value > 0:
        return int(value)
    from numba import config  # numba's thread pool: every core, or NUMBA_NUM_THREADS
    return max(config.NUMBA_NUM_THREADS + 1 + int(value), 1)


def one_of(value, name, accepted):
    """``value`` if it is among ``accepted``."""
    if not isinstance(value, str) or value not in accepted:
        listed = ", ".join(repr(a) for a in accepted)
        raise ValueError(f"{name}={value!r} is not supported; accepted: {listed}.")
    return value


def loss_code(loss):
    """The numba code of a loss name."""
    return LOSS_CODES[one_of(loss, "loss", tuple(LOSS_CODES))]


def regression_loss_code(loss):
    """The numba code of a regression loss name."""
    return REGRESSION_LOSS_CODES[one_of(loss, "loss", tuple(REGRESSION_LOSS_CODES))]


def check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}.")
    return bool(value)


def trace_every(value):
    """The ``trace`` option: False (off), True (every epoch) or k >= 1 (every k epochs)."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, numbers.Integral) and value >= 1:
        return int(value)
    raise ValueError(f"trace must be False, True or a number of epochs k >= 1; got {value!r}.")


def check_random_state(seed):
    """A NumPy Generator from None, an int or a Generator."""
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and seed < 0:
        raise ValueError(f"random_state must be None, an integer >= 0 or a numpy Generator; got {seed!r}.")
    if seed is None or isinstance(seed, (numbers.Integral, np.random.Generator)) and not isinstance(seed, bool):
        return np.random.default_rng(seed)
    raise ValueError(f"random_state must be None, an integer >= 0 or a numpy Generator; got {seed!r}.")


def class_weights(C, class_weight, classes, codes):
    """C times each class's weight, one entry per class (LIBLINEAR's -wi, scikit-learn's
    class_weight); "balanced" weighs class k by n / (n_classes * n_k)."""
    C = positive_number(C, "C")
    if class_weight is None:
        return np.full(len(classes), C)
    if isinstance(class_weight, str):
        one_of(class_weight, "class_weight", ("balanced",))
        counts = np.bincount(codes, minlength=len(classes))
        return C * len(codes) / (len(classes) * counts)
    if not isinstance(class_weight, dict):
        raise ValueError(f"class_weight must be None, 'balanced' or a dict class -> weight; got {class_weight!r}.")
    unknown = [k for k in class_weight if k not in set(classes.tolist())]
    if unknown:
        raise ValueError(f"class_weight names classes {unknown} that are not in y; the classes are "
                         f"{classes.tolist()}.")
    return np.array([C * positive_number(class_weight.get(label, 1.0), f"class_weight[{label!r}]")
                     for label in classes.tolist()])


def sample_C(C, class_weight, classes, y_pm):
    """C_i of a binary problem, one per sample (``y_pm`` in {-1, +1}, classes[1] is +1)."""
    codes = (np.asarray(y_pm) > 0).astype(int)
    return class_weights(C, class_weight, classes, codes)[codes]
