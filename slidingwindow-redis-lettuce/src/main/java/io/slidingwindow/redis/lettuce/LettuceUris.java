package io.slidingwindow.redis.lettuce;

import io.lettuce.core.RedisURI;
import io.slidingwindow.redis.RedisUris;
import java.util.List;
import java.util.regex.Pattern;

/** Lettuce {@link RedisURI}s from the strings users give, with messages naming the argument. */
final class LettuceUris {

  /** A URI with user info (a password, with or without a user, as Lettuce reads it). */
  private static final Pattern USER_INFO = Pattern.compile("^[^:/]+://[^/]*@");

  private LettuceUris() {}

  /**
   * {@code uri} parsed.
   *
   * @throws IllegalArgumentException naming {@code name} if {@code uri} is null or no Redis URI;
   *     its message shows the URI without its password
   */
  static RedisURI parse(String uri, String name) {
    if (uri == null) {
      throw new IllegalArgumentException(name + " must not hold null");
    }
    try {
      return RedisURI.create(uri);
    } catch (RuntimeException e) {
      // Not chained: Lettuce's message quotes the whole URI, password included.
      throw new IllegalArgumentException(
          name + " must hold Redis URIs, was \"" + RedisUris.mask(uri) + '"');
    }
  }

  /**
   * The URI of the master {@code masterName} behind the given Sentinels: the data nodes reached as
   * {@code username} (null for {@code default}) with {@code password}, each Sentinel with its own
   * URI's credentials or else {@code sentinelPassword}.
   *
   * @throws IllegalArgumentException if the list is empty or holds a bad URI, {@code masterName} is
   *     null or empty, or {@code username} is given without a password
   */
  static RedisURI sentinelTarget(
      List<String> sentinelUris,
      String masterName,
      String username,
      char[] password,
      char[] sentinelPassword) {
    if (sentinelUris == null || sentinelUris.isEmpty()) {
      throw new IllegalArgumentException("sentinelUris must not be empty, was " + sentinelUris);
    }
    if (masterName == null || masterName.isEmpty()) {
      throw new IllegalArgumentException("masterName must not be empty, was " + masterName);
    }
    if (username != null && password == null) {
      throw new IllegalArgumentException(
          "username '" + username + "' needs a password, and none was given");
    }
    RedisURI.Builder builder = RedisURI.builder().withSentinelMasterId(masterName);
    for (String uri : sentinelUris) {
      RedisURI sentinel = parse(uri, "sentinelUris");
      if (sentinelPassword != null && !USER_INFO.matcher(uri).find()) {
        // Not RedisURI's getPassword and setPassword(char[]): Lettuce 7 has neither.
        sentinel.applyAuthentication(
            RedisURI.Builder.redis(sentinel.getHost(), sentinel.getPort())
                .withPassword(sentinelPassword)
                .build());
      }
      builder.withSentinel(sentinel);
    }
    if (username != null) {
      builder.withAuthentication(username, password);
    } else if (password != null) {
      builder.withPassword(password);
    }
    return builder.build();
  }
}
