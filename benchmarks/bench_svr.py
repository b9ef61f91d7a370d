"""Support vector regression against LIBLINEAR and LIBSVM (scikit-learn's LinearSVR and SVR).

Run from the repository root with ``python -m benchmarks.bench_svr [--quick]``. Targets:
DCD for linear SVR at most 0.5x LinearSVR's time on dense 100,000 x 100; SMO for SVR at most
1.0x SVR's on RBF 10,000 x 20, at two values of C and epsilon. Each ratio divides by the
reference's median measured in the same run, on the same data and parameters, the fits taken
in turn (svmlab, reference, svmlab, ...). The primal (linear) or dual (kernel) values of
:class:`svmlab.SVRProblem` show that both solved the same problem. Prints Markdown tables.
"""

import argparse
import warnings

import numpy as np
from sklearn.datasets import make_regression
from sklearn.svm import SVR, LinearSVR

import svmlab
from svmlab.kernels import make_kernel

from benchmarks.timing import interleaved


def standardized_data(n, d, seed=0):
    """make_regression's linear target plus noise of half its standard deviation (R^2 about 0.8)."""
    X, z = make_regression(n_samples=n, n_features=d, n_informative=d // 2, random_state=seed)
    z = z / z.std() + 0.5 * np.random.default_rng(seed).normal(size=n)
    return (X - X.mean(axis=0)) / X.std(axis=0), (z - z.mean()) / z.std()


def linear(n, d, losses, repeats):
    X, z = standardized_data(n, d)
    print(f"\nLinear SVR, dense {n:,} x {d}: C 0.1, epsilon 0.1, tol 1e-3, bias (intercept_scaling 1), shrinking, "
          f"median of {repeats}\n")
    print("| loss | svmlab s | LinearSVR s | ratio | epochs svmlab / LIBLINEAR | primal svmlab | primal LIBLINEAR |")
    print("|---|---|---|---|---|---|---|")
    for loss in losses:
        params = dict(C=0.1, epsilon=0.1, loss=loss, tol=1e-3, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a stop at max_iter is reported by the epochs column
            (t_lab, lab), (t_ref, ref) = interleaved([lambda: svmlab.LinearSVR(**params).fit(X, z),
                                                      lambda: LinearSVR(dual=True, **params).fit(X, z)], repeats)
        p = svmlab.SVRProblem(X, z, 0.1, 0.1, loss, "regularized", 1.0)
        print(f"| {loss} | {t_lab:.3f} | {t_ref:.3f} | {t_lab / t_ref:.2f} | {lab.n_iter_} / {ref.n_iter_} | "
              f"{p.primal(lab.coef_, lab.intercept_):.6g} | {p.primal(ref.coef_, ref.intercept_):.6g} |")


def kernel(n, d, settings, repeats):
    X, z = standardized_data(n, d)
    print(f"\nKernel SVR, RBF (gamma 'scale'), {n:,} x {d}: tol 1e-3, cache 200 MB, shrinking, median of {repeats}\n")
    if not svmlab.KernelSVR._solvers:
        print("SMO for SVR is not registered in this build (solvers.KERNEL_REGRESSION); nothing to time.")
        return
    print("| C | epsilon | svmlab s | SVR s | ratio | SVs svmlab | SVs SVR | dual svmlab | dual SVR |")
    print("|---|---|---|---|---|---|---|---|---|")
    gamma = make_kernel("rbf", X).gamma
    for C, epsilon in settings:
        params = dict(C=C, epsilon=epsilon, tol=1e-3, cache_size=200, shrinking=True)
        (t_lab, lab), (t_ref, ref) = interleaved([lambda: svmlab.KernelSVR(**params).fit(X, z),
                                                  lambda: SVR(gamma=gamma, **params).fit(X, z)], repeats)
        p = svmlab.SVRProblem(X, z, C, epsilon, bias="free", kernel="rbf", gamma=gamma)
        beta = np.zeros(n)
        beta[ref.support_] = ref.dual_coef_[0]
        print(f"| {C:g} | {epsilon:g} | {t_lab:.3f} | {t_ref:.3f} | {t_lab / t_ref:.2f} | {len(lab.support_)} | "
              f"{len(ref.support_)} | {p.dual(lab.alpha_):.6g} | {p.dual(beta):.6g} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat (a smoke test)")
    args = parser.parse_args()
    X, z = standardized_data(300, 5)
    for loss in ("epsilon_insensitive", "squared_epsilon_insensitive"):  # compile (or load the cache) first
        svmlab.LinearSVR(loss=loss, tol=1e-2).fit(X, z)
    if svmlab.KernelSVR._solvers:
        svmlab.KernelSVR().fit(X, z)
    losses = ("epsilon_insensitive", "squared_epsilon_insensitive")
    settings = [(1.0, 0.1), (10.0, 0.5)]
    if args.quick:
        linear(20_000, 100, losses, 1)
        kernel(2_000, 20, settings, 1)
        return
    linear(100_000, 100, losses, 3)
    kernel(10_000, 20, settings, 3)


if __name__ == "__main__":
    main()
