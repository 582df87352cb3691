package io.slidingwindow.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KeyTableTest {

  /** Adds the argument to a key's window of 4 buckets of 10 ns; minus it when the table is full. */
  private static final KeyTable.Action<CounterRuns, Void> ADD =
      new KeyTable.Action<>() {
        @Override
        public long apply(CounterRuns state, long now, long amount, Void unused) {
          return state.add(now, amount);
        }

        @Override
        public long whenFull(long amount, Void unused) {
          return -amount;
        }
      };

  /** The same as {@link #ADD}, telling its answer as text in the call's context. */
  private static final KeyTable.Action<CounterRuns, StringBuilder> ADD_AS_TEXT =
      new KeyTable.Action<>() {
        @Override
        public long apply(CounterRuns state, long now, long amount, StringBuilder text) {
          long sum = state.add(now, amount);
          text.append("sum ").append(sum);
          return sum;
        }

        @Override
        public long whenFull(long amount, StringBuilder text) {
          text.append("full");
          return -amount;
        }
      };

  private static String asText(KeyTable<String, CounterRuns> t, String key, long now, long amount) {
    StringBuilder text = new StringBuilder();
    t.apply(key, now, amount, text, ADD_AS_TEXT);
    return text.toString();
  }

  private static KeyTable<String, CounterRuns> table(int maxKeys) {
    return new KeyTable<>(maxKeys, start -> new CounterRuns(4, 10, start));
  }

  @Test
  void apply_keysWithRoom_trackedAndUpdated() {
    KeyTable<String, CounterRuns> t = table(2);
    assertThat(t.apply("a", 0, 5, null, ADD)).isEqualTo(5);
    assertThat(t.apply("a", 1, 6, null, ADD)).isEqualTo(11);
    assertThat(t.apply("b", 2, 1, null, ADD)).isEqualTo(1);
    assertThat(t.size()).isEqualTo(2);
    assertThat(t).hasToString("tracking 2 of at most 2 keys");
  }

  @Test
  void apply_fullTableOfNonEmptyKeys_answersWhenFullAndTracksNothing() {
    KeyTable<String, CounterRuns> t = table(1);
    assertThat(asText(t, "a", 0, 3)).isEqualTo("sum 3");
    assertThat(asText(t, "b", 1, 3)).isEqualTo("full");
    assertThat(t.apply("b", 1, 7, null, ADD)).isEqualTo(-7);
    assertThat(t.readIfTracked("b", 1, CounterRuns::sum, 99)).isEqualTo(99);
    assertThat(t.size()).isEqualTo(1);
  }

  @Test
  void apply_fullTableWithAnEmptyKey_evictsItToMakeRoom() {
    KeyTable<String, CounterRuns> t = table(1);
    t.apply("a", 0, 3, null, ADD);
    assertThat(t.apply("b", 40, 2, null, ADD)).isEqualTo(2); // a's buckets have left by 40 ns
    assertThat(t.readIfTracked("a", 40, CounterRuns::sum, -1)).isEqualTo(-1);
    assertThat(t.readIfTracked("b", 40, CounterRuns::sum, -1)).isEqualTo(2);
    assertThat(t.size()).isEqualTo(1);
  }

  @Test
  void readIfTracked_untrackedKey_answersUntrackedAndTracksNothing() {
    KeyTable<String, CounterRuns> t = table(4);
    assertThat(t.readIfTracked("a", 0, CounterRuns::count, -1)).isEqualTo(-1);
    assertThat(t.size()).isZero();
  }

  @Test
  void cleanUp_emptyKeys_evicted() {
    KeyTable<String, CounterRuns> t = table(4);
    t.apply("a", 0, 1, null, ADD);
    t.apply("b", 30, 1, null, ADD);
    t.cleanUp(40);
    assertThat(t.size()).isEqualTo(1);
    assertThat(t.readIfTracked("b", 40, CounterRuns::count, -1)).isEqualTo(1);
  }

  /** A table whose groups hold at most {@code maxKeysPerGroup} keys each. */
  private static KeyTable<String, CounterRuns> table(int maxKeys, int maxKeysPerGroup) {
    return new KeyTable<>(maxKeys, maxKeysPerGroup, start -> new CounterRuns(4, 10, start));
  }

  @Test
  void sizeOfAndMaxKeys_countTheGroupsKeysButNotTheGroupItself() {
    KeyTable<String, CounterRuns> t = table(10, 3);
    assertThat(t.maxKeys()).isEqualTo(10);
    assertThat(t.sizeOf("g")).as("a group never seen").isZero();
    t.apply("a", "g", 0, 1, null, ADD);
    t.apply("b", "g", 0, 1, null, ADD);
    t.apply("g", "g", 0, 1, null, ADD);
    t.apply("c", null, 0, 1, null, ADD);
    assertThat(t.sizeOf("g")).isEqualTo(2);
    assertThat(t.size()).isEqualTo(4);
  }

  @Test
  void keyRefusedForAFullTable_releasesItsGroupsPlace() {
    KeyTable<String, CounterRuns> t = table(2, 1);
    assertThat(t.apply("x", "other", 0, 1, null, ADD)).isEqualTo(1);
    assertThat(t.apply("y", "another", 0, 1, null, ADD)).isEqualTo(1);

    assertThat(t.apply("k1", "g", 1, 1, null, ADD)).as("the table is full").isEqualTo(-1);
    assertThat(t.sizeOf("g")).isZero();

    // x and y are empty from 40 ns on: k2 finds room, and g's one place is still free for it.
    assertThat(t.apply("k2", "g", 40, 1, null, ADD)).isEqualTo(1);
    assertThat(t.sizeOf("g")).isEqualTo(1);
  }

  @Test
  void oneOfAGroupsKeysEvicted_releasesOnePlaceOnly() {
    KeyTable<String, CounterRuns> t = table(100, 2);
    t.apply("a", "g", 0, 1, null, ADD); // empty from 40 ns
    t.apply("b", "g", 30, 1, null, ADD); // empty from 70 ns

    t.cleanUp(45);

    assertThat(t.sizeOf("g")).isEqualTo(1);
    assertThat(t.apply("c", "g", 45, 1, null, ADD)).as("a's place").isEqualTo(1);
    assertThat(t.apply("d", "g", 45, 1, null, ADD)).as("b and c hold both places").isEqualTo(-1);
    assertThat(t.sizeOf("g")).isEqualTo(2);
  }

  @Test
  void groupBoundAtLeastTheTables_groupsNotCounted() {
    KeyTable<String, CounterRuns> t = table(3, 3);
    t.apply("a", "g", 0, 1, null, ADD);
    t.apply("b", "g", 0, 1, null, ADD);
    t.apply("c", "g", 0, 1, null, ADD);
    assertThat(t.sizeOf("g")).as("no count kept: the table's bound is the only one").isZero();
    assertThat(t.apply("d", "g", 0, 1, null, ADD)).isEqualTo(-1);
  }
}
