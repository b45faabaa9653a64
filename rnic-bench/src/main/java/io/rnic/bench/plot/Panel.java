package io.rnic.bench.plot;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One panel of a {@link Figure}: a title, two axes, and the series drawn on them. A series is a
 * line through markers; where the points are means over seeds, each carries its 95 % interval as
 * an error bar.
 */
public final class Panel {
    /** One series: points in x order, with error-bar half-widths or none, and markers or a bare line. */
    record Series(String name, double[] x, double[] y, double[] error, boolean markers) { }

    private final String title;
    private final Axis x;
    private final Axis y;
    private final List<Series> series = new ArrayList<>();

    Panel(String title, Axis x, Axis y) {
        this.title = Objects.requireNonNull(title, "title");
        this.x = Objects.requireNonNull(x, "x");
        this.y = Objects.requireNonNull(y, "y");
    }

    /**
     * Adds a series without error bars.
     *
     * @return this panel
     */
    public Panel series(String name, double[] xs, double[] ys) {
        return add(name, xs, ys, null, true);
    }

    /**
     * Adds a series drawn as a line without markers: a time series of many points, where markers
     * would hide the line.
     *
     * @return this panel
     */
    public Panel line(String name, double[] xs, double[] ys) {
        return add(name, xs, ys, null, false);
    }

    /**
     * Adds a series of means with their 95 % intervals as error bars.
     *
     * @return this panel
     */
    public Panel series(String name, double[] xs, Interval[] ys) {
        Objects.requireNonNull(ys, "ys");
        double[] mean = new double[ys.length];
        double[] err = new double[ys.length];
        for (int i = 0; i < ys.length; i++) {
            mean[i] = ys[i].mean();
            err[i] = ys[i].halfWidth();
        }
        return add(name, xs, mean, err, true);
    }

    private Panel add(String name, double[] xs, double[] ys, double[] err, boolean markers) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(xs, "xs");
        Objects.requireNonNull(ys, "ys");
        if (xs.length != ys.length || xs.length == 0) {
            throw new IllegalArgumentException("series " + name + ": " + xs.length + " x values and " + ys.length
                    + " y values; a series needs the same number of each, at least one");
        }
        for (Series s : series) {
            if (s.name().equals(name)) {
                throw new IllegalArgumentException("panel " + title + " already has a series named " + name);
            }
        }
        checkScale(name, x, xs);
        checkScale(name, y, ys);
        series.add(new Series(name, xs.clone(), ys.clone(), err == null ? null : err.clone(), markers));
        return this;
    }

    private static void checkScale(String name, Axis axis, double[] values) {
        for (double v : values) {
            if (!Double.isFinite(v) || axis.log() && v <= 0) {
                throw new IllegalArgumentException("series " + name + " has the value " + v + ", which the "
                        + (axis.log() ? "logarithmic " : "") + "axis '" + axis.label() + "' cannot show");
            }
        }
    }

    String title() {
        return title;
    }

    Axis x() {
        return x;
    }

    Axis y() {
        return y;
    }

    List<Series> series() {
        return series;
    }
}
