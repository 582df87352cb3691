package io.slidingwindow.benchmarks.server;

import io.slidingwindow.benchmarks.server.ServiceBench.Round;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * BENCHMARK HARNESS support: the results of {@link ServiceBench} as a Markdown table and a PNG.
 * Each group is compared with its floor: the event-loop floor (memory), the Lettuce floor (redis),
 * the Netty floor (http).
 */
final class ServiceReport {

  private static final Map<String, String> FLOORS =
      Map.of(
          "memory", "floor, event loop",
          "redis", "floor, Lettuce return 1",
          "http", "Netty floor");

  private ServiceReport() {}

  static String markdown(List<Round> rounds, Map<String, String> options, List<String> notes) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "%s rounds of %s s (after %s s of warm-up) per target; h2load, one thread: gRPC %s"
                + " connections x %s streams, HTTP/1.1 %s connections.%n%n",
            options.getOrDefault("rounds", "3"),
            options.getOrDefault("seconds", "10"),
            options.getOrDefault("warmup", "3"),
            options.getOrDefault("clients", "4"),
            options.getOrDefault("streams", "16"),
            options.getOrDefault("http-clients", "64")));
    out.append(
        "| group | target | calls/s: min | median | max | server CPU per call (median) |"
            + " vs floor (medians) | vs floor (worst round) | failed | steal (max) |\n");
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<String, List<Round>> target : byTarget(rounds).entrySet()) {
      List<Round> own = target.getValue();
      String group = own.get(0).group();
      List<Round> floor = byTarget(rounds).getOrDefault(group + "/" + FLOORS.get(group), List.of());
      double[] perSecond = own.stream().mapToDouble(Round::perSecond).sorted().toArray();
      double[] cpu = own.stream().mapToDouble(Round::cpuMicrosPerCall).sorted().toArray();
      double worst = Double.NaN;
      for (Round r : own) {
        for (Round f : floor) {
          if (f.round() == r.round()) {
            double ratio = r.perSecond() / f.perSecond();
            worst = Double.isNaN(worst) ? ratio : Math.min(worst, ratio);
          }
        }
      }
      double floorMedian =
          floor.isEmpty()
              ? Double.NaN
              : median(floor.stream().mapToDouble(Round::perSecond).sorted().toArray());
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %.1f µs | %.2fx | %.2fx | %d | %.1f %% |%n",
              group,
              own.get(0).target(),
              count(perSecond[0]),
              count(median(perSecond)),
              count(perSecond[perSecond.length - 1]),
              median(cpu),
              median(perSecond) / floorMedian,
              worst,
              own.stream().mapToLong(Round::failed).sum(),
              own.stream().mapToDouble(Round::stealPercent).max().orElse(Double.NaN)));
    }
    out.append('\n');
    for (String note : notes) {
      out.append("- ").append(note).append('\n');
    }
    return out.toString();
  }

  static void chart(List<Round> rounds, Path png) throws IOException {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (List<Round> target : byTarget(rounds).values()) {
      double[] perSecond = target.stream().mapToDouble(Round::perSecond).sorted().toArray();
      data.addValue(
          median(perSecond),
          "median calls/s",
          target.get(0).group() + ": " + target.get(0).target());
    }
    JFreeChart chart =
        ChartFactory.createBarChart(
            "The rate limit service (blue) against its floors (grey): median calls/s of rounds",
            null,
            "calls per second",
            data,
            PlotOrientation.HORIZONTAL,
            false,
            false,
            false);
    CategoryPlot plot = chart.getCategoryPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    // Floors grey, the service blue.
    BarRenderer renderer =
        new BarRenderer() {
          private static final long serialVersionUID = 1L;

          @Override
          public java.awt.Paint getItemPaint(int row, int column) {
            return data.getColumnKey(column).toString().contains("floor")
                ? new Color(0x9a9a9a)
                : new Color(0x3b6ea8);
          }
        };
    renderer.setShadowVisible(false);
    renderer.setBarPainter(new org.jfree.chart.renderer.category.StandardBarPainter());
    plot.setRenderer(renderer);
    renderer.setDefaultItemLabelGenerator(
        new StandardCategoryItemLabelGenerator("{2}", new DecimalFormat("#,##0")));
    renderer.setDefaultItemLabelsVisible(true);
    renderer.setDefaultPositiveItemLabelPosition(
        new org.jfree.chart.labels.ItemLabelPosition(
            org.jfree.chart.labels.ItemLabelAnchor.OUTSIDE3,
            org.jfree.chart.ui.TextAnchor.CENTER_LEFT));
    renderer.setDefaultItemLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    plot.getDomainAxis().setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    Path parent = png.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 1100, 60 + 45 * data.getColumnCount());
  }

  private static Map<String, List<Round>> byTarget(List<Round> rounds) {
    Map<String, List<Round>> grouped = new LinkedHashMap<>();
    for (Round round : rounds) {
      grouped
          .computeIfAbsent(round.group() + "/" + round.target(), k -> new ArrayList<>())
          .add(round);
    }
    return grouped;
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static String count(double value) {
    return String.format(Locale.ROOT, "%,.0f", value);
  }
}
