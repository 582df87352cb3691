package io.slidingwindow.testkit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A real Redis Cluster for a test: {@code masters} masters with {@code replicasPerMaster} replicas
 * each, every node a {@code redis-server} on free ports of {@code 127.0.0.1}, joined with {@code
 * redis-cli --cluster create --cluster-replicas r --cluster-yes}.
 *
 * <p>Nodes run with {@code cluster-node-timeout} {@value #NODE_TIMEOUT_MILLIS} ms and {@code
 * cluster-replica-validity-factor 0} (any replica may take over), so a killed master is replaced
 * within a few seconds. Roles are read live from {@code CLUSTER NODES}: after a failover {@link
 * #masters()} and {@link #replicas()} reflect the new topology.
 *
 * <p>Bounds: {@link #start} waits at most {@link #FORM_BOUND} for {@code cluster_state:ok} on every
 * node, all 16384 slots assigned, every node knowing every other and every replica's link to its
 * master up (plus {@link RedisServerProcess#START_BOUND} per node and 60 s for {@code redis-cli
 * --cluster create}); {@link #awaitFailover()} at most {@link #FAILOVER_BOUND}. {@link #close()}
 * kills every node and deletes their directories; a failed {@link #start} does so before throwing.
 * Thread-safe for reads; lifecycle calls are synchronized.
 */
public final class RedisClusterProcesses implements AutoCloseable {

  /** The {@code cluster-node-timeout} of every node, in milliseconds. */
  public static final int NODE_TIMEOUT_MILLIS = 1000;

  /** How long {@link #start} waits for the formed cluster to be healthy. */
  public static final Duration FORM_BOUND = Duration.ofSeconds(30);

  /** How long {@link #awaitFailover()} waits for a replica to take over. */
  public static final Duration FAILOVER_BOUND = Duration.ofSeconds(30);

  private static final Duration CREATE_BOUND = Duration.ofSeconds(60);

  private final List<RedisServerProcess> nodes;
  private final int replicasPerMaster;
  private volatile RedisServerProcess killedMaster;
  private volatile int killedMasterFirstSlot = -1;

  private RedisClusterProcesses(List<RedisServerProcess> nodes, int replicasPerMaster) {
    this.nodes = List.copyOf(nodes);
    this.replicasPerMaster = replicasPerMaster;
  }

  /**
   * Starts {@code masters * (1 + replicasPerMaster)} cluster nodes, creates the cluster and waits
   * until it is healthy (see the class comment for what and how long).
   *
   * @param masters number of masters, at least 3 (what {@code redis-cli --cluster create} needs)
   * @param replicasPerMaster replicas of each master, at least 0
   * @throws IllegalArgumentException if {@code masters < 3} or {@code replicasPerMaster < 0}
   * @throws IllegalStateException if Redis is not installed or the cluster does not form; all nodes
   *     are killed first
   */
  public static RedisClusterProcesses start(int masters, int replicasPerMaster) {
    if (masters < 3) {
      throw new IllegalArgumentException("masters must be at least 3, was " + masters);
    }
    if (replicasPerMaster < 0) {
      throw new IllegalArgumentException(
          "replicasPerMaster must not be negative, was " + replicasPerMaster);
    }
    RedisTools.refuseMarkedCaller();
    RedisTools.requireInstalled();
    int count = masters * (1 + replicasPerMaster);
    List<RedisServerProcess> started = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        started.add(
            RedisServerProcess.start(
                RedisServerProcess.Kind.CLUSTER,
                List.of(
                    "cluster-node-timeout " + NODE_TIMEOUT_MILLIS,
                    "cluster-replica-validity-factor 0",
                    "cluster-require-full-coverage yes")));
      }
      RedisClusterProcesses cluster = new RedisClusterProcesses(started, replicasPerMaster);
      cluster.create();
      return cluster;
    } catch (RuntimeException | Error e) {
      for (RedisServerProcess node : started) {
        node.close();
      }
      throw e;
    }
  }

  private void create() {
    List<String> args = new ArrayList<>();
    args.add("--cluster");
    args.add("create");
    for (RedisServerProcess node : nodes) {
      args.add(RedisTools.HOST + ":" + node.port());
    }
    args.add("--cluster-replicas");
    args.add(Integer.toString(replicasPerMaster));
    args.add("--cluster-yes");
    RedisTools.redisCli(CREATE_BOUND, args);
    RedisTools.await(
        "cluster of " + nodes.size() + " nodes healthy", FORM_BOUND, this::healthy, this::describe);
  }

  private boolean healthy() {
    for (RedisServerProcess node : nodes) {
      if (!node.isAlive() || !clusterStateOk(node)) {
        return false;
      }
      if (node.cli("CLUSTER", "NODES").lines().count() != nodes.size()) {
        return false;
      }
      String replication = node.cli("INFO", "replication");
      if (replication.contains("role:slave") && !replication.contains("master_link_status:up")) {
        return false;
      }
    }
    return true;
  }

  private static boolean clusterStateOk(RedisServerProcess node) {
    String info = node.cli("CLUSTER", "INFO");
    return info.contains("cluster_state:ok") && info.contains("cluster_slots_ok:16384");
  }

  /** Every node, killed ones included, in start order. */
  public List<RedisServerProcess> nodes() {
    return nodes;
  }

  /** The URIs of all nodes, {@code "redis://127.0.0.1:<port>"}, in start order. */
  public List<String> seedUris() {
    return nodes.stream().map(RedisServerProcess::uri).toList();
  }

  /**
   * The running masters that serve slots, as the first running node's {@code CLUSTER NODES} sees
   * them, ordered by the first slot each serves (so index 0 holds slot 0 until a failover).
   *
   * @throws IllegalStateException if no node is running
   */
  public List<RedisServerProcess> masters() {
    Map<Integer, RedisServerProcess> byFirstSlot = new TreeMap<>();
    for (NodeLine line : view()) {
      RedisServerProcess node = byPort(line.port);
      boolean servesSlots = line.master() && !line.failed() && line.firstSlot >= 0;
      if (servesSlots && node != null && node.isAlive()) {
        byFirstSlot.put(line.firstSlot, node);
      }
    }
    return List.copyOf(byFirstSlot.values());
  }

  /**
   * The running replicas, as the first running node's {@code CLUSTER NODES} sees them, ordered by
   * port.
   *
   * @throws IllegalStateException if no node is running
   */
  public List<RedisServerProcess> replicas() {
    List<RedisServerProcess> replicas = new ArrayList<>();
    for (NodeLine line : view()) {
      RedisServerProcess node = byPort(line.port);
      if (!line.master() && !line.failed() && node != null && node.isAlive()) {
        replicas.add(node);
      }
    }
    replicas.sort(Comparator.comparingInt(RedisServerProcess::port));
    return replicas;
  }

  /**
   * Kills (SIGKILL) the master at {@code index} of {@link #masters()} and returns it, so that
   * {@link #awaitFailover()} can wait for a replica to replace it. The killed node can be brought
   * back with {@link RedisServerProcess#restart()}; it then rejoins as a replica.
   *
   * @throws IllegalArgumentException if {@code index} is not an index of {@link #masters()}
   */
  public synchronized RedisServerProcess killMaster(int index) {
    List<NodeLine> view = view();
    List<RedisServerProcess> masters = masters();
    if (index < 0 || index >= masters.size()) {
      throw new IllegalArgumentException(
          "index must be in [0, " + masters.size() + "), was " + index);
    }
    RedisServerProcess master = masters.get(index);
    int firstSlot =
        view.stream().filter(l -> l.port == master.port()).findFirst().orElseThrow().firstSlot;
    master.kill();
    killedMaster = master;
    killedMasterFirstSlot = firstSlot;
    return master;
  }

  /**
   * Waits until a running node other than the killed master serves the killed master's slots as a
   * master and every running node reports {@code cluster_state:ok} with all slots served; at most
   * {@link #FAILOVER_BOUND}. Returns the new master.
   *
   * @throws IllegalStateException if no master was killed or the failover does not complete in time
   */
  public RedisServerProcess awaitFailover() {
    RedisServerProcess killed = killedMaster;
    int slot = killedMasterFirstSlot;
    if (killed == null) {
      throw new IllegalStateException("no master was killed; call killMaster first");
    }
    RedisTools.await(
        "failover of " + killed.uri() + " (slot " + slot + ")",
        FAILOVER_BOUND,
        () -> {
          RedisServerProcess owner = ownerOf(slot);
          if (owner == null || owner == killed || !owner.isAlive()) {
            return false;
          }
          for (RedisServerProcess node : nodes) {
            if (node.isAlive() && !clusterStateOk(node)) {
              return false;
            }
          }
          return true;
        },
        this::describe);
    return ownerOf(slot);
  }

  private RedisServerProcess ownerOf(int slot) {
    for (NodeLine line : view()) {
      if (line.master() && !line.failed() && line.serves(slot)) {
        return byPort(line.port);
      }
    }
    return null;
  }

  private RedisServerProcess byPort(int port) {
    for (RedisServerProcess node : nodes) {
      if (node.port() == port) {
        return node;
      }
    }
    return null;
  }

  private List<NodeLine> view() {
    for (RedisServerProcess node : nodes) {
      if (node.isAlive()) {
        try {
          return node.cli("CLUSTER", "NODES").lines().map(NodeLine::parse).toList();
        } catch (IllegalStateException e) {
          // this node does not answer (yet); ask the next one
        }
      }
    }
    throw new IllegalStateException("no running cluster node answers CLUSTER NODES");
  }

  private String describe() {
    StringBuilder out = new StringBuilder();
    for (RedisServerProcess node : nodes) {
      out.append('\n').append(node);
      if (node.isAlive()) {
        try {
          out.append('\n').append(node.cli("CLUSTER", "NODES"));
        } catch (IllegalStateException e) {
          out.append(" (no answer: ").append(e.getMessage()).append(')');
        }
      }
    }
    return out.toString();
  }

  /** Kills every node (SIGKILL, bounded) and deletes their directories. Idempotent. */
  @Override
  public synchronized void close() {
    for (RedisServerProcess node : nodes) {
      node.close();
    }
  }

  /** One line of {@code CLUSTER NODES}: port, flags and slot ranges. */
  private record NodeLine(int port, String flags, List<int[]> slots, int firstSlot) {

    static NodeLine parse(String line) {
      String[] parts = line.trim().split(" ", -1);
      String address = parts[1];
      String portAndBus = address.substring(address.lastIndexOf(':') + 1);
      int port = Integer.parseInt(portAndBus.split("[@,]", -1)[0]);
      List<int[]> slots = new ArrayList<>();
      for (int i = 8; i < parts.length; i++) {
        if (parts[i].startsWith("[")) {
          continue;
        }
        String[] range = parts[i].split("-", -1);
        int from = Integer.parseInt(range[0]);
        int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
        slots.add(new int[] {from, to});
      }
      int first = slots.stream().mapToInt(r -> r[0]).min().orElse(-1);
      return new NodeLine(port, parts[2], slots, first);
    }

    boolean master() {
      return flags.contains("master");
    }

    boolean failed() {
      return flags.contains("fail") || flags.contains("noaddr");
    }

    boolean serves(int slot) {
      return slots.stream().anyMatch(r -> r[0] <= slot && slot <= r[1]);
    }
  }
}
