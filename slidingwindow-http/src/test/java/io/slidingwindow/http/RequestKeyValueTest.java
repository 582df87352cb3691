package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.KeyRejectedException;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.FakeTicker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link RequestKey#ofValue(Object)}: a value's key by its content, never by its identity. */
class RequestKeyValueTest {

  /** A class without a toString of its own: its text names the instance. */
  static final class Customer {
    final String id;

    Customer(String id) {
      this.id = id;
    }
  }

  /** A class that prints its content. */
  static final class Tenant {
    final String id;

    Tenant(String id) {
      this.id = id;
    }

    @Override
    public String toString() {
      return "tenant " + id;
    }
  }

  record Query(String text, String[] tags) {}

  record Point(int x, int y) {}

  record Holder(Object value) {}

  /** A record that prints one component only, as its author chose. */
  record Session(String user, long startedNanos) {
    @Override
    public String toString() {
      return user;
    }
  }

  @Test
  void ofValue_textNumbersBooleansCharactersEnums_areCustomKeysOfTheirText() {
    assertThat(RequestKey.ofValue("alice")).isEqualTo(RequestKey.custom("alice"));
    assertThat(RequestKey.ofValue("a:b").value()).isEqualTo("custom:a%3Ab");
    assertThat(RequestKey.ofValue(42).value()).isEqualTo("custom:42");
    assertThat(RequestKey.ofValue(42L)).isEqualTo(RequestKey.ofValue(42));
    assertThat(RequestKey.ofValue(true).value()).isEqualTo("custom:true");
    assertThat(RequestKey.ofValue('x').value()).isEqualTo("custom:x");
    assertThat(RequestKey.ofValue(TimeUnit.SECONDS).value()).isEqualTo("custom:SECONDS");
    assertThat(RequestKey.ofValue(new Tenant("t1")).value()).isEqualTo("custom:tenant t1");
    assertThat(RequestKey.ofValue(new StringBuilder("sb")).value()).isEqualTo("custom:sb");
  }

  @Test
  void ofValue_requestKey_isItself() {
    RequestKey address = RequestKey.address("192.0.2.1", 64);
    assertThat(RequestKey.ofValue(address)).isSameAs(address);
    assertThat(RequestKey.ofValue(new Object[] {address, "a"}).value())
        .isEqualTo("(ip:192.0.2.1|custom:a)");
  }

  @Test
  void ofValue_equalArrays_equalKeys_differentArrays_differentKeys() {
    String[] tags = {"red", "blue"};
    RequestKey key = RequestKey.ofValue(tags);
    assertThat(key.value()).isEqualTo("(custom:red|custom:blue)");
    assertThat(key.value()).doesNotContain("@");
    assertThat(RequestKey.ofValue(new String[] {"red", "blue"})).isEqualTo(key);
    assertThat(RequestKey.ofValue(tags.clone())).isEqualTo(key);
    assertThat(RequestKey.ofValue(new String[] {"blue", "red"})).isNotEqualTo(key);
    assertThat(RequestKey.ofValue(new String[] {"red"})).isNotEqualTo(key);
    assertThat(RequestKey.ofValue(new String[] {"red|custom:blue"})).isNotEqualTo(key);
    assertThat(RequestKey.ofValue(new String[] {"red, blue"})).isNotEqualTo(key);
    assertThat(RequestKey.ofValue(new String[0]).value()).isEqualTo("()");
    assertThat(RequestKey.ofValue(new String[] {null}).value()).isEqualTo("(null)");
    assertThat(RequestKey.ofValue(new String[] {"null"}))
        .isNotEqualTo(RequestKey.ofValue(new String[] {null}));
    // An array is never the custom key of a text that spells it.
    assertThat(RequestKey.ofValue("(custom:red|custom:blue)")).isNotEqualTo(key);
  }

  @Test
  void ofValue_primitiveArrays_byTheirElements() {
    assertThat(RequestKey.ofValue(new byte[] {1, -2, 3}).value())
        .isEqualTo("(custom:1|custom:-2|custom:3)");
    assertThat(RequestKey.ofValue(new byte[] {1, -2, 3}))
        .isEqualTo(RequestKey.ofValue(new byte[] {1, -2, 3}))
        .isNotEqualTo(RequestKey.ofValue(new byte[] {1, 2, 3}));
    assertThat(RequestKey.ofValue(new char[] {'h', 'i'}))
        .isEqualTo(RequestKey.ofValue(new char[] {'h', 'i'}));
    assertThat(RequestKey.ofValue(new long[] {7})).isEqualTo(RequestKey.ofValue(new long[] {7}));
    assertThat(RequestKey.ofValue(new boolean[] {true}).value()).isEqualTo("(custom:true)");
  }

  @Test
  void ofValue_nestedArrays_byTheirElementsAtEveryDepth() {
    int[][] grid = {{1, 2}, {3}};
    assertThat(RequestKey.ofValue(grid).value()).isEqualTo("((custom:1|custom:2)|(custom:3))");
    assertThat(RequestKey.ofValue(new int[][] {{1, 2}, {3}})).isEqualTo(RequestKey.ofValue(grid));
    // The same elements grouped otherwise are another key.
    assertThat(RequestKey.ofValue(new int[][] {{1}, {2, 3}}))
        .isNotEqualTo(RequestKey.ofValue(grid));
    assertThat(RequestKey.ofValue(new Object[] {new String[] {"a"}, new byte[] {1}}))
        .isEqualTo(RequestKey.ofValue(new Object[] {new String[] {"a"}, new byte[] {1}}));
  }

  @Test
  void ofValue_randomArrays_equalOnlyForEqualContents() {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    Map<String, String> seen = new HashMap<>();
    for (int i = 0; i < 5_000; i++) {
      String[][] value = new String[random.nextInt(3)][];
      for (int row = 0; row < value.length; row++) {
        value[row] = new String[random.nextInt(3)];
        for (int col = 0; col < value[row].length; col++) {
          value[row][col] =
              random.nextInt(6) == 0
                  ? null
                  : List.of("a", "b", "null", "|", ",", "()", "a|b").get(random.nextInt(7));
        }
      }
      String content = spelled(value);
      String before = seen.putIfAbsent(RequestKey.ofValue(value).value(), content);
      assertThat(before == null || before.equals(content))
          .as("seed %d: %s and %s", seed, before, content)
          .isTrue();
      assertThat(RequestKey.ofValue(deepCopy(value))).isEqualTo(RequestKey.ofValue(value));
    }
  }

  /** {@code value} written so that different arrays are always written differently. */
  private static String spelled(String[][] value) {
    StringBuilder b = new StringBuilder().append(value.length);
    for (String[] row : value) {
      b.append('/').append(row.length);
      for (String element : row) {
        b.append(element == null ? ",N" : ",S" + element.length() + ":" + element);
      }
    }
    return b.toString();
  }

  private static String[][] deepCopy(String[][] value) {
    String[][] copy = new String[value.length][];
    for (int i = 0; i < value.length; i++) {
      copy[i] = value[i].clone();
    }
    return copy;
  }

  @Test
  void ofValue_recordWithAnArrayComponent_byItsComponents() {
    Query query = new Query("shoes", new String[] {"red", "blue"});
    RequestKey key = RequestKey.ofValue(query);
    assertThat(query.toString()).contains("[Ljava.lang.String;@");
    assertThat(key.value()).isEqualTo("(custom:shoes|(custom:red|custom:blue))");
    assertThat(RequestKey.ofValue(new Query("shoes", new String[] {"red", "blue"}))).isEqualTo(key);
    assertThat(RequestKey.ofValue(new Query("shoes", new String[] {"red"}))).isNotEqualTo(key);
    assertThat(RequestKey.ofValue(new Query("shoes", null)).value())
        .isEqualTo("(custom:shoes|null)");
    assertThat(RequestKey.ofValue(new Point(1, 2))).isEqualTo(RequestKey.ofValue(new Point(1, 2)));
    assertThat(RequestKey.ofValue(new Point(1, 2)))
        .isNotEqualTo(RequestKey.ofValue(new Point(2, 1)));
  }

  @Test
  void ofValue_recordWithItsOwnToString_isKeyedByThatText() {
    assertThat(RequestKey.ofValue(new Session("alice", 1)).value()).isEqualTo("custom:alice");
    assertThat(RequestKey.ofValue(new Session("alice", 2)))
        .isEqualTo(RequestKey.ofValue(new Session("alice", 1)));
  }

  @Test
  void ofValue_collectionsMapsAndOptionals_byTheirElements() {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"a"});
    assertThat(RequestKey.ofValue(rows).value()).isEqualTo("((custom:a))");
    assertThat(RequestKey.ofValue(List.of((Object) new String[] {"a"})))
        .isEqualTo(RequestKey.ofValue(rows));
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("k", new int[] {1});
    assertThat(RequestKey.ofValue(map).value()).isEqualTo("((custom:k|(custom:1)))");
    assertThat(RequestKey.ofValue(Optional.of(new int[] {1})).value()).isEqualTo("((custom:1))");
    assertThat(RequestKey.ofValue(Optional.empty()).value()).isEqualTo("()");
  }

  @Test
  void ofValue_identityToString_rejectedNamingTheClassAndTheWayOut() {
    for (Object value :
        List.of(
            new Customer("c1"),
            new Object[] {"a", new Customer("c1")},
            new Holder(new Customer("c1")),
            List.of(new Customer("c1")))) {
      assertThatThrownBy(() -> RequestKey.ofValue(value))
          .as("%s", value)
          .isInstanceOf(KeyRejectedException.class)
          .hasMessageContaining(Customer.class.getName())
          .hasMessageContaining("toString is Object's")
          .hasMessageContaining(
              "key on one of its fields, or give Customer a toString of its content");
    }
    assertThatThrownBy(() -> RequestKey.of("a", new Customer("c1")))
        .isInstanceOf(KeyRejectedException.class);
    Runnable lambda = () -> {};
    assertThatThrownBy(() -> RequestKey.ofValue(lambda)).isInstanceOf(KeyRejectedException.class);
  }

  @Test
  void ofValue_nullOrAValueHoldingItself_throws() {
    assertThatThrownBy(() -> RequestKey.ofValue(null))
        .isInstanceOf(IllegalArgumentException.class)
        .isNotInstanceOf(KeyRejectedException.class)
        .hasMessage("value must not be null");
    Object[] loop = new Object[1];
    loop[0] = loop;
    assertThatThrownBy(() -> RequestKey.ofValue(loop))
        .isInstanceOf(KeyRejectedException.class)
        .hasMessageContaining("nest at most 32 deep");
  }

  @Test
  void of_arrayPart_byItsElements() {
    RequestKey ip = RequestKey.address("192.0.2.1", 64);
    assertThat(RequestKey.of(new int[] {1, 2}, ip).value())
        .isEqualTo("((custom:1|custom:2)|ip:192.0.2.1)");
    assertThat(RequestKey.of(new int[] {1, 2}, ip)).isEqualTo(RequestKey.of(new int[] {1, 2}, ip));
  }

  /**
   * Java spreads an {@code Object[]} into the parts but passes a list or an {@code int[]} as one
   * part, so a lone collection or array would be keyed unlike its spread values: it is refused, and
   * every input still accepted keeps its key.
   */
  @Test
  void of_loneCollectionOrArray_isRefusedAndTheAcceptedFormsKeepTheirKeys() {
    for (Object lone :
        new Object[] {List.of("a", "b"), new int[] {1, 2}, new String[] {"a", "b"}, List.of()}) {
      assertThatThrownBy(() -> RequestKey.of(lone))
          .isInstanceOf(IllegalArgumentException.class)
          .isNotInstanceOf(KeyRejectedException.class)
          .hasMessageContaining("lone collection or array")
          .hasMessageContaining("ofValue");
    }
    assertThatThrownBy(() -> RequestKey.of((Object) null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("part must not be null");
    // The values spread, by hand or by Java from an Object[], and ofValue of the collection agree.
    assertThat(RequestKey.of("a", "b").value()).isEqualTo("(custom:a|custom:b)");
    assertThat(RequestKey.of((Object[]) new String[] {"a", "b"}))
        .isEqualTo(RequestKey.of("a", "b"));
    assertThat(RequestKey.ofValue(List.of("a", "b"))).isEqualTo(RequestKey.of("a", "b"));
    assertThat(RequestKey.ofValue(new int[] {1, 2})).isEqualTo(RequestKey.of(1, 2));
    // Beside other parts, a collection is one part, as before; so is a lone map, optional or key.
    RequestKey ip = RequestKey.address("192.0.2.1", 64);
    assertThat(RequestKey.of(List.of("a", "b"), ip).value())
        .isEqualTo("((custom:a|custom:b)|ip:192.0.2.1)");
    assertThat(RequestKey.of("a").value()).isEqualTo("(custom:a)");
    assertThat(RequestKey.of(ip).value()).isEqualTo("(ip:192.0.2.1)");
    assertThat(RequestKey.of(Optional.of("a")).value()).isEqualTo("((custom:a))");
  }

  /**
   * A key function that makes a key of a value with {@code Object}'s {@code toString} throws, and
   * the request counts under its client's address: two requests of one client with two such values
   * share one limit.
   */
  @Test
  void ofValue_rejectedInAKeyFunction_countsTheRequestUnderItsClient() {
    List<String> errors = new ArrayList<>();
    EnforcementCore<Customer> core =
        EnforcementCore.<Customer>builder()
            .limiterFactory(RateLimiterFactory.inMemory(new FakeTicker(), 100, 100))
            .clientKey(c -> RequestKey.address("192.0.2.1", 64))
            .listener(
                new RateLimitListener() {
                  @Override
                  public void onError(HttpRule rule, RuntimeException error) {
                    errors.add(error.getClass().getSimpleName());
                  }
                })
            .rule(
                HttpRule.builder("r").path("/**").limit(Limit.parse("1/1h")).build(),
                RequestKey::ofValue)
            .build();

    assertThat(enforce(core, new Customer("c1")).allowed()).isTrue();
    assertThat(enforce(core, new Customer("c2")).allowed()).isFalse();
    assertThat(errors).containsExactly("KeyRejectedException", "KeyRejectedException");
  }

  private static EnforcementCore.Outcome enforce(EnforcementCore<Customer> core, Customer c) {
    return core.enforce(c, "GET", List.of("/a"), QuotaHeaders::new);
  }
}
