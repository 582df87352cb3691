package io.slidingwindow.examples;

import io.slidingwindow.webflux.internal.ReactiveKeySource;
import java.util.List;
import java.util.function.Supplier;

/**
 * What {@link InternalAccessTest}'s signature rule forbids: a public type whose public constructor
 * shows an internal type, here only as a type argument.
 */
public final class LeakingApi {

  /** Takes what no application should have to name. */
  public LeakingApi(Supplier<List<ReactiveKeySource>> sources) {}
}
