package io.slidingwindow.spring.internal;

import io.slidingwindow.http.RequestKey;
import io.slidingwindow.spring.RateLimit;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * What the key expression of {@link RateLimit} on a bean method reads: the root object of its
 * evaluation. Properties: {@code args} (the arguments, in order) and {@code global} (one key for
 * all); method: {@code key(part, ...)} (a tuple, null if a part is null). Variables: each argument
 * by its parameter name (when the class was compiled with {@code -parameters}), as {@code #p0} and
 * {@code #a0} by position, and {@code #args}. One instance per call; not shared between threads.
 */
public final class MethodKeyContext {

  /** The root properties an expression may read. */
  static final Set<String> PROPERTIES = Set.of("args", "global");

  /** The root methods an expression may call. */
  static final Set<String> METHODS = Set.of("key");

  /** The variables every method's expression may read, besides its arguments'. */
  static final Set<String> VARIABLES = Set.of("args", "root", "this");

  private final List<Object> args;

  MethodKeyContext(Object[] args) {
    this.args = Collections.unmodifiableList(Arrays.asList(args));
  }

  /** The call's arguments, in order; unmodifiable, may hold nulls. */
  public List<Object> getArgs() {
    return args;
  }

  /** The one key shared by every call. */
  public RequestKey getGlobal() {
    return RequestKey.global();
  }

  /** The tuple of {@code parts} ({@link RequestKey#of(Object...)}), or null if a part is null. */
  public RequestKey key(Object... parts) {
    for (Object part : parts) {
      if (part == null) {
        return null;
      }
    }
    return RequestKey.of(parts);
  }
}
