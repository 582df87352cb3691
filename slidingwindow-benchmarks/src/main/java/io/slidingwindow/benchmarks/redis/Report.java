package io.slidingwindow.benchmarks.redis;

import static io.slidingwindow.benchmarks.redis.Results.decimals;
import static io.slidingwindow.benchmarks.redis.Results.whole;

import io.slidingwindow.benchmarks.Proc;
import io.slidingwindow.benchmarks.redis.Results.Case;
import io.slidingwindow.benchmarks.redis.Results.Round;
import io.slidingwindow.benchmarks.redis.Results.Spread;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.DoubleFunction;
import java.util.function.ToDoubleFunction;

/** BENCHMARK HARNESS support: the Markdown tables of one run of {@link RedisComparison}. */
final class Report {

  private final List<String> workloads;
  private final List<String> contenders;
  private final List<Case> cases;
  private final List<Round> rounds;
  private final StringBuilder out = new StringBuilder();

  Report(List<String> workloads, List<String> contenders, List<Case> cases, List<Round> rounds) {
    this.workloads = workloads;
    this.contenders = contenders;
    this.cases = cases;
    this.rounds = rounds;
  }

  /** The whole report: {@code header} first, then every table, then {@code memory} if any. */
  String render(String header, String memory) {
    out.setLength(0);
    out.append(header).append('\n');
    throughput();
    ratios();
    decisionsPerCoreSecond();
    costs();
    roundTable();
    caseTable();
    if (!memory.isEmpty()) {
      out.append('\n').append(memory);
    }
    return out.toString();
  }

  private void throughput() {
    out.append("\n### Throughput: requests per second, median (min, max) over rounds\n\n");
    perWorkloadTable(
        "contender",
        c -> Results.spread(cases, c.workload, c.contender, Case::perSecond),
        Results::whole);
  }

  private void decisionsPerCoreSecond() {
    out.append(
        "\n### Decisions per Redis core-second: requests / redis-server CPU seconds, median (min,"
            + " max)\n\n");
    perWorkloadTable(
        "contender",
        c -> Results.spread(cases, c.workload, c.contender, Case::decisionsPerRedisCoreSecond),
        Results::whole);
    out.append(
        "\n∞: redis-server spent less than one clock tick (1/"
            + Proc.CLOCK_TICKS
            + " s) in the case, so the client answered alone.\n");
  }

  private record Cell(String workload, String contender) {}

  private void perWorkloadTable(
      String first,
      java.util.function.Function<Cell, Optional<Spread>> cell,
      DoubleFunction<String> f) {
    header(first);
    for (String contender : contenders) {
      StringBuilder row = new StringBuilder("| " + contender + " |");
      boolean any = false;
      for (String workload : workloads) {
        Optional<Spread> s = cell.apply(new Cell(workload, contender));
        any |= s.isPresent();
        row.append(' ').append(s.map(x -> x.text(f)).orElse("")).append(" |");
      }
      if (any) {
        out.append(row).append('\n');
      }
    }
  }

  private void ratios() {
    out.append("\n### Ratios ours / peer: median (min, max) of the per-round ratios\n\n");
    header("ratio");
    for (String[] pair : ratioPairs(contenders)) {
      StringBuilder row = new StringBuilder("| ");
      row.append(Contenders.shortName(pair[0]))
          .append(" / ")
          .append(Contenders.shortName(pair[1]))
          .append(" |");
      boolean any = false;
      for (String workload : workloads) {
        Optional<Spread> s = Results.ratio(cases, workload, pair[0], pair[1]);
        any |= s.isPresent();
        row.append(' ').append(s.map(x -> x.text(v -> decimals(v, 2))).orElse("")).append(" |");
      }
      if (any) {
        out.append(row).append('\n');
      }
    }
  }

  /**
   * The pairs {ours, peer} of the ratio rows, in order: ours blocking over Lettuce against every
   * other contender, ours asynchronous against every peer not of this library, then ours over Jedis
   * against Bucket4j over Jedis (the same client on both sides) when both are listed. A pair may
   * hold a contender that was not measured; its row is then left out.
   */
  static List<String[]> ratioPairs(List<String> contenders) {
    List<String[]> pairs = new ArrayList<>();
    for (String ours : List.of(Contenders.OURS, Contenders.OURS_ASYNC)) {
      for (String peer : contenders) {
        boolean ourOwn = peer.startsWith("slidingwindow");
        if (!peer.equals(ours) && (ours.equals(Contenders.OURS) || !ourOwn)) {
          pairs.add(new String[] {ours, peer});
        }
      }
    }
    if (contenders.contains(Contenders.OURS_JEDIS)
        && contenders.contains(Contenders.BUCKET4J_JEDIS)) {
      pairs.add(new String[] {Contenders.OURS_JEDIS, Contenders.BUCKET4J_JEDIS});
    }
    return pairs;
  }

  private void costs() {
    out.append(
        "\n### Cost per request, median over rounds\n\n"
            + "Client CPU: this JVM (every client thread, Lettuce's event loop, the harness) per"
            + " request; redis-server CPU: its utime + stime per request; commandstats: the `usec`"
            + " of the top-level commands per request (script time, without the event loop's"
            + " reading and writing).\n\n");
    out.append(
        "| contender | workload | granted | client CPU µs | redis-server CPU µs | commandstats µs"
            + " | top-level commands per request |\n");
    out.append("|---|---|---:|---:|---:|---:|---|\n");
    for (String workload : workloads) {
      for (String contender : contenders) {
        List<Case> mine = Results.of(cases, workload, contender);
        if (mine.isEmpty()) {
          continue;
        }
        out.append("| ")
            .append(contender)
            .append(" | ")
            .append(workload)
            .append(" | ")
            .append(median(workload, contender, Case::grantedPercent, 1))
            .append(" % | ")
            .append(median(workload, contender, Case::clientCpuMicrosPerRequest, 1))
            .append(" | ")
            .append(median(workload, contender, Case::redisCpuMicrosPerRequest, 1))
            .append(" | ")
            .append(median(workload, contender, Case::serverMicrosPerRequest, 1))
            .append(" | ")
            .append(mine.get(mine.size() - 1).commands())
            .append(" |\n");
      }
    }
  }

  private String median(String workload, String contender, ToDoubleFunction<Case> f, int places) {
    return Results.spread(cases, workload, contender, f)
        .map(s -> decimals(s.median(), places))
        .orElse("n/a");
  }

  private void roundTable() {
    out.append(
        "\n### Rounds: machine-wide CPU steal over the round and the one-minute load average at"
            + " its end\n\n");
    out.append("| workload | round | order | steal | load average | |\n");
    out.append("|---|---:|---|---:|---:|---|\n");
    int flagged = 0;
    for (Round r : rounds) {
      flagged += r.flagged() ? 1 : 0;
      out.append(
          String.format(
              java.util.Locale.ROOT,
              "| %s | %d | %s | %s %% | %s | %s |%n",
              r.workload(),
              r.round(),
              String.join(" → ", r.order().stream().map(Contenders::shortName).toList()),
              decimals(r.stealPercent(), 1),
              decimals(r.load(), 2),
              flags(r)));
    }
    out.append(
        flagged == 0
            ? "\nNo round had more than " + (int) Results.STEAL_FLAG_PERCENT + " % steal.\n"
            : "\n**"
                + flagged
                + " round(s) had more than "
                + (int) Results.STEAL_FLAG_PERCENT
                + " % steal: rerun on a quieter machine before quoting these figures.**\n");
  }

  private static String flags(Round r) {
    List<String> flags = new ArrayList<>();
    if (r.flagged()) {
      flags.add("**STEAL > " + (int) Results.STEAL_FLAG_PERCENT + " %**");
    }
    if (r.load() > Runtime.getRuntime().availableProcessors()) {
      flags.add("busy: load above the CPU count");
    }
    return String.join(", ", flags);
  }

  private void caseTable() {
    out.append("\n### Every case\n\n");
    out.append(
        "| workload | round | contender | requests/s | steal | load average | client CPU µs |"
            + " redis-server CPU µs |\n");
    out.append("|---|---:|---|---:|---:|---:|---:|---:|\n");
    for (Case c : cases) {
      out.append(
          String.format(
              java.util.Locale.ROOT,
              "| %s | %d | %s | %s | %s %%%s | %s | %s | %s |%n",
              c.workload(),
              c.round(),
              c.contender(),
              whole(c.perSecond()),
              decimals(c.stealPercent(), 1),
              c.stealPercent() > Results.STEAL_FLAG_PERCENT ? " **!**" : "",
              decimals(c.loadAverage(), 2),
              decimals(c.clientCpuMicrosPerRequest(), 1),
              decimals(c.redisCpuMicrosPerRequest(), 1)));
    }
  }

  private void header(String first) {
    out.append("| ").append(first).append(" |");
    for (String workload : workloads) {
      out.append(' ').append(workload).append(" |");
    }
    out.append("\n|---|");
    out.append("---:|".repeat(workloads.size())).append('\n');
  }
}
