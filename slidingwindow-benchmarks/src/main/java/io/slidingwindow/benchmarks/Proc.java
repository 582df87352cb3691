package io.slidingwindow.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * BENCHMARK HARNESS support: readings of {@code /proc} (Linux) that tell whether a case was
 * measured on a quiet machine and what each process spent on it. A reading that cannot be made (no
 * {@code /proc}, a process in another namespace) is {@code -1}, and figures built from it are NaN.
 */
public final class Proc {

  /** Clock ticks per second of {@code /proc} times; 100 on every common Linux build. */
  public static final long CLOCK_TICKS = clockTicks();

  private Proc() {}

  /** Machine-wide CPU time in clock ticks from the {@code cpu} line of {@code /proc/stat}. */
  public record CpuTimes(long total, long steal) {
    /**
     * Percent of the machine's CPU time stolen by the hypervisor between {@code before} and this.
     */
    public double stealPercentSince(CpuTimes before) {
      if (total < 0 || before.total < 0 || total == before.total) {
        return Double.NaN;
      }
      return 100.0 * (steal - before.steal) / (total - before.total);
    }
  }

  /** Reads the aggregate {@code cpu} line of {@code /proc/stat}. */
  public static CpuTimes cpuTimes() {
    String text = read(Path.of("/proc/stat"));
    if (text == null) {
      return new CpuTimes(-1, -1);
    }
    return parseCpuTimes(text);
  }

  /**
   * Parses {@code cpu user nice system idle iowait irq softirq steal guest guest_nice}; guest time
   * is already counted in user and nice, so the total is the first eight fields.
   */
  public static CpuTimes parseCpuTimes(String procStat) {
    for (String line : procStat.split("\n", -1)) {
      if (line.startsWith("cpu ")) {
        String[] f = line.trim().split("\\s+", -1);
        long total = 0;
        for (int i = 1; i <= 8 && i < f.length; i++) {
          total += Long.parseLong(f[i]);
        }
        long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
        return new CpuTimes(total, steal);
      }
    }
    return new CpuTimes(-1, -1);
  }

  /** The one-minute load average from {@code /proc/loadavg}, or NaN. */
  public static double loadAverage() {
    String text = read(Path.of("/proc/loadavg"));
    return text == null ? Double.NaN : Double.parseDouble(text.trim().split("\\s+", -1)[0]);
  }

  /** This JVM's CPU time, user and system, in nanoseconds, or -1. */
  public static long selfCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /**
   * CPU time (utime + stime) of process {@code pid} in nanoseconds, from {@code /proc/<pid>/stat},
   * or -1 when it cannot be read.
   */
  public static long processCpuNanos(long pid) {
    String text = pid <= 0 ? null : read(Path.of("/proc", Long.toString(pid), "stat"));
    if (text == null) {
      return -1;
    }
    return TimeUnit.SECONDS.toNanos(parseProcessTicks(text)) / CLOCK_TICKS;
  }

  /**
   * utime + stime in clock ticks from a {@code /proc/<pid>/stat} line. The command name (field 2)
   * may hold spaces and parentheses, so fields are counted after its last ')': utime and stime are
   * fields 14 and 15, the 12th and 13th after it.
   */
  public static long parseProcessTicks(String stat) {
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+", -1);
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  /** The command name of process {@code pid} ({@code /proc/<pid>/comm}), or null. */
  public static String commandName(long pid) {
    String text = read(Path.of("/proc", Long.toString(pid), "comm"));
    return text == null ? null : text.trim();
  }

  private static String read(Path path) {
    try {
      return Files.readString(path, StandardCharsets.US_ASCII);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static long clockTicks() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
      if (p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0) {
        return Long.parseLong(out);
      }
    } catch (IOException | RuntimeException e) {
      // fall through to the usual value
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 100;
  }
}
