package io.slidingwindow.spring.boot.redis;

/**
 * The key prefix of a rule's Redis limiter: {@code <key prefix>:<rule name>}, with the name's
 * percent signs written as {@code %25} and its opening and closing braces as {@code %7B} and {@code
 * %7D}.
 *
 * <p>A brace in a key would move the Redis Cluster hash tag, so braces cannot stay; escaping the
 * escape character too keeps the mapping injective (decoding each {@code %XX} gives the name back),
 * so two rules with different names never share a key. A name without those three characters keeps
 * the prefix it always had: every name of the filter's rules, of {@code RateLimit} and of gRPC
 * rules (letters, digits, {@code - _ . :}), and most gateway route ids. The id's tag follows the
 * prefix after a colon and an opening brace, and the escaped name holds no brace, so where the name
 * ends is never in doubt either.
 */
final class RuleKeyPrefix {

  private RuleKeyPrefix() {}

  /** {@code keyPrefix + ":" +} the escaped {@code ruleName}. */
  static String of(String keyPrefix, String ruleName) {
    StringBuilder b = new StringBuilder(keyPrefix.length() + 1 + ruleName.length() + 8);
    b.append(keyPrefix).append(':');
    for (int i = 0; i < ruleName.length(); i++) {
      char c = ruleName.charAt(i);
      switch (c) {
        case '%' -> b.append("%25");
        case '{' -> b.append("%7B");
        case '}' -> b.append("%7D");
        default -> b.append(c);
      }
    }
    return b.toString();
  }
}
