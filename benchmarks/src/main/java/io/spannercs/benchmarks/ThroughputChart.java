package io.spannercs.benchmarks;

import java.util.List;
import java.util.Locale;

/**
 * Throughput against partitions, for the two readers: as text bars for the console and as a small
 * self-contained SVG for the docs.
 */
final class ThroughputChart {
    /**
     * One partition count's figures, in row changes per second: plain blocking reader (a), plain
     * async reader (a'), source (b).
     */
    record Point(int partitions, double plain, double plainAsync, double source) {}

    private static final int BAR_WIDTH = 50;

    private ThroughputChart() {}

    static String ascii(List<Point> points) {
        double max = max(points);
        StringBuilder sb = new StringBuilder();
        sb.append("row changes/s (each # = ")
                .append(String.format(Locale.ROOT, "%,.0f", max / BAR_WIDTH))
                .append(")\n");
        for (Point p : points) {
            String m = String.format(Locale.ROOT, "M=%-4d ", p.partitions());
            sb.append(bar(m + "a  plain  ", p.plain(), max));
            sb.append(bar("       a' async  ", p.plainAsync(), max));
            sb.append(bar("       b  source ", p.source(), max));
        }
        return sb.toString();
    }

    private static String bar(String label, double value, double max) {
        int n = (int) Math.round(value / max * BAR_WIDTH);
        return label
                + "#".repeat(n)
                + " ".repeat(BAR_WIDTH - n)
                + String.format(Locale.ROOT, " %,10.0f%n", value);
    }

    /** Grouped bars: plain client reader and source, per partition count. */
    static String svg(List<Point> points, String caption) {
        int w = 640;
        int h = 360;
        int left = 80;
        int bottom = 300;
        int top = 40;
        double max = niceCeiling(max(points));
        int groupWidth = (w - left - 20) / points.size();
        int barWidth = Math.min(50, groupWidth / 4);
        StringBuilder s = new StringBuilder();
        s.append(
                String.format(
                        Locale.ROOT,
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                                + " font-family=\"sans-serif\" font-size=\"12\">%n",
                        w,
                        h));
        s.append(
                String.format(
                        Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", w, h));
        s.append(text(w / 2, 20, "middle", escape(caption)));
        for (int i = 0; i <= 4; i++) {
            double v = max * i / 4;
            int y = bottom - (int) Math.round((bottom - top) * (double) i / 4);
            s.append(
                    String.format(
                            Locale.ROOT,
                            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>%n",
                            left,
                            y,
                            w - 10,
                            y));
            s.append(text(left - 6, y + 4, "end", String.format(Locale.ROOT, "%,.0f", v)));
        }
        for (int i = 0; i < points.size(); i++) {
            Point p = points.get(i);
            int x = left + i * groupWidth + (groupWidth - 3 * barWidth) / 2;
            s.append(rect(x, p.plain(), max, barWidth, bottom, top, "#7f8c8d"));
            s.append(rect(x + barWidth, p.plainAsync(), max, barWidth, bottom, top, "#c8ced3"));
            s.append(rect(x + 2 * barWidth, p.source(), max, barWidth, bottom, top, "#2e86de"));
            s.append(
                    text(
                            x + 3 * barWidth / 2,
                            bottom + 16,
                            "middle",
                            "M = "
                                    + p.partitions()
                                    + String.format(
                                            Locale.ROOT, " (b/a %.2f)", p.source() / p.plain())));
        }
        String[][] legend = {
            {"#7f8c8d", "a: plain client, blocking"},
            {"#c8ced3", "a': plain client, async"},
            {"#2e86de", "b: source in Flink"}
        };
        for (int i = 0; i < legend.length; i++) {
            int x = left + i * 180;
            s.append(
                    String.format(
                            Locale.ROOT,
                            "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>%n",
                            x,
                            bottom + 30,
                            legend[i][0]));
            s.append(text(x + 16, bottom + 40, "start", escape(legend[i][1])));
        }
        s.append("</svg>\n");
        return s.toString();
    }

    private static String rect(
            int x, double v, double max, int width, int bottom, int top, String color) {
        int height = (int) Math.round((bottom - top) * v / max);
        return String.format(
                Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n",
                x,
                bottom - height,
                width - 4,
                height,
                color);
    }

    private static String text(int x, int y, String anchor, String content) {
        return String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\">%s</text>%n",
                x,
                y,
                anchor,
                content);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static double max(List<Point> points) {
        double m = 1;
        for (Point p : points) {
            m = Math.max(m, Math.max(p.plain(), Math.max(p.plainAsync(), p.source())));
        }
        return m;
    }

    /** 1, 2 or 5 times a power of ten, at least {@code v}. */
    private static double niceCeiling(double v) {
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double f : new double[] {1, 2, 5, 10}) {
            if (f * p >= v) {
                return f * p;
            }
        }
        return 10 * p;
    }
}
