package io.slidingwindow.benchmarks.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * BENCHMARK HARNESS support: how busy the machine was, from {@code /proc} (Linux). A reading that
 * cannot be made is NaN (load) or {@code -1} (CPU times).
 */
final class Machine {

  private Machine() {}

  /** Machine-wide CPU clock ticks from the {@code cpu} line of {@code /proc/stat}. */
  record CpuTimes(long total, long steal) {

    /** Percent of the CPU time between {@code before} and this that the hypervisor stole. */
    double stealPercentSince(CpuTimes before) {
      if (total < 0 || before.total < 0 || total == before.total) {
        return Double.NaN;
      }
      return 100.0 * (steal - before.steal) / (total - before.total);
    }
  }

  static CpuTimes cpuTimes() {
    String text = read(Path.of("/proc/stat"));
    return text == null ? new CpuTimes(-1, -1) : parseCpuTimes(text);
  }

  /**
   * Parses {@code cpu user nice system idle iowait irq softirq steal [guest guest_nice]}; guest
   * time is already inside user and nice, so the total is the first eight fields.
   */
  static CpuTimes parseCpuTimes(String procStat) {
    for (String line : procStat.split("\n")) {
      if (line.startsWith("cpu ")) {
        String[] f = line.trim().split("\\s+");
        long total = 0;
        for (int i = 1; i <= 8 && i < f.length; i++) {
          total += Long.parseLong(f[i]);
        }
        return new CpuTimes(total, f.length > 8 ? Long.parseLong(f[8]) : 0);
      }
    }
    return new CpuTimes(-1, -1);
  }

  /** The one-minute load average, or NaN. */
  static double loadAverage() {
    String text = read(Path.of("/proc/loadavg"));
    return text == null ? Double.NaN : Double.parseDouble(text.trim().split("\\s+")[0]);
  }

  private static String read(Path path) {
    try {
      return Files.readString(path, StandardCharsets.US_ASCII);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
