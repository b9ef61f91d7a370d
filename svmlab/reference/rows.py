"""The readable version of :mod:`svmlab.rows`' dot product of a dense row, in plain Python.

The numba kernels add the products x_j w_j of a dense row in four running sums, one for each
j mod 4, each in order of j, kept in the four lanes of a vector register
(:func:`svmlab.rows.lane_sums`). One running sum would make every addition wait for the one
before it (3-4 processor cycles each); four sums let the processor start a new addition every
cycle and add four products an instruction. The order of the additions changes the last bits
of the result, so the plain-Python solvers add in this order too, and take the kernels' steps
to the last bit.
"""


def dot(x, w, d):
    """x . w for a row x of d features and, when x has one more entry, the bias feature B, added
    as svmlab's kernels add a dense row (:func:`svmlab.rows.row_dot`): running sums s_0..s_3 of
    x[j] w[j] over j = 0, 1, 2, 3 (mod 4) up to the last multiple of 4 below d, then
    (s_0 + s_1) + (s_2 + s_3), then the remaining products one by one (the last d mod 4
    features', then the bias feature's)."""
    whole = d - d % 4
    s0 = s1 = s2 = s3 = 0.0
    for j in range(0, whole, 4):
        s0 += x[j] * w[j]
        s1 += x[j + 1] * w[j + 1]
        s2 += x[j + 2] * w[j + 2]
        s3 += x[j + 3] * w[j + 3]
    total = (s0 + s1) + (s2 + s3)
    for j in range(whole, len(x)):
        total += x[j] * w[j]
    return total
