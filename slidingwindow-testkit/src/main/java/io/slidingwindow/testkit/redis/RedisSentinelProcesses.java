package io.slidingwindow.testkit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Redis Sentinel group for a test: one master, {@code replicas} replicas of it and {@code
 * sentinels} sentinels monitoring it under {@code masterName} with quorum {@code sentinels / 2 +
 * 1}, every process on free ports of {@code 127.0.0.1}.
 *
 * <p>Sentinels run with {@code down-after-milliseconds} {@value #DOWN_AFTER_MILLIS} and {@code
 * failover-timeout} {@value #FAILOVER_TIMEOUT_MILLIS} ms, so a killed master is replaced within a
 * few seconds. {@link #master()} and {@link #replicas()} are read live from the sentinels: after a
 * failover they reflect the new roles.
 *
 * <p>Bounds: {@link #start} waits at most {@link #FORM_BOUND} until every replica's link to the
 * master is up and every sentinel sees the master as {@code status=ok} with all replicas and all
 * other sentinels (plus {@link RedisServerProcess#START_BOUND} per process); {@link
 * #awaitFailover()} at most {@link #FAILOVER_BOUND}. {@link #close()} kills every process and
 * deletes their directories; a failed {@link #start} does so before throwing. Thread-safe for
 * reads; lifecycle calls are synchronized.
 */
public final class RedisSentinelProcesses implements AutoCloseable {

  /** The sentinels' {@code down-after-milliseconds}. */
  public static final int DOWN_AFTER_MILLIS = 1000;

  /** The sentinels' {@code failover-timeout}, in milliseconds. */
  public static final int FAILOVER_TIMEOUT_MILLIS = 3000;

  /** How long {@link #start} waits for the group to be in place. */
  public static final Duration FORM_BOUND = Duration.ofSeconds(30);

  /** How long {@link #awaitFailover()} waits for a replica to be promoted. */
  public static final Duration FAILOVER_BOUND = Duration.ofSeconds(30);

  private final String masterName;
  private final List<RedisServerProcess> servers;
  private final List<RedisServerProcess> sentinels;
  private volatile RedisServerProcess killedMaster;

  private RedisSentinelProcesses(
      String masterName, List<RedisServerProcess> servers, List<RedisServerProcess> sentinels) {
    this.masterName = masterName;
    this.servers = List.copyOf(servers);
    this.sentinels = List.copyOf(sentinels);
  }

  /**
   * Starts the master, its replicas and the sentinels, and waits until the group is in place (see
   * the class comment for what and how long).
   *
   * @param masterName the name the sentinels monitor the master under, letters, digits, {@code -},
   *     {@code _} or {@code .}
   * @param replicas replicas of the master, at least 0 (a failover needs at least 1)
   * @param sentinels sentinels, at least 1
   * @throws IllegalArgumentException if a parameter is out of range, naming it and its value
   * @throws IllegalStateException if Redis is not installed or the group does not form; all
   *     processes are killed first
   */
  public static RedisSentinelProcesses start(String masterName, int replicas, int sentinels) {
    if (masterName == null || !masterName.matches("[A-Za-z0-9._-]+")) {
      throw new IllegalArgumentException(
          "masterName must be letters, digits, '-', '_' or '.', was " + masterName);
    }
    if (replicas < 0) {
      throw new IllegalArgumentException("replicas must not be negative, was " + replicas);
    }
    if (sentinels < 1) {
      throw new IllegalArgumentException("sentinels must be at least 1, was " + sentinels);
    }
    RedisTools.requireInstalled();
    List<RedisServerProcess> servers = new ArrayList<>();
    List<RedisServerProcess> watchers = new ArrayList<>();
    try {
      RedisServerProcess master = RedisServerProcess.start();
      servers.add(master);
      for (int i = 0; i < replicas; i++) {
        servers.add(
            RedisServerProcess.start(
                RedisServerProcess.Kind.STANDALONE,
                List.of("replicaof " + RedisTools.HOST + " " + master.port())));
      }
      int quorum = sentinels / 2 + 1;
      List<String> config =
          List.of(
              "sentinel monitor "
                  + masterName
                  + " "
                  + RedisTools.HOST
                  + " "
                  + master.port()
                  + " "
                  + quorum,
              "sentinel down-after-milliseconds " + masterName + " " + DOWN_AFTER_MILLIS,
              "sentinel failover-timeout " + masterName + " " + FAILOVER_TIMEOUT_MILLIS,
              "sentinel parallel-syncs " + masterName + " " + Math.max(1, replicas));
      for (int i = 0; i < sentinels; i++) {
        watchers.add(RedisServerProcess.start(RedisServerProcess.Kind.SENTINEL, config));
      }
      RedisSentinelProcesses group = new RedisSentinelProcesses(masterName, servers, watchers);
      RedisTools.await(
          "sentinel group '" + masterName + "' in place",
          FORM_BOUND,
          group::inPlace,
          group::describe);
      return group;
    } catch (RuntimeException | Error e) {
      for (RedisServerProcess process : watchers) {
        process.close();
      }
      for (RedisServerProcess process : servers) {
        process.close();
      }
      throw e;
    }
  }

  private boolean inPlace() {
    for (RedisServerProcess server : servers.subList(1, servers.size())) {
      if (!server.cli("INFO", "replication").contains("master_link_status:up")) {
        return false;
      }
    }
    String expected =
        "status=ok,address="
            + RedisTools.HOST
            + ":"
            + servers.get(0).port()
            + ",slaves="
            + (servers.size() - 1)
            + ",sentinels="
            + sentinels.size();
    for (RedisServerProcess sentinel : sentinels) {
      if (!sentinel.cli("INFO", "sentinel").contains("name=" + masterName + "," + expected)) {
        return false;
      }
    }
    return true;
  }

  /** The name the sentinels monitor the master under. */
  public String masterName() {
    return masterName;
  }

  /** The sentinel processes, in start order. */
  public List<RedisServerProcess> sentinels() {
    return sentinels;
  }

  /** The sentinels' URIs, {@code "redis://127.0.0.1:<port>"}, in start order. */
  public List<String> sentinelUris() {
    return sentinels.stream().map(RedisServerProcess::uri).toList();
  }

  /** The master and replica processes, killed ones included; the first one started as master. */
  public List<RedisServerProcess> servers() {
    return servers;
  }

  /**
   * The current master as the first running sentinel reports it ({@code SENTINEL
   * get-master-addr-by-name}); it may be a killed process until a failover completes.
   *
   * @throws IllegalStateException if no sentinel answers
   */
  public RedisServerProcess master() {
    int port = masterPortPerSentinel(firstRunningSentinel());
    for (RedisServerProcess server : servers) {
      if (server.port() == port) {
        return server;
      }
    }
    throw new IllegalStateException("sentinels report an unknown master port " + port);
  }

  /** The running data processes other than {@link #master()}, in start order. */
  public List<RedisServerProcess> replicas() {
    RedisServerProcess master = master();
    return servers.stream().filter(s -> s != master && s.isAlive()).toList();
  }

  /**
   * Kills (SIGKILL) the current {@link #master()} and returns it, so that {@link #awaitFailover()}
   * can wait for the sentinels to promote a replica. The killed process can be brought back with
   * {@link RedisServerProcess#restart()}; the sentinels then turn it into a replica.
   */
  public synchronized RedisServerProcess killMaster() {
    RedisServerProcess master = master();
    master.kill();
    killedMaster = master;
    return master;
  }

  /**
   * Waits until every running sentinel names a running process other than the killed master as
   * master and that process answers {@code ROLE} with {@code master}; at most {@link
   * #FAILOVER_BOUND}. Returns the new master.
   *
   * @throws IllegalStateException if no master was killed or the failover does not complete in time
   */
  public RedisServerProcess awaitFailover() {
    RedisServerProcess killed = killedMaster;
    if (killed == null) {
      throw new IllegalStateException("no master was killed; call killMaster first");
    }
    RedisTools.await(
        "sentinel failover away from " + killed.uri(),
        FAILOVER_BOUND,
        () -> {
          RedisServerProcess master = master();
          if (master == killed || !master.isAlive()) {
            return false;
          }
          for (RedisServerProcess sentinel : sentinels) {
            if (sentinel.isAlive() && masterPortPerSentinel(sentinel) != master.port()) {
              return false;
            }
          }
          return master.cli("ROLE").startsWith("master");
        },
        this::describe);
    return master();
  }

  private int masterPortPerSentinel(RedisServerProcess sentinel) {
    List<String> reply =
        sentinel.cli("SENTINEL", "get-master-addr-by-name", masterName).lines().toList();
    if (reply.size() != 2) {
      throw new IllegalStateException(sentinel + " does not know master " + masterName);
    }
    return Integer.parseInt(reply.get(1).trim());
  }

  private RedisServerProcess firstRunningSentinel() {
    for (RedisServerProcess sentinel : sentinels) {
      if (sentinel.isAlive()) {
        return sentinel;
      }
    }
    throw new IllegalStateException("no sentinel is running");
  }

  private String describe() {
    StringBuilder out = new StringBuilder();
    for (RedisServerProcess process : servers) {
      out.append('\n').append(process);
    }
    for (RedisServerProcess sentinel : sentinels) {
      out.append('\n').append(sentinel);
      if (sentinel.isAlive()) {
        try {
          out.append(' ')
              .append(
                  sentinel
                      .cli("INFO", "sentinel")
                      .lines()
                      .filter(l -> l.startsWith("master"))
                      .toList());
        } catch (IllegalStateException e) {
          out.append(" (no answer: ").append(e.getMessage()).append(')');
        }
      }
    }
    return out.toString();
  }

  /** Kills every sentinel, replica and master (SIGKILL, bounded) and deletes their directories. */
  @Override
  public synchronized void close() {
    for (RedisServerProcess sentinel : sentinels) {
      sentinel.close();
    }
    for (RedisServerProcess server : servers) {
      server.close();
    }
  }
}
