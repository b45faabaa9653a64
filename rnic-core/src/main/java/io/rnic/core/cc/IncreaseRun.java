package io.rnic.core.cc;

/**
 * DCQCN's current rate R<sub>C</sub> and target rate R<sub>T</sub> after n identical increase
 * steps from an anchor, in closed form, so that an idle stretch of thousands of timer periods
 * costs one evaluation instead of a loop.
 *
 * <p>One step adds {@code a} to the target and averages: R<sub>T</sub> ← R<sub>T</sub> + a, then
 * R<sub>C</sub> ← (R<sub>C</sub> + R<sub>T</sub>)/2 (fast recovery is the step with a = 0).
 * Writing e = R<sub>T</sub> − R<sub>C</sub>, one step maps e to (e + a)/2, so after n steps from
 * (R<sub>T0</sub>, e<sub>0</sub>):
 * <pre>
 *   R_T(n) = R_T0 + n·a
 *   e(n)   = a + (e_0 − a)·2^−n
 *   R_C(n) = R_T(n) − e(n)
 * </pre>
 * Two ways of bounding by the line rate L, one per reference implementation:
 * <ul>
 *   <li>{@code capTarget == false} (the DCQCN authors' ns3-rdma, {@code QbbNetDevice::AdjustRates}):
 *       R<sub>C</sub> ← min(L, ...) and R<sub>T</sub> is not bounded. R<sub>C</sub> never
 *       decreases along a run, so the bounded sequence is min(L, R<sub>C</sub>(n)).</li>
 *   <li>{@code capTarget == true} (HPCC's {@code RdmaHw::ActiveIncreaseMlx}/{@code HyperIncreaseMlx}):
 *       R<sub>T</sub> ← min(L, R<sub>T</sub> + a) and R<sub>C</sub> is their average, so it stays
 *       at or below L. The first m = ⌊(L − R<sub>T0</sub>)/a⌋ steps follow the formula; step m + 1
 *       sets R<sub>T</sub> = L, and from then on e halves each step.</li>
 * </ul>
 * The values are a pure function of the anchor and n, so they do not depend on how a stretch of
 * steps is split into calls.
 */
final class IncreaseRun {
    /** Beyond this many halvings any finite e has underflowed to zero. */
    private static final int MAX_HALVINGS = 2200;

    private final double lineRate;
    private final boolean capTarget;

    private double rt0;
    private double e0;
    private double a;
    private long n;
    private double rc;
    private double rt;

    IncreaseRun(double lineRate, boolean capTarget) {
        this.lineRate = lineRate;
        this.capTarget = capTarget;
        anchor(lineRate, lineRate, 0);
    }

    /** Start a new run from (rc, rt) whose steps add {@code a} to the target. */
    void anchor(double rc, double rt, double a) {
        this.rt0 = rt;
        this.e0 = rt - rc;
        this.a = a;
        this.n = 0;
        this.rc = rc;
        this.rt = rt;
    }

    /** Take {@code k} steps that add {@code a} each; starts a new run first if {@code a} differs. */
    void steps(double a, long k) {
        if (k <= 0) {
            return;
        }
        if (a != this.a) {
            anchor(rc, rt, a);
        }
        n += k;
        evaluate();
    }

    double rc() {
        return rc;
    }

    double rt() {
        return rt;
    }

    void copyFrom(IncreaseRun o) {
        rt0 = o.rt0;
        e0 = o.e0;
        a = o.a;
        n = o.n;
        rc = o.rc;
        rt = o.rt;
    }

    private void evaluate() {
        if (!capTarget) {
            rt = rt0 + n * a;
            rc = Math.min(lineRate, rt - gap(e0, a, n));
            return;
        }
        long m = a > 0 ? (long) Math.floor((lineRate - rt0) / a) : Long.MAX_VALUE;
        if (m < 0) {
            m = 0;
        }
        if (n <= m) {
            rt = Math.min(lineRate, rt0 + n * a);
            rc = rt - gap(e0, a, n);
            return;
        }
        double rtm = Math.min(lineRate, rt0 + m * a);
        double rcm = rtm - gap(e0, a, m);
        double e1 = (lineRate - rcm) / 2;      // step m + 1: the target hits the line rate
        rt = lineRate;
        rc = lineRate - halve(e1, n - m - 1);
    }

    /** e(n) = a + (e0 − a)·2^−n. */
    private static double gap(double e0, double a, long n) {
        return a + halve(e0 - a, n);
    }

    private static double halve(double x, long times) {
        return Math.scalb(x, -(int) Math.min(times, MAX_HALVINGS));
    }
}
