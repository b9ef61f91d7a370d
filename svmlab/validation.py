"""The one validation layer: every estimator checks its input and parameters here.

Each check raises ``ValueError`` (``TypeError`` for a value of the wrong kind) with a message
that names what is wrong and what is accepted. Nothing is changed in place: when an array must
be converted, the result is a new array and the caller's is left as it was.
"""

import numbers

import numpy as np
import scipy.sparse as sp

from .objective import LOSS_CODES


def check_array(X, name="X"):
    """A finite, non-empty 2-D float64 array (C order) or canonical float64 CSR matrix."""
    if sp.issparse(X):
        return _check_sparse(X, name)
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{name} must be a 2-D array of numbers; could not convert it: {exc}") from None
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold real numbers; got dtype {arr.dtype}. "
                         "Encode categories as numbers first.")
    if arr.ndim != 2:
        hint = " Reshape a single feature with X.reshape(-1, 1)." if arr.ndim == 1 else ""
        raise ValueError(f"{name} must be 2-D (n_samples, n_features); got {arr.ndim}-D "
                         f"with shape {arr.shape}.{hint}")
    _check_size(arr.shape, name)
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinity; remove or impute those entries.")
    return arr


def _check_sparse(X, name):
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D; got a sparse array of shape {X.shape}.")
    _check_size(X.shape, name)
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold real numbers; got dtype {X.dtype}.")
    csr = sp.csr_matrix(X, dtype=np.float64, copy=True)
    csr.sum_duplicates()
    csr.sort_indices()
    if not np.isfinite(csr.data).all():
        raise ValueError(f"{name} contains NaN or infinity; remove or impute those entries.")
    csr.indices = csr.indices.astype(np.int32, copy=False)
    csr.indptr = csr.indptr.astype(np.int64, copy=False)
    return csr


def _check_size(shape, name):
    if shape[0] == 0 or shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {shape}); it needs at least one sample and one feature.")


def check_X_y(X, y):
    """Validated ``X`` and a 1-D ``y`` of the same length."""
    X = check_array(X)
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        raise ValueError(f"y must be 1-D; got shape {y.shape}. Use y.ravel().")
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D with one label per sample; got shape {y.shape}.")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X and y have different lengths: X has {X.shape[0]} samples, y has {y.shape[0]}.")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError("y contains NaN or infinity.")
    return X, y


def binary_labels(y):
    """``classes_`` and the labels mapped to -1.0 (classes_[0]) and +1.0 (classes_[1])."""
    classes, codes = np.unique(y, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(f"y has a single class ({classes[0]!r}); a classifier needs two.")
    if len(classes) > 2:
        raise ValueError(f"y has {len(classes)} classes; svmlab's estimators handle two classes "
                         "(map the labels to two classes, e.g. one class against the rest).")
    return classes, np.where(codes == 1, 1.0, -1.0)


def check_features(X, n_features):
    """``X`` at predict time: validated and with as many features as at fit."""
    X = check_array(X)
    if X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} features, but the model was fitted with {n_features}.")
    return X


def positive_number(value, name):
    """A finite real number > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a positive number; got {value!r}.")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive, finite number; got {value!r}.")
    return float(value)


def positive_int(value, name):
    """An integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1; got {value!r}.")
    return int(value)


def one_of(value, name, accepted):
    """``value`` if it is among ``accepted``."""
    if not isinstance(value, str) or value not in accepted:
        listed = ", ".join(repr(a) for a in accepted)
        raise ValueError(f"{name}={value!r} is not supported; accepted: {listed}.")
    return value


def loss_code(loss):
    """The numba code of a loss name."""
    return LOSS_CODES[one_of(loss, "loss", tuple(LOSS_CODES))]


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
    if seed is None or isinstance(seed, (numbers.Integral, np.random.Generator)) and not isinstance(seed, bool):
        return np.random.default_rng(seed)
    raise ValueError(f"random_state must be None, an integer or a numpy Generator; got {seed!r}.")


def sample_C(C, class_weight, classes, y_pm):
    """C_i = C * class_weight[y_i], as LIBLINEAR's -wi and scikit-learn's class_weight."""
    C = positive_number(C, "C")
    if class_weight is None:
        return np.full(y_pm.shape[0], C)
    if isinstance(class_weight, str):
        one_of(class_weight, "class_weight", ("balanced",))
        n_pos = np.count_nonzero(y_pm > 0)
        weights = {-1.0: len(y_pm) / (2 * (len(y_pm) - n_pos)), 1.0: len(y_pm) / (2 * n_pos)}
    elif isinstance(class_weight, dict):
        unknown = set(class_weight) - set(classes.tolist())
        if unknown:
            raise ValueError(f"class_weight names classes {sorted(unknown, key=str)} that are not in y; "
                             f"the classes are {classes.tolist()}.")
        weights = {}
        for sign, label in zip((-1.0, 1.0), classes):
            weights[sign] = positive_number(class_weight.get(label, 1.0), f"class_weight[{label!r}]")
    else:
        raise ValueError(f"class_weight must be None, 'balanced' or a dict class -> weight; got {class_weight!r}.")
    return np.where(y_pm > 0, C * weights[1.0], C * weights[-1.0])
