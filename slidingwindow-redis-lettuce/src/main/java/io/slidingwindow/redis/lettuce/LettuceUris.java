package io.slidingwindow.redis.lettuce;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.slidingwindow.redis.RedisUris;
import java.util.List;

/** Lettuce {@link RedisURI}s from the strings users give, with messages naming the argument. */
final class LettuceUris {

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
      if (sentinelPassword != null && !hasPassword(sentinel)) {
        // Not RedisURI's getPassword and setPassword(char[]): Lettuce 7 has neither. The URI built
        // here only carries the credentials (a socket Sentinel has no host); the copy keeps them
        // from a caller that wipes its array (Lettuce 7 keeps the array given).
        sentinel.applyAuthentication(
            RedisURI.Builder.redis("localhost").withPassword(sentinelPassword.clone()).build());
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

  /** Whether {@code uri} carries a password of its own (Lettuce ignores an empty one). */
  private static boolean hasPassword(RedisURI uri) {
    RedisCredentials credentials = uri.getCredentialsProvider().resolveCredentials().block();
    return credentials != null && credentials.hasPassword();
  }
}
