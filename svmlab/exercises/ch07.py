"""Checks of chapter 7's exercises (Pegasos, the imbalanced-data lesson)."""


import numpy as np

from .. import datasets
from ..estimators import LinearSVM
from ..reference.stochastic import pegasos
from ..validation import sample_C
from . import close, exercise, fit_quietly, is_number, is_rounding, rounded

# 7.1: the weight of the first step in w_(T+1), no projection
LAM_71, T_71 = 0.02, 200
# 7.2 and 7.4: the chapter's imbalanced split
C_72 = 0.1


def _imbalanced_split():
    X, y = datasets.make_imbalanced(random_state=0)
    return datasets.train_test_split(X, y, test_size=0.3, random_state=0)


@exercise("7.1", wrong=[50.0, 0.005, 0.0])
def _(answer):
    if not is_number(answer):
        return "give one number: the coefficient of the first step's y x in w_(T+1)."
    expected = 1.0 / (LAM_71 * T_71)
    if close(answer, 1.0 / LAM_71):
        return "that is its weight in w_2; every later step multiplies it by (1 - 1/t)."
    if close(answer, 1.0 / T_71):
        return "you gave the weight of the step's target, not of y x; how are the two related?"
    if not close(answer, expected):
        return "write w_(T+1) as an average of the targets: the product of the (1 - 1/t) telescopes."
    return None


# 7.2's weights: each fraud counts ten times (not "balanced", whose sum_i C_i is n C whatever the counts)
WEIGHTS_72 = {1: 10.0}


def _radius_72(y_train, class_weight, C=C_72):
    return float(np.sqrt(sample_C(C, class_weight, np.array([-1.0, 1.0]), y_train).sum()))


def _radius_slips():
    _, _, y_train, _ = _imbalanced_split()
    weight = WEIGHTS_72[1]
    return [_radius_72(y_train, None),                              # no weights (also the balanced radius)
            _radius_72(y_train, WEIGHTS_72) ** 2,                   # sum_i C_i without the square root
            _radius_72(y_train, {-1: weight}),                      # the weight on the genuine class
            _radius_72(y_train, {-1: weight, 1: weight}),           # the weight on every sample
            _radius_72(y_train, WEIGHTS_72, C=1.0)]                 # C left out


@exercise("7.2", wrong=[0.0, -1.0], derived=_radius_slips)
def _(answer):
    if not is_number(answer):
        return "give one number: the radius 1/sqrt(lambda) = sqrt(sum_i C_i)."
    _, _, y_train, _ = _imbalanced_split()
    expected = _radius_72(y_train, WEIGHTS_72)
    if close(answer, _radius_72(y_train, None), rtol=1e-4):
        return "that is the radius without weights: the weights change C_i, and so sum_i C_i."
    if close(answer, expected, rtol=1e-4):
        return None
    if is_rounding(answer, expected, digits=range(2, 5)):
        return rounded(4)
    return ("add up C_i over the training samples: C times the weight of the sample's class (1 for a class "
            "the dict does not name), summed over each class's samples; the radius is the square root (§7.2).")


def _last_iterate(X, y, lam, epochs, k=1, projection=True):
    return pegasos(X, y, lam, epochs, k, projection)


def _mean_of_all_states(X, y, lam, epochs, k=1, projection=True):
    return np.mean(pegasos(X, y, lam, epochs, k, projection, all_states=True), axis=0)


@exercise("7.3", wrong=[_last_iterate, _mean_of_all_states])
def _(answer):
    if not callable(answer):
        return "answer with your function pegasos_averaged(X, y, lam, epochs, k=1, projection=True) itself."
    X, y = datasets.make_random(n_samples=80, n_features=6, random_state=4)
    n, lam = len(y), 0.05
    epochs = np.random.default_rng(7).integers(0, n, (3, n))
    states = pegasos(X, y, lam, epochs, 4, True, all_states=True)
    T = len(states) - 1  # steps taken; states[t] is the iterate after t steps
    expected = np.mean(states[T // 2:T], axis=0)
    got = np.asarray(answer(X, y, lam, epochs, 4, True), dtype=float)
    if got.shape != expected.shape:
        return "return one weight vector w (as svmlab.reference.stochastic.pegasos does)."
    if not close(got, expected, rtol=1e-8, atol=1e-10):
        return ("average the states T0 = T//2 .. T-1 (T steps in all, the state before step t + 1 being state t), "
                "as Algorithm 7.1's averaged output says.")
    return None


@exercise("7.4", wrong=[0.0, 1.0, 0.998])
def _(answer):
    if not is_number(answer):
        return "give one number between 0 and 1: the fraction of real frauds among the flagged transactions."
    X_train, X_test, y_train, y_test = _imbalanced_split()
    model = fit_quietly(LinearSVM(solver="sdca", C=C_72, class_weight="balanced", tol=1e-3, max_iter=300,
                                  random_state=0), X_train, y_train)
    flagged = model.predict(X_test) > 0
    expected = np.mean(y_test[flagged] > 0)
    if close(answer, expected, rtol=1e-3):
        return None
    if is_rounding(answer, expected, digits=range(1, 4)):
        return rounded(4)
    return "precision counts the true frauds among the predicted frauds (not among the real ones: that is recall)."
