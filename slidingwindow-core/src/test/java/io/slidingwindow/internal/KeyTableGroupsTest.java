package io.slidingwindow.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The table's group bound: places reserved, released when a key leaves or is refused. */
class KeyTableGroupsTest {

  /** Adds the argument to a key's window of 4 buckets of 10 ns; minus it when there is no room. */
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
