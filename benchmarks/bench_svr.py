"""Support vector regression against LIBLINEAR and LIBSVM (scikit-learn's LinearSVR and SVR).

Run from the repository root with ``python -m benchmarks.bench_svr [--quick] [--repeat K]
[--only linear|kernel]``. Targets (issue #15): DCD for linear SVR at most 0.5x LinearSVR's time
on dense 100,000 x 100; SMO for SVR at most 1.0x SVR's on RBF 10,000 x 20, at two values of C
and two of epsilon. The fits are taken in turn (svmlab, reference, svmlab, ...) and each time
is the best of K (default 3); the ratio divides svmlab's by the reference's.

Both sides stop by the same rule at the same ``tol``: SMO and LIBSVM stop when the maximal
violation m(alpha) - M(alpha) (max of -s_t G_t over I_up minus min over I_low) falls below
tol = 1e-3. The tables show the dual values of :class:`svmlab.SVRProblem` at both solutions
and that violation recomputed exactly (in float64, from the kernel) at both, so a reader sees
that both reached the same optimum to the same tolerance. The kernel table also gives the
support set sizes (free / at the bound C), the SMO iterations of both, and svmlab's kernel
evaluations against n^2 (each kernel column computed once would be n^2). Prints Markdown
tables and writes them to ``benchmarks/results/svr.md``.
"""

import argparse
import warnings

import numpy as np
from sklearn.datasets import make_regression
from sklearn.svm import SVR, LinearSVR
from tqdm import tqdm

import svmlab
from svmlab.kernels import make_kernel

from benchmarks.report import write_markdown
from benchmarks.timing import interleaved



def standardized_data(n, d, seed=0):
    """make_regression's linear target plus noise of half its standard deviation (R^2 about 0.8)."""
    X, z = make_regression(n_samples=n, n_features=d, n_informative=d // 2, random_state=seed)
    z = z / z.std() + 0.5 * np.random.default_rng(seed).normal(size=n)
    return (X - X.mean(axis=0)) / X.std(axis=0), (z - z.mean()) / z.std()


def linear(n, d, losses, repeats):
    X, z = standardized_data(n, d)
    rows = []
    for loss in tqdm(losses, desc="linear SVR", unit="case"):
        params = dict(C=0.1, epsilon=0.1, loss=loss, tol=1e-3, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a stop at max_iter is reported by the epochs column
            (t_lab, lab), (t_ref, ref) = interleaved([lambda: svmlab.LinearSVR(**params).fit(X, z),
                                                 lambda: LinearSVR(dual=True, **params).fit(X, z)], repeats, min)
        p = svmlab.SVRProblem(X, z, 0.1, 0.1, loss, "regularized", 1.0)
        rows.append([loss, f"{t_lab:.3f}", f"{t_ref:.3f}", f"{t_lab / t_ref:.2f}", f"{lab.n_iter_} / {ref.n_iter_}",
                     f"{p.primal(lab.coef_, lab.intercept_):.6g}", f"{p.primal(ref.coef_, ref.intercept_):.6g}"])
    header = ["loss", "svmlab s", "LinearSVR s", "ratio", "epochs svmlab / LIBLINEAR", "primal svmlab",
              "primal LIBLINEAR"]
    return (f"Linear SVR, dense {n:,} x {d}: C 0.1, epsilon 0.1, tol 1e-3, bias (intercept_scaling 1), "
            f"shrinking; best of {repeats}, fits in turn", header, rows)


def smo_counts(X, z, C, epsilon, tol=1e-3, cache_size=200):
    """(pair updates, kernel evaluations, cache misses) of one svmlab SMO run on the problem that
    KernelSVR(C, epsilon, tol, cache_size) solves, from the run's own counts (SMOInfo)."""
    from svmlab.solvers import KernelRegressionProblem, slices, smo
    from svmlab.solvers.coordinate import Stop
    from svmlab.trace import Recorder

    problem = KernelRegressionProblem(X, make_kernel("rbf", X), z, np.full(len(z), C), epsilon)
    state = smo.start_regression(problem, Stop(tol, 1000), Recorder(0, 1000, len(z), 0).buffers,
                                 np.random.default_rng(0), cache_size=cache_size)
    info = slices.run(state, "smo").info()
    return info.updates, info.kernel_evaluations, info.cache_misses


def kernel(n, d, settings, repeats):
    X, z = standardized_data(n, d)
    gamma = make_kernel("rbf", X).gamma
    rows = []
    for C, epsilon in tqdm(settings, desc="kernel SVR", unit="case"):
        params = dict(C=C, epsilon=epsilon, tol=1e-3, cache_size=200, shrinking=True)
        (t_lab, lab), (t_ref, ref) = interleaved([lambda: svmlab.KernelSVR(**params).fit(X, z),
                                             lambda: SVR(gamma=gamma, **params).fit(X, z)], repeats, min)
        p = svmlab.SVRProblem(X, z, C, epsilon, bias="free", kernel="rbf", gamma=gamma)
        beta = np.zeros(n)
        beta[ref.support_] = ref.dual_coef_[0]
        updates, evaluations, misses = smo_counts(X, z, C, epsilon)
        sv = [f"{np.count_nonzero(b)} ({np.count_nonzero(np.abs(b) >= C)})" for b in (lab.alpha_, beta)]
        rows.append([f"{C:g}", f"{epsilon:g}", f"{t_lab:.3f}", f"{t_ref:.3f}", f"**{t_lab / t_ref:.2f}**",
                     sv[0], sv[1], f"{updates:,} / {int(np.ravel(ref.n_iter_)[0]):,}",
                     f"{misses:,}", f"{evaluations / n ** 2:.2f}",
                     f"{p.dual(lab.alpha_):.8g}", f"{p.dual(beta):.8g}",
                     f"{p.kkt_violation(lab.alpha_):.1e} / {p.kkt_violation(beta):.1e}"])
    header = ["C", "epsilon", "svmlab s", "SVR s", "ratio", "SVs svmlab (at C)", "SVs SVR (at C)",
              "iterations svmlab / SVR", "kernel columns computed", "kernel evaluations / n^2",
              "dual svmlab", "dual SVR", "violation svmlab / SVR"]
    return (f"Kernel SVR, RBF (gamma 'scale'), {n:,} x {d}, standardized target: tol 1e-3, cache 200 MB, "
            f"shrinking; best of {repeats}, fits in turn", header, rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat (a smoke test)")
    parser.add_argument("--repeat", type=int, default=3, help="fits of each side per case (best taken)")
    parser.add_argument("--only", choices=("linear", "kernel"), help="run one table only")
    args = parser.parse_args()
    X, z = standardized_data(300, 5)
    for loss in ("epsilon_insensitive", "squared_epsilon_insensitive"):  # compile (or load the cache) first
        svmlab.LinearSVR(loss=loss, tol=1e-2).fit(X, z)
    svmlab.KernelSVR().fit(X, z)
    losses = ("epsilon_insensitive", "squared_epsilon_insensitive")
    settings = [(C, epsilon) for C in (1.0, 10.0) for epsilon in (0.1, 0.5)]
    sizes = ((20_000, 100), (2_000, 20)) if args.quick else ((100_000, 100), (10_000, 20))
    repeats = 1 if args.quick else args.repeat
    sections = []
    if args.only != "kernel":
        sections.append(linear(*sizes[0], losses, repeats))
    if args.only != "linear":
        sections.append(kernel(*sizes[1], settings, repeats))
    write_markdown("svr", __doc__.splitlines()[0], sections)


if __name__ == "__main__":
    main()
