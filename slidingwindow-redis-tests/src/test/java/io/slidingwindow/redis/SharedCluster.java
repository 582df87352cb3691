package io.slidingwindow.redis;

import io.slidingwindow.testkit.redis.RedisClusterProcesses;
import java.util.EnumMap;
import java.util.Map;

/**
 * One 3-master, 3-replica Redis Cluster and one backend per client on it, shared by the ITs of this
 * fork that do not kill its nodes, started on first use and closed at JVM exit. A test may move a
 * slot between masters; every client follows MOVED.
 */
final class SharedCluster {

  private SharedCluster() {}

  private static final class Holder {
    static final RedisClusterProcesses CLUSTER = RedisClusterProcesses.start(3, 1);
    static final Map<Client, RedisBackend> BACKENDS = new EnumMap<>(Client.class);

    static {
      for (Client client : Client.values()) {
        BACKENDS.put(client, client.cluster(CLUSTER.seedUris(), Client.GENEROUS));
      }
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      BACKENDS.values().forEach(RedisBackend::close);
                    } finally {
                      CLUSTER.close();
                    }
                  }));
    }
  }

  static RedisClusterProcesses cluster() {
    return Holder.CLUSTER;
  }

  static RedisBackend backend(Client client) {
    return Holder.BACKENDS.get(client);
  }
}
