package io.slidingwindow.server.grpc;

import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.InternalNettyServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.slidingwindow.server.decide.Decider;
import io.slidingwindow.server.decide.DecisionEvents;
import io.slidingwindow.server.decide.ServiceHealth;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.server.settings.Settings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC port: Envoy's {@code RateLimitService}, the standard {@code grpc.health.v1.Health}
 * service and server reflection (v1 and v1alpha), on grpc-java's Netty transport with calls run on
 * the event loop ({@code directExecutor}): nothing in a call blocks.
 *
 * <p>Health: the service {@code ""} and {@code envoy.service.ratelimit.v3.RateLimitService} tell
 * readiness, SERVING or NOT_SERVING as {@link ServiceHealth#ready()} changes; the service {@value
 * #LIVENESS} is SERVING while the process runs, whatever Redis does. With TLS the port speaks TLS
 * only, and with a client CA it requires a client certificate that chains to it.
 *
 * <p>Bounds ({@link Settings.Grpc}): at most so many open connections (further ones are closed as
 * they are accepted, counted as {@code too_many_connections}); at most so many calls in flight per
 * connection (HTTP/2's {@code SETTINGS_MAX_CONCURRENT_STREAMS}); a connection without calls for the
 * idle time is ended gracefully; keepalive pings are allowed at the configured interval with or
 * without calls in flight (gRPC's default, one every five minutes and none without a call, would
 * answer Envoy's {@code connection_keepalive} pings with GOAWAY {@code too_many_pings}); a
 * message's size is at most 1 MiB, and its metadata at most gRPC's default 8 KiB. Thread-safe.
 */
public final class GrpcPort {

  /** The health service name that tells liveness only. */
  public static final String LIVENESS = "liveness";

  private static final int MAX_MESSAGE_BYTES = 1 << 20;

  private final Server server;
  private final HealthStatusManager health = new HealthStatusManager();

  private GrpcPort(
      InetSocketAddress address,
      Settings.Grpc bounds,
      Settings.Tls tls,
      Decider decider,
      DecisionEvents events,
      ServiceHealth serviceHealth)
      throws IOException {
    ConnectionLimit limit =
        new ConnectionLimit(
            bounds.maxConnections(),
            () -> events.refused(DecisionEvents.GRPC, ConnectionLimit.TOO_MANY_CONNECTIONS));
    NettyServerBuilder builder = NettyServerBuilder.forAddress(address, credentials(tls));
    // NIO, as the limit's listening channel is; with gRPC's shared NIO event loops.
    InternalNettyServerBuilder.useNioTransport(builder);
    builder
        .channelFactory(limit.listeners())
        .directExecutor()
        .addService(EnvoyRateLimitService.definition(decider, events))
        .addService(health.getHealthService())
        .addService(ProtoReflectionServiceV1.newInstance())
        .addService(reflectionV1Alpha())
        .maxInboundMessageSize(MAX_MESSAGE_BYTES)
        .maxConcurrentCallsPerConnection(bounds.maxConcurrentCalls())
        .permitKeepAliveTime(nanos(bounds.permitKeepAliveTime()), TimeUnit.NANOSECONDS)
        .permitKeepAliveWithoutCalls(true);
    if (!bounds.maxConnectionIdle().isZero()) {
      builder.maxConnectionIdle(nanos(bounds.maxConnectionIdle()), TimeUnit.NANOSECONDS);
    }
    server = builder.build();
    health.setStatus(LIVENESS, ServingStatus.SERVING);
    Runnable update =
        () -> {
          ServingStatus status =
              serviceHealth.ready() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
          health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, status);
          health.setStatus(RateLimitServiceGrpc.SERVICE_NAME, status);
        };
    serviceHealth.onChange(update);
    update.run();
    server.start();
  }

  /**
   * {@code duration} in nanoseconds, at most {@link Long#MAX_VALUE} (which gRPC takes as never).
   */
  private static long nanos(Duration duration) {
    return duration.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0
        ? Long.MAX_VALUE
        : duration.toNanos();
  }

  /**
   * Opens the gRPC port.
   *
   * @throws IOException if the address cannot be bound, or a TLS file cannot be read
   */
  public static GrpcPort open(
      InetSocketAddress address,
      Settings.Grpc bounds,
      Settings.Tls tls,
      Decider decider,
      DecisionEvents events,
      ServiceHealth health)
      throws IOException {
    return new GrpcPort(address, bounds, tls, decider, events, health);
  }

  /** The bound port. */
  public int port() {
    return server.getPort();
  }

  /** Stops taking calls (health then says NOT_SERVING to anyone still asking). */
  public void shutdown() {
    health.enterTerminalState();
    server.shutdown();
  }

  /**
   * Waits up to {@code nanos} for the calls in flight, then cancels what is left.
   *
   * @return whether every call ended in time
   */
  public boolean awaitTermination(long nanos) throws InterruptedException {
    if (server.awaitTermination(nanos, TimeUnit.NANOSECONDS)) {
      return true;
    }
    server.shutdownNow();
    return false;
  }

  /** Cancels every call at once. */
  public void shutdownNow() {
    server.shutdownNow();
  }

  private static ServerCredentials credentials(Settings.Tls tls) throws IOException {
    if (!tls.enabled()) {
      return InsecureServerCredentials.create();
    }
    TlsServerCredentials.Builder builder =
        TlsServerCredentials.newBuilder().keyManager(tls.cert().toFile(), tls.key().toFile());
    if (tls.clientCa() != null) {
      builder
          .trustManager(tls.clientCa().toFile())
          .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
    }
    return builder.build();
  }

  @SuppressWarnings("deprecation") // v1alpha, still what many clients (grpcurl < 1.9) ask for
  private static io.grpc.BindableService reflectionV1Alpha() {
    return io.grpc.protobuf.services.ProtoReflectionService.newInstance();
  }
}
