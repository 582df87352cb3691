package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS with client certificates (mTLS) on gRPC and HTTP, TLS on admin: a client that trusts the CA
 * and presents its certificate is served; one without a certificate, or speaking plaintext, is not.
 */
@WithoutRedisServer
class TlsIT {

  private static final String DECIDE =
      "{\"domain\": \"api\", \"descriptors\": [{\"entries\": [{\"key\": \"client\","
          + " \"value\": \"c\"}]}]}";

  @TempDir Path dir;
  private TestCertificates certificates;
  private RateLimitServer server;
  private final List<ManagedChannel> channels = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    certificates = TestCertificates.write(dir);
    Path config = TestServers.clientConfig(dir, "minute", 100);
    server =
        TestServers.onLoopback(config)
            .tls(certificates.serverCert(), certificates.serverKey())
            .tlsClientCa(certificates.caCert())
            .start();
  }

  @AfterEach
  void stop() throws InterruptedException {
    for (ManagedChannel channel : channels) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    server.close();
  }

  @Test
  void grpc_clientWithCertificate_servedOverTls() throws Exception {
    ChannelCredentials credentials =
        TlsChannelCredentials.newBuilder()
            .trustManager(certificates.caCert().toFile())
            .keyManager(certificates.clientCert().toFile(), certificates.clientKey().toFile())
            .build();

    assertThat(decide(credentials)).isEqualTo(Code.OK);
  }

  @Test
  void grpc_plaintextOrNoClientCertificate_refused() throws Exception {
    ChannelCredentials withoutCertificate =
        TlsChannelCredentials.newBuilder().trustManager(certificates.caCert().toFile()).build();

    assertThatThrownBy(() -> decide(InsecureChannelCredentials.create()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    assertThatThrownBy(() -> decide(withoutCertificate))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
  }

  @Test
  void http_clientWithCertificate_servedAndOthersRefused() throws Exception {
    HttpResponse<String> served =
        post(certificates.clientContext(true), "https", server.httpPort(), "/v1/decide");

    assertThat(served.statusCode()).isEqualTo(200);
    assertThatThrownBy(
            () -> post(certificates.clientContext(false), "https", server.httpPort(), "/v1/decide"))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> post(SSLContext.getDefault(), "http", server.httpPort(), "/v1/decide"))
        .isInstanceOf(IOException.class);
  }

  @Test
  void admin_overTlsWithoutClientCertificate_served() throws Exception {
    HttpClient client =
        HttpClient.newBuilder()
            .sslContext(certificates.clientContext(false))
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    HttpResponse<String> stats =
        client.send(
            HttpRequest.newBuilder(
                    URI.create("https://127.0.0.1:" + server.adminPort() + "/v1/stats"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(stats.statusCode()).isEqualTo(200);
    assertThat(stats.body()).contains("\"domains\":[\"api\"]");
  }

  private Code decide(ChannelCredentials credentials) {
    ManagedChannel channel =
        Grpc.newChannelBuilderForAddress("127.0.0.1", server.grpcPort(), credentials).build();
    channels.add(channel);
    return RateLimitServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .shouldRateLimit(EnvoyGrpcIT.request("client", "c"))
        .getOverallCode();
  }

  private static HttpResponse<String> post(SSLContext tls, String scheme, int port, String path)
      throws IOException, InterruptedException {
    HttpClient client =
        HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(5)).build();
    return client.send(
        HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(DECIDE))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
