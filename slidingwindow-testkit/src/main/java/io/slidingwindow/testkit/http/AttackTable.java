package io.slidingwindow.testkit.http;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;

/**
 * The one table of attacks that every way in must hold against: path spellings, key rotation, long
 * keys, forwarded-header spoofing, and keys that throw or are null. Each attack is a real client on
 * real sockets (many clients, each from a loopback address of its own), against a real server that
 * a test module starts with the {@link WayIn} contract.
 *
 * <p>A module joins with one line per way in, in a {@code @TestFactory}:
 *
 * <pre>{@code
 * @TestFactory
 * Stream<DynamicNode> attackTable() {
 *   return AttackTable.against(
 *       WayIn.named("servlet filter on Tomcat", ServletWays::tomcat),
 *       WayIn.named("servlet filter on Jetty", ServletWays::jetty));
 * }
 * }</pre>
 *
 * <p>A way in that does not speak HTTP joins with a {@link Transport} of its own ({@link
 * WayIn#named(String, Transport, java.util.function.Supplier)}), which carries each request of the
 * table as a call of its protocol; an attack its protocol cannot carry (other request methods, on a
 * protocol that has one) is listed as not applicable, with the reason.
 *
 * <p>Each way in is started before its first attack and closed after its last; every attack uses
 * clients no other attack uses, so their order does not matter.
 */
public final class AttackTable {

  /** The permits of every limited path, in any hour. */
  public static final int PERMITS = 3;

  /** The limit of every limited path as text, for {@code Limit.parse} and {@code @RateLimit}. */
  public static final String LIMIT = PERMITS + "/1h";

  /** Below this path, keyed on an issued API key, else the client address. */
  public static final String LIMITED = "/limited";

  /** Below this path, keyed on the API key header as sent. */
  public static final String RAW = "/raw";

  /** Below this path, keyed by a key source that throws or gives no key when asked to. */
  public static final String FAULTY = "/faulty";

  /** What the body of every granted request holds. */
  public static final String MARKER = "reached-the-handler";

  /** The API key header. */
  public static final String API_KEY = "X-Api-Key";

  /** The one API key the application issued. */
  public static final String ISSUED_KEY = "issued-key-1";

  /**
   * The header that makes the faulty key source throw ({@code throw}) or give no key ({@code
   * null}).
   */
  public static final String FAULT = "X-Key-Fault";

  /** The header the faulty key source keys on otherwise. */
  public static final String TENANT = "X-Tenant";

  /** The only peer whose {@code X-Forwarded-For} is believed. */
  public static final String TRUSTED_PROXY = "127.0.0.1";

  private AttackTable() {}

  /**
   * The text of the key the faulty key source gives for a request whose header values {@code
   * headers} reads (null for a missing header): it throws if {@value #FAULT} says {@code throw},
   * gives null if it says {@code null}, and otherwise the {@value #TENANT} header, or {@code none}.
   * A way in files the text as an application key.
   *
   * @throws IllegalStateException when asked to
   */
  public static String faultyKey(UnaryOperator<String> headers) {
    String fault = headers.apply(FAULT);
    if ("throw".equals(fault)) {
      throw new IllegalStateException("the key source failed, as asked");
    }
    if ("null".equals(fault)) {
      return null;
    }
    String tenant = headers.apply(TENANT);
    return tenant == null ? "none" : tenant;
  }

  /**
   * One attack: its name and what it checks against a started way in; or, with a {@code
   * notApplicable} reason, an attack that the way in's transport cannot carry, listed as such.
   */
  record Attack(String name, Check check, String notApplicable) {
    Attack(String name, Check check) {
      this(name, check, null);
    }

    /** {@code name}, not applicable to a transport for {@code reason}. */
    static Attack notApplicable(String name, String reason) {
      return new Attack(name + " (not applicable: " + reason + ")", at -> {}, reason);
    }
  }

  /** A started way in: its port, and how the clients reach it. */
  record Endpoint(int port, Transport transport) {}

  /** What an attack checks. */
  @FunctionalInterface
  interface Check {
    void run(Endpoint at) throws Exception;
  }

  /** Every attack of the table over {@code transport}, in the order they run. */
  static List<Attack> attacks(Transport transport) {
    List<Attack> all = new ArrayList<>();
    all.addAll(KeyAttacks.all());
    all.addAll(PathAttacks.all(transport));
    return List.copyOf(all);
  }

  /**
   * The table against each of {@code waysIn}: a container per way in, a test per attack. A way in
   * that fails to start fails every attack, naming it. An attack that a way in's transport cannot
   * carry is listed with the reason in its name and reported as aborted, never left out.
   */
  public static Stream<DynamicNode> against(WayIn.Named... waysIn) {
    return Stream.of(waysIn).map(AttackTable::against);
  }

  private static DynamicNode against(WayIn.Named named) {
    Started started = new Started(named);
    Transport transport = named.transport();
    Stream<DynamicNode> tests =
        attacks(transport).stream()
            .map(
                attack ->
                    DynamicTest.dynamicTest(
                        attack.name(),
                        () -> {
                          if (attack.notApplicable() != null) {
                            Assumptions.abort(
                                "not applicable to "
                                    + named.name()
                                    + ": "
                                    + attack.notApplicable());
                          }
                          attack.check().run(new Endpoint(started.get().port(), transport));
                        }));
    return DynamicContainer.dynamicContainer(named.name(), tests.onClose(started::close));
  }

  /** A way in, started on first use and closed once. Not thread-safe: tests run one by one. */
  private static final class Started {
    private final WayIn.Named named;
    private WayIn wayIn;
    private RuntimeException failure;

    Started(WayIn.Named named) {
      this.named = named;
    }

    WayIn get() {
      if (failure != null) {
        throw new IllegalStateException(named.name() + " did not start", failure);
      }
      if (wayIn == null) {
        try {
          wayIn = named.start().get();
        } catch (RuntimeException e) {
          failure = e;
          throw new IllegalStateException(named.name() + " did not start", e);
        }
      }
      return wayIn;
    }

    void close() {
      if (wayIn != null) {
        wayIn.close();
        wayIn = null;
      }
    }
  }
}
