package io.slidingwindow.server;

import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisUris;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import java.util.List;
import java.util.function.Supplier;

/**
 * Where the service keeps its counts in Redis: a description with any password masked, and how to
 * connect, which happens when the service starts.
 */
record RedisStore(String description, Supplier<RedisBackend> connector) {

  static RedisStore standalone(String uri) {
    if (uri == null || uri.isEmpty()) {
      throw new IllegalArgumentException("redis uri must not be empty, was " + uri);
    }
    return new RedisStore(
        "standalone " + RedisUris.mask(uri), () -> LettuceBackends.standalone(uri));
  }

  static RedisStore sentinel(
      List<String> sentinelUris,
      String masterName,
      String username,
      char[] password,
      char[] sentinelPassword) {
    List<String> uris = uris(sentinelUris, "sentinelUris");
    if (masterName == null || masterName.isEmpty()) {
      throw new IllegalArgumentException("masterName must not be empty, was " + masterName);
    }
    if (username != null && (username.isEmpty() || password == null)) {
      throw new IllegalArgumentException(
          "redis username '" + username + "' must be non-empty and come with a password");
    }
    char[] data = password == null ? null : password.clone();
    char[] sentinels = sentinelPassword == null ? null : sentinelPassword.clone();
    return new RedisStore(
        "sentinel "
            + masterName
            + " via "
            + RedisUris.mask(uris.toString())
            + (username != null ? " as " + username : "")
            + (data != null ? " with a password" : "")
            + (sentinels != null ? ", Sentinels with a password" : ""),
        () -> LettuceBackends.sentinel(uris, masterName, username, data, sentinels));
  }

  static RedisStore cluster(List<String> seedUris) {
    List<String> uris = uris(seedUris, "seedUris");
    return new RedisStore(
        "cluster " + RedisUris.mask(uris.toString()), () -> LettuceBackends.cluster(uris));
  }

  RedisBackend connect() {
    return connector.get();
  }

  private static List<String> uris(List<String> uris, String name) {
    if (uris == null || uris.isEmpty() || uris.stream().anyMatch(u -> u == null || u.isEmpty())) {
      throw new IllegalArgumentException(
          name + " must be non-empty URIs, was " + RedisUris.mask(String.valueOf(uris)));
    }
    return List.copyOf(uris);
  }
}
