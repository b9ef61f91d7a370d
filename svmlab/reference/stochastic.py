"""Readable NumPy versions of SDCA and Pegasos, in the papers' lambda-form units.

Plain loops over a given sample sequence, so that a test can feed them the very sequence a
numba kernel visits and compare the results. They follow the papers literally (lambda, the
dual variable alpha_SDCA with w = 1/(lam n) sum_i alpha_SDCA_i x_i); the tests convert with
lam = 1/(n C) and alpha = C y alpha_SDCA (book eq. 6.2). Dense X, no bias, equal C_i.
"""

import numpy as np


def sdca_hinge(X, y, lam, sequence, batch_size=1, all_states=False):
    """SDCA with the closed-form hinge step (Shalev-Shwartz and Zhang 2013, book eq. 6.3):

    Delta alpha_i = y_i clip((1 - y_i x_i.w) / (|x_i|^2 / (lam n)) + y_i alpha_i, 0, 1) - alpha_i

    With ``batch_size`` b > 1 the steps of b consecutive samples of ``sequence`` are computed
    at the same w and each applied scaled by 1/b (mini-batch SDCA, eq. 6.4). Returns
    (alpha, w), or with ``all_states`` the list alpha_0 = 0, alpha_1, ... after each batch.
    """
    n, d = X.shape
    alpha = np.zeros(n)
    w = np.zeros(d)
    states = [alpha.copy()]
    for start in range(0, len(sequence), batch_size):
        batch = sequence[start:start + batch_size]
        steps = []
        for i in batch:
            q = X[i] @ X[i] / (lam * n)
            beta = np.clip((1.0 - y[i] * (X[i] @ w)) / q + y[i] * alpha[i], 0.0, 1.0)
            steps.append(y[i] * beta - alpha[i])
        for i, delta in zip(batch, steps):
            alpha[i] += delta / len(batch)
            w += delta / len(batch) * X[i] / (lam * n)
        states.append(alpha.copy())
    return states if all_states else (alpha, w)


def pegasos(X, y, lam, epochs, k=1, projection=True, all_states=False):
    """Mini-batch Pegasos (Shalev-Shwartz et al. 2011, book eqs. 7.2-7.3). ``epochs`` holds
    one row of sample indices an epoch; each row is cut into batches of k (the last one may
    be shorter). Returns the last iterate, or with ``all_states`` the list w_1 = 0, ..., w_T+1."""
    w = np.zeros(X.shape[1])
    states = [w.copy()]
    batches = [row[s:s + k] for row in epochs for s in range(0, len(row), k)]
    for t, batch in enumerate(batches, start=1):
        step = np.zeros_like(w)
        for i in batch:
            if y[i] * (X[i] @ w) < 1.0:
                step += y[i] * X[i]
        w = (1.0 - 1.0 / t) * w + step / (lam * t * len(batch))
        norm = np.linalg.norm(w)
        if projection and norm > 1.0 / np.sqrt(lam):
            w *= 1.0 / (np.sqrt(lam) * norm)
        states.append(w.copy())
    return states if all_states else w
