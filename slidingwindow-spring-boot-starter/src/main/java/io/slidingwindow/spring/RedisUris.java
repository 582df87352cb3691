package io.slidingwindow.spring;

/** Redis URIs in log lines and messages, without their passwords. Depends on no Redis client. */
final class RedisUris {

  private RedisUris() {}

  /**
   * {@code text} with the password of every URI in it replaced by {@code ***}: {@code
   * scheme://user:password@host} keeps the user, {@code scheme://password@host} (a password alone,
   * as Lettuce reads it) keeps nothing; null stays null.
   */
  static String mask(String text) {
    return text == null ? null : text.replaceAll("://([^/@\\s:]*:)?[^/@\\s]*@", "://$1***@");
  }
}
