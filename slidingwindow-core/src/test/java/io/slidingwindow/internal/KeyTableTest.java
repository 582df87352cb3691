package io.slidingwindow.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KeyTableTest {

  /** Adds the argument to a key's window of 4 buckets of 10 ns; minus it when the table is full. */
  private static final KeyTable.LongAction<CounterRuns> ADD =
      new KeyTable.LongAction<>() {
        @Override
        public long apply(CounterRuns state, long now, long amount) {
          return state.add(now, amount);
        }

        @Override
        public long whenFull(long amount) {
          return -amount;
        }
      };

  /** The same as {@link #ADD}, through the object-valued operation. */
  private static final KeyTable.Action<CounterRuns, String> ADD_AS_TEXT =
      new KeyTable.Action<>() {
        @Override
        public String apply(CounterRuns state, long now, long amount) {
          return "sum " + state.add(now, amount);
        }

        @Override
        public String whenFull(long amount) {
          return "full";
        }
      };

  private static KeyTable<String, CounterRuns> table(int maxKeys) {
    return new KeyTable<>(maxKeys, start -> new CounterRuns(4, 10, start));
  }

  @Test
  void applyAsLong_keysWithRoom_trackedAndUpdated() {
    KeyTable<String, CounterRuns> t = table(2);
    assertThat(t.applyAsLong("a", 0, 5, ADD)).isEqualTo(5);
    assertThat(t.applyAsLong("a", 1, 6, ADD)).isEqualTo(11);
    assertThat(t.applyAsLong("b", 2, 1, ADD)).isEqualTo(1);
    assertThat(t.size()).isEqualTo(2);
    assertThat(t).hasToString("tracking 2 of at most 2 keys");
  }

  @Test
  void apply_fullTableOfNonEmptyKeys_answersWhenFullAndTracksNothing() {
    KeyTable<String, CounterRuns> t = table(1);
    assertThat(t.apply("a", 0, 3, ADD_AS_TEXT)).isEqualTo("sum 3");
    assertThat(t.apply("b", 1, 3, ADD_AS_TEXT)).isEqualTo("full");
    assertThat(t.applyAsLong("b", 1, 7, ADD)).isEqualTo(-7);
    assertThat(t.readIfTracked("b", 1, CounterRuns::sum, 99)).isEqualTo(99);
    assertThat(t.size()).isEqualTo(1);
  }

  @Test
  void apply_fullTableWithAnEmptyKey_evictsItToMakeRoom() {
    KeyTable<String, CounterRuns> t = table(1);
    t.applyAsLong("a", 0, 3, ADD);
    assertThat(t.applyAsLong("b", 40, 2, ADD)).isEqualTo(2); // a's buckets have left by 40 ns
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
    t.applyAsLong("a", 0, 1, ADD);
    t.applyAsLong("b", 30, 1, ADD);
    t.cleanUp(40);
    assertThat(t.size()).isEqualTo(1);
    assertThat(t.readIfTracked("b", 40, CounterRuns::count, -1)).isEqualTo(1);
  }
}
