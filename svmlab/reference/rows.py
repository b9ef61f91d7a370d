"""The readable version of :mod:`svmlab.rows`' dot product of a dense row, in plain Python.

The numba kernels add the products x_j w_j of a dense row in four running sums, one for each
j mod 4, each in order of j, kept in the four lanes of a vector register
(:func:`svmlab.rows.lane_sums`). One running sum would make every addition wait for the one
before it (3-4 processor cycles each); four sums let the processor start a new addition every
cycle and add four products an instruction. The order of the additions changes the last bits
of the result, so the plain-Python solvers add in this order too, and take the kernels' steps
to the last bit.
"""


def dot(x, w):
    """x . w over len(x) entries, added as svmlab's kernels add a dense row: running sums
    s_0..s_3 of x[j] w[j] over j = 0, 1, 2, 3 (mod 4) up to the last multiple of 4, then
    (s_0 + s_1) + (s_2 + s_3), then the remaining products one by one."""
    whole = len(x) - len(x) % 4
    s = []
    for r in range(4):  # s_r: the products at j = r, r + 4, r + 8, ..., in that order
        s_r = 0.0
        for a, b in zip(x[r:whole:4], w[r:whole:4]):
            s_r += a * b
        s.append(s_r)
    total = (s[0] + s[1]) + (s[2] + s[3])
    for j in range(whole, len(x)):
        total += x[j] * w[j]
    return total
