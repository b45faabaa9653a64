package io.rnic.bench.plot;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Dimension;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.apache.batik.svggen.SVGGeneratorContext;
import org.apache.batik.svggen.SVGGraphics2D;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.Marker;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * A figure of one or more {@link Panel panels} side by side, drawn as SVG the same way for every
 * experiment the project plots: numeric axes with labels and units, a line through markers per
 * series, 95 % error bars where points are means over seeds, one legend, and panels that each keep
 * to their own space. A series keeps its colour and marker in every panel of a figure.
 *
 * <p>Charts are drawn by XChart onto Apache Batik's SVG graphics (both Apache-2.0); the output is
 * a pure function of the figure's data: the same data give the same bytes on the same machine
 * (text is drawn as outlines of the JVM's fonts, so another machine's fonts may change the
 * outlines, not the data).
 */
public final class Figure {
    /** Okabe and Ito's palette, distinguishable with colour-blindness and in greyscale print. */
    private static final Color[] COLOURS = {new Color(0x0072B2), new Color(0xD55E00), new Color(0x009E73),
        new Color(0xCC79A7), new Color(0xE69F00), new Color(0x56B4E9), new Color(0x000000), new Color(0x999999)};
    private static final Marker[] MARKERS = {SeriesMarkers.CIRCLE, SeriesMarkers.SQUARE, SeriesMarkers.DIAMOND,
        SeriesMarkers.TRIANGLE_UP, SeriesMarkers.TRIANGLE_DOWN, SeriesMarkers.CROSS, SeriesMarkers.PLUS,
        SeriesMarkers.OVAL};
    private static final int PANEL_WIDTH = 420;
    private static final int PANEL_HEIGHT = 320;
    private static final int LEGEND_WIDTH = 150;
    private static final int TITLE_HEIGHT = 34;
    private static final int TITLE_LINE = 20;
    private static final int GAP = 16;
    private static final java.util.regex.Pattern DOCTYPE = java.util.regex.Pattern.compile("<!DOCTYPE[^>]*>\\s*");

    private final String title;
    private final List<Panel> panels = new ArrayList<>();

    /** A figure with the given title, drawn above its panels. */
    public Figure(String title) {
        this.title = Objects.requireNonNull(title, "title");
    }

    /**
     * Adds a panel, to the right of those already added.
     *
     * @param panelTitle what the panel shows (an operation, a configuration)
     * @param x          its horizontal axis
     * @param y          its vertical axis
     * @return the panel, to add series to
     */
    public Panel panel(String panelTitle, Axis x, Axis y) {
        Panel p = new Panel(panelTitle, x, y);
        panels.add(p);
        return p;
    }

    /**
     * Draws the figure.
     *
     * @return the SVG document
     * @throws IllegalStateException if the figure has no panel or a panel has no series
     */
    public String svg() {
        if (panels.isEmpty()) {
            throw new IllegalStateException("figure '" + title + "' has no panel");
        }
        Map<String, Integer> styleOf = new LinkedHashMap<>();
        for (Panel p : panels) {
            if (p.series().isEmpty()) {
                throw new IllegalStateException("panel '" + p.title() + "' of figure '" + title + "' has no series");
            }
            p.series().forEach(s -> styleOf.putIfAbsent(s.name(), styleOf.size()));
        }
        System.setProperty("java.awt.headless", "true");
        int width = panels.size() * (PANEL_WIDTH + GAP) + LEGEND_WIDTH;
        Document doc = newDocument();
        SVGGeneratorContext ctx = SVGGeneratorContext.createDefault(doc);
        ctx.setComment(null);
        ctx.setEmbeddedFontsOn(false);
        SVGGraphics2D g = new SVGGraphics2D(ctx, false);
        Font titleFont = new Font(Font.SANS_SERIF, Font.BOLD, 15);
        // A title wider than the figure wraps: a one-panel figure is narrow, a caption may be long.
        List<String> titleLines = wrap(title, g.getFontMetrics(titleFont), width - 2 * GAP);
        int titleHeight = TITLE_HEIGHT + (titleLines.size() - 1) * TITLE_LINE;
        int height = titleHeight + PANEL_HEIGHT;
        g.setSVGCanvasSize(new Dimension(width, height));
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        g.setColor(Color.BLACK);
        g.setFont(titleFont);
        for (int i = 0; i < titleLines.size(); i++) {
            g.drawString(titleLines.get(i), GAP, 22 + i * TITLE_LINE);
        }
        for (int i = 0; i < panels.size(); i++) {
            boolean last = i == panels.size() - 1;
            int w = PANEL_WIDTH + (last ? LEGEND_WIDTH : 0);
            Graphics2D pg = (Graphics2D) g.create(GAP / 2 + i * (PANEL_WIDTH + GAP), titleHeight, w, PANEL_HEIGHT);
            chart(panels.get(i), styleOf, last, w).paint(pg, w, PANEL_HEIGHT);
            pg.dispose();
        }
        Element root = g.getRoot();
        root.setAttribute("viewBox", "0 0 " + width + " " + height);
        Element t = doc.createElementNS(SVGGraphics2D.SVG_NAMESPACE_URI, "title");
        t.setTextContent(title);
        Element d = doc.createElementNS(SVGGraphics2D.SVG_NAMESPACE_URI, "desc");
        d.setTextContent(describe());
        root.insertBefore(d, root.getFirstChild());
        root.insertBefore(t, d);
        StringWriter out = new StringWriter();
        try {
            g.stream(root, out, true, false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        g.dispose();
        // No DOCTYPE: SVG needs none, and a validating reader would fetch the DTD from the network.
        return DOCTYPE.matcher(out.toString()).replaceFirst("");
    }

    /** {@code text} broken at spaces into lines no wider than {@code max} pixels (a longer word keeps its own line). */
    static List<String> wrap(String text, FontMetrics metrics, int max) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && metrics.stringWidth(line + " " + word) > max) {
                lines.add(line.toString());
                line.setLength(0);
            }
            line.append(line.length() > 0 ? " " : "").append(word);
        }
        lines.add(line.toString());
        return lines;
    }

    /** The figure in words, for the SVG's description (screen readers, and tests that read it). */
    String describe() {
        StringBuilder s = new StringBuilder(title);
        for (Panel p : panels) {
            s.append("; panel ").append(p.title()).append(": x ").append(p.x().label())
                    .append(p.x().log() ? " (log)" : "").append(", y ").append(p.y().label())
                    .append(p.y().log() ? " (log)" : "").append(", series");
            for (Panel.Series ser : p.series()) {
                s.append(' ').append(ser.name()).append(ser.error() != null ? " (95% CI)" : "");
            }
        }
        return s.toString();
    }

    private static XYChart chart(Panel p, Map<String, Integer> styleOf, boolean legend, int width) {
        XYChart c = new XYChartBuilder().width(width).height(PANEL_HEIGHT).title(p.title()).xAxisTitle(p.x().label())
                .yAxisTitle(p.y().label()).build();
        var st = c.getStyler();
        st.setLocale(Locale.ROOT);
        st.setChartBackgroundColor(Color.WHITE);
        st.setPlotBackgroundColor(Color.WHITE);
        st.setPlotBorderColor(Color.DARK_GRAY);
        st.setPlotGridLinesColor(new Color(0xE0E0E0));
        st.setPlotGridLinesStroke(new BasicStroke(0.8f));
        st.setChartTitleBoxVisible(false);
        st.setChartTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        st.setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        st.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        st.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        st.setLegendVisible(legend);
        st.setLegendPosition(Styler.LegendPosition.OutsideE);
        st.setLegendBorderColor(Color.WHITE);
        st.setMarkerSize(7);
        st.setErrorBarsColorSeriesColor(true);
        st.setXAxisLogarithmic(p.x().log());
        st.setYAxisLogarithmic(p.y().log());
        // A linear axis over non-negative values runs from 0 to a round number, so its ticks fall on round values.
        if (!p.x().log()) {
            st.setXAxisDecimalPattern("#,##0.###"); // no E notation on a linear axis
            niceRange(p, true).ifPresent(max -> {
                st.setXAxisMin(0.0);
                st.setXAxisMax(max);
            });
        }
        if (!p.y().log()) {
            st.setYAxisDecimalPattern("#,##0.###");
            niceRange(p, false).ifPresent(max -> {
                st.setYAxisMin(0.0);
                st.setYAxisMax(max);
            });
        }
        // A logarithmic axis spans whole decades, so each end has a labelled tick (0.001 to 0.1,
        // not 0.001 to an unlabelled 0.05).
        if (p.x().log()) {
            double[] d = decades(p.series().stream().flatMapToDouble(s -> java.util.Arrays.stream(s.x())).toArray());
            st.setXAxisMin(d[0]);
            st.setXAxisMax(d[1]);
        }
        if (p.y().log()) {
            double[] d = decades(p.series().stream().flatMapToDouble(s -> java.util.Arrays.stream(s.y())).toArray());
            st.setYAxisMin(d[0]);
            st.setYAxisMax(d[1]);
        }
        st.setAntiAlias(true);
        st.setToolTipsEnabled(false);
        List<Panel.Series> ordered = new ArrayList<>(p.series());
        ordered.sort(java.util.Comparator.comparingInt(s -> styleOf.get(s.name()))); // one legend order everywhere
        for (Panel.Series s : ordered) {
            XYSeries xs = s.error() == null ? c.addSeries(s.name(), s.x(), s.y())
                    : c.addSeries(s.name(), s.x(), s.y(), s.error());
            int k = styleOf.get(s.name());
            xs.setLineColor(COLOURS[k % COLOURS.length]);
            xs.setMarkerColor(COLOURS[k % COLOURS.length]);
            xs.setMarker(s.markers() ? MARKERS[k % MARKERS.length] : SeriesMarkers.NONE);
            xs.setLineWidth(1.6f);
        }
        return c;
    }

    /** The smallest round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10^k) at or above the axis's largest value, if its values are all 0 or more. */
    private static java.util.Optional<Double> niceRange(Panel p, boolean x) {
        double max = 0;
        for (Panel.Series s : p.series()) {
            double[] v = x ? s.x() : s.y();
            for (int i = 0; i < v.length; i++) {
                double top = v[i] + (!x && s.error() != null ? s.error()[i] : 0);
                if (v[i] < 0) {
                    return java.util.Optional.empty();
                }
                max = Math.max(max, top);
            }
        }
        if (max <= 0) {
            return java.util.Optional.empty();
        }
        double decade = Math.pow(10, Math.floor(Math.log10(max)));
        for (double m : new double[] {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
            if (m * decade >= max * (1 - 1e-12)) {
                return java.util.Optional.of(m * decade);
            }
        }
        return java.util.Optional.of(10 * decade);
    }

    /** The powers of ten at or below the smallest value and at or above the largest. */
    static double[] decades(double[] values) {
        double min = java.util.Arrays.stream(values).min().orElse(1);
        double max = java.util.Arrays.stream(values).max().orElse(1);
        double low = Math.pow(10, Math.floor(Math.log10(min) + 1e-9));
        double high = Math.pow(10, Math.ceil(Math.log10(max) - 1e-9));
        return new double[] {low, high > low ? high : low * 10};
    }

    private static Document newDocument() {
        try {
            return DocumentBuilderFactory.newInstance().newDocumentBuilder().newDocument();
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("no XML document builder in this JVM", e);
        }
    }
}
