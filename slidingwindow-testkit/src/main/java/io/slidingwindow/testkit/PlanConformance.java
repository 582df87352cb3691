package io.slidingwindow.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.CalendarPeriod;
import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.Quota;
import io.slidingwindow.Reservation;
import io.slidingwindow.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * Plans, which every keyed backend must pass: keys whose plan changes at random moments, checked
 * against a model of the rule of {@link Plan} on the oracles ({@link WindowModel}). A backend's
 * test extends this class (or {@link CalendarQuotaConformance}, when it has calendar quotas) and
 * says how to build a limiter with plans, and whether it seeds new windows (in process) or starts
 * them empty (Redis).
 *
 * <p>Randomness comes from a seed that jqwik prints with a failure; every time is driven by a
 * {@link FakeTicker}, and the calendar by a fixed clock read when the limiter is built.
 */
public abstract class PlanConformance {

  private static final AtomicLong KEYS = new AtomicLong();

  static final List<CalendarPeriod> PERIODS =
      List.of(CalendarPeriod.DAY, CalendarPeriod.WEEK, CalendarPeriod.MONTH, CalendarPeriod.YEAR);

  /** Days on which periods start oddly, each in its zone: gaps and overlaps at midnight, a skip. */
  static final List<Object[]> ODD_DAYS =
      List.of(
          new Object[] {"America/St_Johns", LocalDate.of(2009, 11, 1)}, // back from 00:01 to 23:01
          new Object[] {"America/Santiago", LocalDate.of(2024, 4, 7)}, // back from 00:00 to 23:00
          new Object[] {"America/Santiago", LocalDate.of(2024, 9, 8)}, // midnight skipped
          new Object[] {"America/Havana", LocalDate.of(2024, 3, 10)}, // midnight skipped
          new Object[] {"Pacific/Apia", LocalDate.of(2011, 12, 30)}, // the day skipped
          new Object[] {"Europe/Paris", LocalDate.of(2026, 3, 29)},
          new Object[] {"Europe/Paris", LocalDate.of(2026, 10, 25)},
          new Object[] {"Australia/Lord_Howe", LocalDate.of(2026, 4, 5)}, // half an hour back
          new Object[] {"Asia/Kathmandu", LocalDate.of(2026, 12, 31)},
          new Object[] {"UTC", LocalDate.of(2028, 2, 29)});

  /**
   * Builds a limiter whose keys get their plan's limits from {@code plans}, else {@code defaults},
   * on {@code ticker}, with {@code calendarClock} read once as the calendar's origin.
   */
  protected abstract KeyedRateLimiter<String> newLimiter(
      List<Limit> defaults, PlanResolver<String> plans, Ticker ticker, Clock calendarClock);

  /**
   * Whether a window new to a key starts with the permits of the old limits' longest sliding window
   * (in process) or empty (Redis, which keeps no record of an id's earlier limits).
   */
  protected abstract boolean seedsNewWindows();

  /**
   * Whether the backend has calendar quotas, so that plans may hold them; {@link
   * CalendarQuotaConformance} says yes and checks them.
   */
  protected boolean calendarQuotas() {
    return false;
  }

  /** The finest time unit the backend resolves; every generated time is a multiple of it. */
  protected long tickNanos() {
    return 1;
  }

  /** A key no scenario has used. */
  protected static String freshKey() {
    return "plan-" + KEYS.incrementAndGet();
  }

  /**
   * A key moves between random plans (sharing some windows with other permits, adding and dropping
   * others, some with a calendar quota) while it is granted, refunded and reset: no grant ever
   * takes a window of the key's current limits past its limit, counting what the rule keeps.
   */
  @Property(tries = 60)
  void planChanges_randomPlansAndMoves_noGrantTakesAWindowPastItsLimit(@ForAll long seed) {
    Random random = new Random(seed);
    long tick = tickNanos();
    List<Limit> shapes = new ArrayList<>();
    for (int i = 0, n = 2 + random.nextInt(3); i < n; i++) {
      long windowTicks = 1L + random.nextInt(random.nextBoolean() ? 20 : 2_000);
      long precisionTicks =
          random.nextBoolean() ? 1 : Math.max(1, windowTicks / (1 + random.nextInt(10)));
      shapes.add(
          Limit.of(1, Duration.ofNanos(windowTicks * tick))
              .withPrecision(Duration.ofNanos(precisionTicks * tick)));
    }
    Object[] odd = ODD_DAYS.get(random.nextInt(ODD_DAYS.size()));
    ZoneId zone = ZoneId.of((String) odd[0]);
    if (calendarQuotas() && random.nextBoolean()) {
      shapes.add(Limit.calendar(1, CalendarPeriod.DAY, zone));
    }
    List<Plan> plans = new ArrayList<>();
    for (int p = 0, n = 2 + random.nextInt(3); p < n; p++) {
      plans.add(Plan.of("plan-" + p, randomLimits(random, shapes)));
    }
    List<Limit> defaults = randomLimits(random, shapes);
    long anchor = anchorNear(random, zone, (LocalDate) odd[1], CalendarPeriod.DAY, 400_000 * tick);
    AtomicReference<Plan> current = new AtomicReference<>(pick(random, plans));
    FakeTicker ticker = new FakeTicker(random.nextLong());
    KeyedRateLimiter<String> limiter =
        newLimiter(defaults, key -> current.get(), ticker, clockAt(anchor));
    String key = freshKey();
    List<WindowModel> models = fresh(limitsOf(current.get(), defaults), anchor);
    boolean pending = false;
    long now = 0;
    long longest =
        shapes.stream().mapToLong(l -> l.isCalendar() ? 0 : l.windowNanos()).max().orElse(tick);
    for (int i = 0; i < 250; i++) {
      long gap = gap(random, tick, longest);
      now += gap;
      ticker.advance(gap);
      int op = random.nextInt(100);
      String where = "seed " + seed + ", step " + i + " (t=" + now + "), plan " + current.get();
      if (op < 8) {
        current.set(pick(random, plans));
        limiter.refreshPlans();
        pending = true;
        continue;
      }
      List<Limit> limits = limitsOf(current.get(), defaults);
      if (pending) {
        models = carry(models, limits, now, anchor);
        pending = false;
      }
      if (op < 14) {
        Quota quota = limiter.peek(key);
        assertThat(quota.plan())
            .as(where)
            .isEqualTo(java.util.Optional.ofNullable(current.get()).map(Plan::name));
        for (int l = 0; l < limits.size(); l++) {
          Quota.Usage usage = quota.limits().get(l);
          assertThat(usage.limit()).as(where).isEqualTo(limits.get(l));
          assertThat(usage.used())
              .as("counts at least what the rule keeps, " + where)
              .isGreaterThanOrEqualTo(models.get(l).counted(now));
        }
      } else if (op < 19) {
        long back = 1L + random.nextInt(5);
        limiter.refund(key, Math.min(back, largest(limits)));
        models.forEach(m -> m.removeNewest(Math.min(back, largest(limits))));
      } else if (op < 21) {
        limiter.reset(key);
        models.forEach(WindowModel::clear);
      } else {
        long smallest = limits.stream().mapToLong(Limit::permits).min().orElseThrow();
        long permits = random.nextInt(4) == 0 ? 1 + (long) (random.nextDouble() * smallest) : 1;
        boolean allowed =
            random.nextBoolean()
                ? limiter.tryAcquire(key, permits)
                : limiter.decide(key, permits).allowed();
        if (allowed) {
          for (WindowModel model : models) {
            model.record(now, permits);
            assertThat(model.counted(now))
                .as("what the window holds at a grant, %s, %s", model, where)
                .isLessThanOrEqualTo(model.limit().permits());
          }
        }
      }
    }
  }

  @Test
  void planMove_sameWindows_keepsTheCountsAndAppliesTheNewPermits() {
    Plan free = Plan.of("free", Limit.of(5, Duration.ofSeconds(10)));
    Plan pro = Plan.of("pro", Limit.of(20, Duration.ofSeconds(10)));
    AtomicReference<Plan> plan = new AtomicReference<>(free);
    FakeTicker ticker = new FakeTicker();
    KeyedRateLimiter<String> limiter =
        newLimiter(
            List.of(Limit.of(2, Duration.ofSeconds(10))),
            key -> plan.get(),
            ticker,
            Clock.systemUTC());
    String key = freshKey();
    assertThat(grants(limiter, key, 8)).as("free").isEqualTo(5);
    assertThat(limiter.planOf(key)).as("the plan that decided").isEqualTo(free);
    plan.set(pro);
    limiter.refreshPlans();
    assertThat(limiter.peek(key).plan()).contains("pro");
    assertThat(limiter.planOf(key)).isEqualTo(pro);
    assertThat(grants(limiter, key, 20)).as("pro, after the five kept").isEqualTo(15);
    plan.set(free);
    limiter.refreshPlans();
    assertThat(grants(limiter, key, 3)).as("free again: twenty counted").isZero();
    assertThat(limiter.peek(key).limits().get(0).remaining()).isZero();
    ticker.advance(Duration.ofSeconds(11));
    assertThat(grants(limiter, key, 8)).as("free, once they left").isEqualTo(5);
    String other = freshKey();
    plan.set(null);
    limiter.refreshPlans();
    assertThat(limiter.peek(other).plan()).as("no plan: the default limits").isEmpty();
    assertThat(limiter.planOf(other)).isNull();
    assertThat(grants(limiter, other, 4)).isEqualTo(2);
  }

  /**
   * A key's limit lowered below what its window holds, then raised again, within one window: the
   * window keeps every permit it holds through both changes, so the raise grants only what the
   * raised limit leaves, and lowering and raising again and again never lets more through.
   */
  @Test
  void planMove_lowerThenRaise_grantsNoPermitTwice() {
    Plan five = Plan.of("five", Limit.of(5, Duration.ofSeconds(10)));
    Plan one = Plan.of("one", Limit.of(1, Duration.ofSeconds(10)));
    AtomicReference<Plan> plan = new AtomicReference<>(five);
    FakeTicker ticker = new FakeTicker();
    KeyedRateLimiter<String> limiter =
        newLimiter(five.limits(), key -> plan.get(), ticker, Clock.systemUTC());
    String key = freshKey();
    int granted = grants(limiter, key, 3);
    for (int round = 0; round < 4; round++) {
      ticker.advance(Duration.ofMillis(100));
      plan.set(one);
      limiter.refreshPlans();
      assertThat(grants(limiter, key, 2)).as("one per 10 s, round %d", round).isZero();
      assertThat(limiter.peek(key).limits().get(0).used())
          .as("every permit kept under the lower limit, round %d", round)
          .isEqualTo(granted);
      plan.set(five);
      limiter.refreshPlans();
      granted += grants(limiter, key, 5);
      assertThat(granted).as("five per 10 s again, round %d", round).isEqualTo(5);
    }
    ticker.advance(Duration.ofSeconds(10));
    assertThat(grants(limiter, key, 8)).as("once they all left").isEqualTo(5);
  }

  /**
   * A request for more permits than the smallest limit of its key's plan is refused, uncounted,
   * however it is asked, and never thrown: what a key may ask depends on its plan, and a caller
   * that took the exception for an invalid key could count the request elsewhere. A key on the
   * default limits may ask up to them, and beyond them is refused too.
   */
  @Test
  void oversizedRequest_forTheKeysPlan_isRefusedUncountedNotThrown() {
    Limit three = Limit.of(3, Duration.ofSeconds(10));
    Plan small = Plan.of("small", three, Limit.of(50, Duration.ofMinutes(1)));
    String key = freshKey();
    KeyedRateLimiter<String> limiter =
        newLimiter(
            List.of(Limit.of(10, Duration.ofSeconds(10))),
            k -> k.equals(key) ? small : null,
            new FakeTicker(),
            Clock.systemUTC());
    assertThat(limiter.tryAcquire(key, 4)).isFalse();
    for (Decision refused :
        List.of(
            limiter.decide(key, 4),
            limiter.decideAsync(key, 4).toCompletableFuture().join(),
            limiter.reserve(key, 4).decision())) {
      assertThat(refused.allowed()).isFalse();
      assertThat(refused.limit()).isEqualTo(three);
      assertThat(refused.remaining()).isZero();
      assertThat(refused.retryAfter()).isEqualTo(three.window());
    }
    Reservation reserved = limiter.reserveAsync(key, null, 4).toCompletableFuture().join();
    assertThat(reserved.decision().allowed()).isFalse();
    assertThat(reserved.isRefundable()).isFalse();
    assertThat(limiter.peek(key).limits().get(0).used()).as("nothing counted").isZero();
    assertThat(grants(limiter, key, 5)).isEqualTo(3);
    assertThat(limiter.tryAcquire(freshKey(), 10)).as("the default limits").isTrue();
    assertThat(limiter.decide(freshKey(), 11).allowed()).as("beyond the defaults").isFalse();
  }

  /**
   * A plan that adds a window: in process, the new window starts with the old longest window's
   * permits that it counts; on Redis it starts empty.
   */
  @Test
  void planMove_addsAWindow_seededFromTheOldWindowOrEmpty() {
    Plan plain = Plan.of("plain", Limit.of(10, Duration.ofSeconds(10)));
    Plan bursty =
        Plan.of("bursty", Limit.of(10, Duration.ofSeconds(10)), Limit.of(3, Duration.ofSeconds(1)));
    AtomicReference<Plan> plan = new AtomicReference<>(plain);
    FakeTicker ticker = new FakeTicker();
    KeyedRateLimiter<String> limiter =
        newLimiter(plain.limits(), key -> plan.get(), ticker, Clock.systemUTC());
    String key = freshKey();
    assertThat(grants(limiter, key, 2)).isEqualTo(2);
    plan.set(bursty);
    limiter.refreshPlans();
    assertThat(grants(limiter, key, 5))
        .as("the new 3 per second after two grants in the same second")
        .isEqualTo(seedsNewWindows() ? 1 : 3);
  }

  private static int grants(KeyedRateLimiter<String> limiter, String key, int attempts) {
    int granted = 0;
    for (int i = 0; i < attempts; i++) {
      if (limiter.tryAcquire(key, 1)) {
        granted++;
      }
    }
    return granted;
  }

  private static List<Limit> randomLimits(Random random, List<Limit> shapes) {
    List<Limit> limits = new ArrayList<>();
    for (Limit shape : shapes) {
      if (limits.isEmpty() || random.nextInt(3) == 0) {
        long permits = 1L + random.nextInt(random.nextBoolean() ? 10 : 60);
        limits.add(
            shape.isCalendar()
                ? Limit.calendar(
                    permits,
                    shape.calendarPeriod().orElseThrow(),
                    shape.calendarZone().orElseThrow())
                : Limit.of(permits, shape.window()).withPrecision(shape.precision()));
      }
    }
    java.util.Collections.shuffle(limits, random);
    return limits;
  }

  private static Plan pick(Random random, List<Plan> plans) {
    int i = random.nextInt(plans.size() + 1);
    return i == plans.size() ? null : plans.get(i);
  }

  private static List<Limit> limitsOf(Plan plan, List<Limit> defaults) {
    return plan == null ? defaults : plan.limits();
  }

  private static List<WindowModel> fresh(List<Limit> limits, long anchor) {
    List<WindowModel> models = new ArrayList<>();
    for (Limit limit : limits) {
      models.add(new WindowModel(limit, anchor));
    }
    return models;
  }

  /** The models of {@code next} at a change at time {@code c}, by the backend's rule. */
  private List<WindowModel> carry(List<WindowModel> old, List<Limit> next, long c, long anchor) {
    List<WindowModel> carried = new ArrayList<>();
    for (Limit limit : next) {
      WindowModel source = null;
      WindowModel longest = null;
      for (WindowModel model : old) {
        if (model.limit().sameWindow(limit)) {
          source = model;
          break;
        }
        if (!model.limit().isCalendar()
            && (longest == null || model.limit().windowNanos() > longest.limit().windowNanos())) {
          longest = model;
        }
      }
      if (source == null && seedsNewWindows()) {
        source = longest;
      }
      carried.add(source == null ? new WindowModel(limit, anchor) : source.carry(limit, c));
    }
    return carried;
  }

  static long largest(List<Limit> limits) {
    return limits.stream().mapToLong(Limit::permits).max().orElseThrow();
  }

  private static long gap(Random random, long tick, long longestWindow) {
    return switch (random.nextInt(6)) {
      case 0, 1 -> 0;
      case 2 -> tick * (1 + random.nextInt(3));
      case 3 -> Math.max(0, longestWindow + (random.nextInt(3) - 1) * tick);
      default -> tick * (long) (random.nextDouble() * (2 * longestWindow / tick + 1));
    };
  }

  /**
   * An epoch time up to {@code before} ahead of the first boundary of {@code period} at or after
   * the start of {@code day} in {@code zone}, found by the oracle; a whole number of ticks before
   * it, so that the boundary falls on a tick of the limiter's clock.
   */
  long anchorNear(Random random, ZoneId zone, LocalDate day, CalendarPeriod period, long before) {
    CalendarLogOracle oracle = new CalendarLogOracle(Limit.calendar(1, period, zone));
    long dayStart = new CalendarLogOracle(Limit.calendar(1, CalendarPeriod.DAY, zone)).startOf(day);
    long boundary = oracle.endOf(dayStart - 1);
    long tick = tickNanos();
    return boundary - ((long) (random.nextDouble() * Math.floorDiv(before, tick))) * tick;
  }

  static Clock clockAt(long epochNanos) {
    return Clock.fixed(Instant.ofEpochSecond(0, epochNanos), ZoneOffset.UTC);
  }
}
