package io.slidingwindow.redis;

import io.slidingwindow.testkit.redis.RedisClusterProcesses;

/**
 * One 3-master, 3-replica Redis Cluster and backend shared by the ITs that do not change its
 * topology, started on first use and closed at JVM exit.
 */
final class SharedCluster {

  private SharedCluster() {}

  private static final class Holder {
    static final RedisClusterProcesses CLUSTER = RedisClusterProcesses.start(3, 1);
    static final RedisBackend BACKEND = RedisBackend.cluster(CLUSTER.seedUris());

    static {
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      BACKEND.close();
                    } finally {
                      CLUSTER.close();
                    }
                  }));
    }
  }

  static RedisBackend backend() {
    return Holder.BACKEND;
  }
}
