package io.slidingwindow.server.settings;

import java.util.Arrays;

/**
 * A password or token: never part of a message, a log line or {@link #toString()}. Immutable; the
 * characters are copied in and out.
 */
public final class Secret {

  private final char[] chars;

  private Secret(char[] chars) {
    this.chars = chars;
  }

  /**
   * A secret of {@code chars} (copied), or null if {@code chars} is null.
   *
   * @throws IllegalArgumentException naming {@code what} if {@code chars} is empty
   */
  public static Secret of(char[] chars, String what) {
    if (chars == null) {
      return null;
    }
    if (chars.length == 0) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
    return new Secret(chars.clone());
  }

  /** A copy of the characters. */
  public char[] chars() {
    return chars.clone();
  }

  /**
   * Whether {@code candidate} holds the same characters, compared in time independent of where they
   * differ.
   */
  public boolean matches(char[] candidate) {
    if (candidate == null) {
      return false;
    }
    int diff = candidate.length ^ chars.length;
    for (int i = 0; i < candidate.length; i++) {
      diff |= candidate[i] ^ chars[i % chars.length];
    }
    return diff == 0;
  }

  @Override
  public String toString() {
    return "(secret)";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Secret other && Arrays.equals(chars, other.chars);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(chars);
  }
}
