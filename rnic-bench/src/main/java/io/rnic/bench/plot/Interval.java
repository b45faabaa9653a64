package io.rnic.bench.plot;

/**
 * The mean of repeated measurements (one per seed) and the half-width of its 95 % confidence
 * interval, from Student's t distribution with n − 1 degrees of freedom: what an error bar shows.
 * One measurement has no interval (half-width 0).
 *
 * @param mean      the sample mean
 * @param halfWidth t(0.975, n − 1) × s / √n, or 0 for a single sample
 * @param n         the number of samples
 */
public record Interval(double mean, double halfWidth, int n) {
    /** Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom (standard tables). */
    private static final double[] T975 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042};

    /**
     * The mean and 95 % interval of {@code samples}.
     *
     * @throws IllegalArgumentException if there are no samples
     */
    public static Interval of(double... samples) {
        if (samples.length == 0) {
            throw new IllegalArgumentException("an interval needs at least one sample");
        }
        double sum = 0;
        for (double s : samples) {
            sum += s;
        }
        double mean = sum / samples.length;
        if (samples.length == 1) {
            return new Interval(mean, 0, 1);
        }
        double sq = 0;
        for (double s : samples) {
            sq += (s - mean) * (s - mean);
        }
        double sd = Math.sqrt(sq / (samples.length - 1));
        return new Interval(mean, t975(samples.length - 1) * sd / Math.sqrt(samples.length), samples.length);
    }

    /** The 97.5th percentile of Student's t with {@code df} degrees of freedom (1.96 beyond 30). */
    static double t975(int df) {
        return df <= T975.length ? T975[df - 1] : 1.96;
    }

    /** The interval's lower end. */
    public double low() {
        return mean - halfWidth;
    }

    /** The interval's upper end. */
    public double high() {
        return mean + halfWidth;
    }
}
