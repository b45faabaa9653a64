package io.rnic.transport.fabric;

import java.math.BigInteger;
import java.util.Arrays;

/**
 * RED/ECN marking thresholds by port rate: Kmin and Kmax in bytes of the egress queue, and
 * Pmax, the marking probability at Kmax. Immutable.
 *
 * <p><b>Defaults</b> ({@link #defaults()}) are HPCC's shipped table
 * ({@code simulation/mix/config.txt}, {@code KMIN_MAP}/{@code KMAX_MAP}/{@code PMAX_MAP}; K in
 * KB of 1,000 bytes, as {@code switch-mmu.cc ConfigEcn} multiplies by 1000):
 * <table>
 *   <caption>HPCC's marking thresholds</caption>
 *   <tr><th>rate</th><th>Kmin</th><th>Kmax</th><th>Pmax</th></tr>
 *   <tr><td>25 Gb/s</td><td>100 KB</td><td>400 KB</td><td>0.2</td></tr>
 *   <tr><td>50 Gb/s</td><td>200 KB</td><td>800 KB</td><td>0.2</td></tr>
 *   <tr><td>100 Gb/s</td><td>400 KB</td><td>1,600 KB</td><td>0.2</td></tr>
 * </table>
 *
 * <p><b>A rate without an entry</b> (HPCC's {@code fat.txt} has 400 Gb/s links, which that table
 * lacks; HPCC's {@code third.cc} would stop on an assertion) gets HPCC's scaling rule: Kmin =
 * 100 KB × rate / 25 Gb/s, Kmax = 400 KB × rate / 25 Gb/s, Pmax 0.2. The HPCC paper gives
 * the rule (§5, quoted by its authors in HPCC issue #21, who say the values come from Alibaba's
 * production network), and HPCC's {@code run.py} builds its maps with it. The table above is
 * that rule at 25, 50 and 100 Gb/s; at 400 Gb/s it gives 1,600 KB and 6,400 KB. Bytes are
 * rounded down. {@link #with} overrides the entry for one rate.
 */
public final class EcnThresholds {
    /** Pmax of HPCC's table and scaling rule. */
    public static final double HPCC_PMAX = 0.2;
    private static final long KB = 1_000;
    private static final long RULE_RATE = 25_000_000_000L;

    private static final EcnThresholds DEFAULTS = new EcnThresholds(new long[0], new long[0], new long[0], new double[0])
            .with(25_000_000_000L, 100 * KB, 400 * KB, HPCC_PMAX)
            .with(50_000_000_000L, 200 * KB, 800 * KB, HPCC_PMAX)
            .with(100_000_000_000L, 400 * KB, 1_600 * KB, HPCC_PMAX);

    private final long[] rates;
    private final long[] kmin;
    private final long[] kmax;
    private final double[] pmax;

    private EcnThresholds(long[] rates, long[] kmin, long[] kmax, double[] pmax) {
        this.rates = rates;
        this.kmin = kmin;
        this.kmax = kmax;
        this.pmax = pmax;
    }

    /** HPCC's table, with its scaling rule for other rates (see the class comment). */
    public static EcnThresholds defaults() {
        return DEFAULTS;
    }

    /**
     * These thresholds with the entry for {@code bitsPerSecond} set (added or replaced).
     *
     * @throws IllegalArgumentException unless 0 ≤ kmin ≤ kmax, 0 ≤ pmax ≤ 1 and the rate is positive
     */
    public EcnThresholds with(long bitsPerSecond, long kminBytes, long kmaxBytes, double pmaxProbability) {
        if (bitsPerSecond <= 0) {
            throw new IllegalArgumentException("rate " + bitsPerSecond + " b/s must be more than 0");
        }
        RedMarker.check(kminBytes, kmaxBytes, pmaxProbability);
        int i = Arrays.binarySearch(rates, bitsPerSecond);
        long[] r = rates;
        long[] lo = kmin;
        long[] hi = kmax;
        double[] p = pmax;
        if (i < 0) {
            i = -i - 1;
            r = insert(rates, i, bitsPerSecond);
            lo = insert(kmin, i, 0);
            hi = insert(kmax, i, 0);
            double[] np = new double[p.length + 1];
            System.arraycopy(p, 0, np, 0, i);
            System.arraycopy(p, i, np, i + 1, p.length - i);
            p = np;
        } else {
            lo = lo.clone();
            hi = hi.clone();
            p = p.clone();
        }
        lo[i] = kminBytes;
        hi[i] = kmaxBytes;
        p[i] = pmaxProbability;
        return new EcnThresholds(r, lo, hi, p);
    }

    private static long[] insert(long[] a, int at, long v) {
        long[] n = new long[a.length + 1];
        System.arraycopy(a, 0, n, 0, at);
        n[at] = v;
        System.arraycopy(a, at, n, at + 1, a.length - at);
        return n;
    }

    /** Whether {@code bitsPerSecond} has an entry of its own (else the scaling rule applies). */
    public boolean hasEntry(long bitsPerSecond) {
        return Arrays.binarySearch(rates, bitsPerSecond) >= 0;
    }

    /** Kmin in bytes for a port of {@code bitsPerSecond}. */
    public long kminBytes(long bitsPerSecond) {
        int i = Arrays.binarySearch(rates, checkRate(bitsPerSecond));
        return i >= 0 ? kmin[i] : scaled(100 * KB, bitsPerSecond);
    }

    /** Kmax in bytes for a port of {@code bitsPerSecond}. */
    public long kmaxBytes(long bitsPerSecond) {
        int i = Arrays.binarySearch(rates, checkRate(bitsPerSecond));
        return i >= 0 ? kmax[i] : scaled(400 * KB, bitsPerSecond);
    }

    /** Pmax for a port of {@code bitsPerSecond}. */
    public double pmax(long bitsPerSecond) {
        int i = Arrays.binarySearch(rates, checkRate(bitsPerSecond));
        return i >= 0 ? pmax[i] : HPCC_PMAX;
    }

    /** A marker for a port of {@code bitsPerSecond}: made once per port, not per packet. */
    RedMarker marker(long bitsPerSecond) {
        return new RedMarker(kminBytes(bitsPerSecond), kmaxBytes(bitsPerSecond), pmax(bitsPerSecond));
    }

    /** {@code bytesAt25G × rate / 25 Gb/s}, rounded down, exactly for any rate (config time only). */
    private static long scaled(long bytesAt25G, long bitsPerSecond) {
        return BigInteger.valueOf(bytesAt25G).multiply(BigInteger.valueOf(bitsPerSecond))
                .divide(BigInteger.valueOf(RULE_RATE)).longValueExact();
    }

    private static long checkRate(long bitsPerSecond) {
        if (bitsPerSecond <= 0) {
            throw new IllegalArgumentException("rate " + bitsPerSecond + " b/s must be more than 0");
        }
        return bitsPerSecond;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("EcnThresholds[");
        for (int i = 0; i < rates.length; i++) {
            b.append(i == 0 ? "" : ", ").append(Rates.formatRate(rates[i])).append(' ')
                    .append(kmin[i]).append('/').append(kmax[i]).append(" B p").append(pmax[i]);
        }
        return b.append(", otherwise 100/400 KB x rate/25G p0.2]").toString();
    }
}
