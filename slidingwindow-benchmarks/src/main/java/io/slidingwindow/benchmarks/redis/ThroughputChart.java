package io.slidingwindow.benchmarks.redis;

import io.slidingwindow.benchmarks.redis.Results.Case;
import io.slidingwindow.benchmarks.redis.Results.Spread;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.List;
import java.util.Optional;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYErrorRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;

/**
 * BENCHMARK HARNESS support: a PNG of throughput per contender and workload, the median over rounds
 * as a point and the smallest and largest round as a bar, on a logarithmic axis (a refused hot id
 * answered by the client runs hundreds of times faster than any round trip).
 */
final class ThroughputChart {

  private static final int WIDTH = 1400;
  private static final int HEIGHT = 700;
  private static final Font SUBTITLE_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 12);

  private ThroughputChart() {}

  /** Draws the chart of {@code cases} into {@code png}, creating its directory. */
  static void write(
      List<Case> cases, List<String> workloads, List<String> contenders, String title, Path png)
      throws IOException {
    YIntervalSeriesCollection data = new YIntervalSeriesCollection();
    double spacing = 0.7 / Math.max(1, workloads.size());
    for (int w = 0; w < workloads.size(); w++) {
      YIntervalSeries series = new YIntervalSeries(workloads.get(w));
      for (int c = 0; c < contenders.size(); c++) {
        Optional<Spread> s =
            Results.spread(cases, workloads.get(w), contenders.get(c), Case::perSecond);
        if (s.isPresent()) {
          double x = c + (w - (workloads.size() - 1) / 2.0) * spacing;
          series.add(x, s.get().median(), s.get().min(), s.get().max());
        }
      }
      data.addSeries(series);
    }

    String[] labels = contenders.stream().map(Contenders::shortName).toArray(String[]::new);
    SymbolAxis xAxis = new SymbolAxis(null, labels);
    xAxis.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    xAxis.setGridBandsVisible(false);
    xAxis.setRange(-0.6, contenders.size() - 0.4);
    LogAxis yAxis = new LogAxis("requests per second (log scale)");
    yAxis.setBase(10);
    yAxis.setSmallestValue(1);
    yAxis.setTickUnit(new NumberTickUnit(1)); // one tick per power of ten
    yAxis.setMinorTickCount(9);
    yAxis.setMinorTickMarksVisible(true);
    yAxis.setNumberFormatOverride(new DecimalFormat("#,##0"));

    XYErrorRenderer renderer = new XYErrorRenderer();
    renderer.setDrawXError(false);
    renderer.setDrawYError(true);
    renderer.setDefaultLinesVisible(false);
    renderer.setDefaultShapesVisible(true);
    renderer.setErrorStroke(new BasicStroke(2f));
    renderer.setCapLength(8);
    Color[] colors = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c)};
    for (int w = 0; w < workloads.size(); w++) {
      renderer.setSeriesPaint(w, colors[w % colors.length]);
    }

    XYPlot plot = new XYPlot(data, xAxis, yAxis, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.setDomainGridlinesVisible(false);
    JFreeChart chart = new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 14), plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    chart.addSubtitle(
        new TextTitle("point: median over rounds; bar: slowest to fastest round", SUBTITLE_FONT));

    Path dir = png.toAbsolutePath().getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    ChartUtils.saveChartAsPNG(png.toFile(), chart, WIDTH, HEIGHT);
  }
}
