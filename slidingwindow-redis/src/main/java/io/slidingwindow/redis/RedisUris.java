package io.slidingwindow.redis;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Redis URIs fit for log lines and messages: without their passwords. Stateless. */
public final class RedisUris {

  /** The user info of a URI: up to its last {@code @} before the path, a list comma or bracket. */
  private static final Pattern USER_INFO = Pattern.compile("//([^/\\s,\\]]*)@");

  private RedisUris() {}

  /**
   * {@code text} with the password of every URI in it replaced by {@code ***}: {@code
   * scheme://user:password@host} keeps the user, {@code scheme://password@host} (a password alone,
   * as Lettuce reads it) keeps nothing, and a password holding {@code @} is masked whole; null
   * stays null.
   */
  public static String mask(String text) {
    if (text == null) {
      return null;
    }
    Matcher m = USER_INFO.matcher(text);
    StringBuilder out = new StringBuilder(text.length());
    while (m.find()) {
      String userInfo = m.group(1);
      int colon = userInfo.indexOf(':');
      String masked = colon >= 0 ? userInfo.substring(0, colon + 1) + "***" : "***";
      m.appendReplacement(out, Matcher.quoteReplacement("//" + masked + "@"));
    }
    m.appendTail(out);
    return out.toString();
  }
}
