"""Readable versions of the solvers: the listings the book prints and the tests compare with.

Plain Python and NumPy, written for clarity, no numba: each mirrors a kernel of
:mod:`svmlab.solvers` in meaning (and, where a test says so, in its order of additions).

* :mod:`svmlab.reference.core` -- the problem core and the chapter 1-2 solvers.
* :mod:`svmlab.reference.dcd` -- dual coordinate descent (Algorithm 3.1).
* :mod:`svmlab.reference.smo` -- SMO and bias-free kernel DCD on a dense Q (chapter 5).
* :mod:`svmlab.reference.stochastic` -- SDCA and Pegasos in the papers' units (chapters 6-7).
* :mod:`svmlab.reference.svr` -- dual coordinate descent for linear SVR (Ho and Lin 2012).
"""
