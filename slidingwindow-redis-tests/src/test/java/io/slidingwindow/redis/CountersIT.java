package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Windowed counters for each client, on the shared server, against a brute-force model. */
class CountersIT {

  /** Every event ever added, and the sums a window would cover, by scanning them all. */
  private static final class Model {
    final List<long[]> events = new ArrayList<>();
    final int size;
    final long intervalMicros;

    Model(int size, long intervalMicros) {
      this.size = size;
      this.intervalMicros = intervalMicros;
    }

    long[] at(long nowMicros) {
      long newest = Math.floorDiv(nowMicros, intervalMicros);
      long oldest = newest - size + 1;
      long sum = 0;
      long count = 0;
      for (long[] e : events) {
        long bucket = Math.floorDiv(e[0], intervalMicros);
        if (bucket >= oldest && bucket <= newest) {
          sum += e[1];
          count++;
        }
      }
      return new long[] {sum, count};
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void addAndGetSumCount_randomSchedules_matchTheBruteForceModel(Client client) {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    for (int run = 0; run < 20; run++) {
      int size = 1 + random.nextInt(12);
      long intervalMicros = 1L + random.nextInt(5_000);
      long originNanos =
          switch (run % 3) {
            case 0 -> 0;
            case 1 -> Long.MAX_VALUE - 1_000_000;
            default -> random.nextLong();
          };
      FakeTicker ticker = new FakeTicker(originNanos);
      RedisCounters counters =
          RedisCounters.builder(SharedRedis.backend(client))
              .size(size)
              .interval(Duration.ofNanos(intervalMicros * 1000))
              .clientTime(ticker)
              .commandTimeout(Duration.ofSeconds(5))
              .build();
      String id = "counter-" + client + "-" + seed + "-" + run;
      Model model = new Model(size, intervalMicros);
      long now = 0;
      for (int op = 0; op < 150; op++) {
        String where =
            "seed "
                + seed
                + ", run "
                + run
                + ", op "
                + op
                + ", size "
                + size
                + ", interval "
                + intervalMicros
                + " µs, t="
                + now;
        switch (random.nextInt(4)) {
          case 0, 1 -> {
            long amount = random.nextInt(200) - 20L;
            model.events.add(new long[] {now, amount});
            assertThat(counters.addAndGet(id, amount)).as(where).isEqualTo(model.at(now)[0]);
          }
          case 2 -> assertThat(counters.sum(id)).as(where).isEqualTo(model.at(now)[0]);
          default -> assertThat(counters.count(id)).as(where).isEqualTo(model.at(now)[1]);
        }
        long step =
            random.nextInt(5) == 0
                ? intervalMicros * random.nextInt(2 * size + 2)
                : random.nextInt((int) intervalMicros + 1);
        ticker.advance(step * 1000);
        now += step;
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void counters_serverTime_expireAfterTheSpanAndKeepIdsApart(Client client) {
    RedisCounters counters =
        RedisCounters.builder(SharedRedis.backend(client))
            .size(10)
            .interval(Duration.ofSeconds(6))
            .keyPrefix("counters-" + client)
            .build();
    assertThat(counters.addAndGet("{login}", 3)).isEqualTo(3);
    assertThat(counters.addAndGet("{login}", 4)).isEqualTo(7);
    assertThat(counters.count("{login}")).isEqualTo(2);
    assertThat(counters.sum("login")).isZero();
    String key = Keys.tagged("counters-" + client, "{login}") + "c:10:6000000";
    long pttl = Long.parseLong(SharedRedis.server().cli("PTTL", key));
    assertThat(pttl).isPositive().isLessThanOrEqualTo(66_000);
  }
}
