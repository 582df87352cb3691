package io.slidingwindow.server.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.server.settings.Settings.RedisMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsSourcesTest {

  /** A builder of the settings alone, as the server's builder is. */
  static final class Builder extends SettingsBuilder<Builder> {}

  private final Map<String, String> properties = new HashMap<>();
  private final Map<String, String> environment = new HashMap<>();

  private Settings read(String... args) {
    return SettingsSources.read(new Builder(), args, properties::get, environment).settings();
  }

  @Test
  void read_nothingGiven_everyDefaultOfTheTable() {
    Settings settings = read();

    assertThat(settings.config()).isNull();
    assertThat(settings.ports()).isEqualTo(new Settings.Ports("0.0.0.0", 8081, 8080, 6070, null));
    assertThat(settings.ports().adminAllowedHosts()).isEmpty();
    assertThat(settings.http())
        .isEqualTo(new Settings.Http(Duration.ofSeconds(10), Duration.ofSeconds(60), 1024));
    assertThat(settings.grpc())
        .isEqualTo(new Settings.Grpc(10_000, 1000, Duration.ofHours(1), Duration.ofSeconds(5)));
    assertThat(settings.store().inMemory()).isTrue();
    assertThat(settings.store().commandTimeout()).isEqualTo(Duration.ofMillis(50));
    assertThat(settings.store().breakerFailures()).isEqualTo(3);
    assertThat(settings.store().breakerOpenFor()).isEqualTo(Duration.ofSeconds(1));
    assertThat(settings.requests())
        .isEqualTo(new Settings.Requests(true, 16, 10_000, 100_000, 1000));
    assertThat(settings.lifecycle().reloadInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(settings.lifecycle().drainTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(settings.tls().enabled()).isFalse();
    assertThat(settings.logs()).isEqualTo(new Settings.Logs(Settings.LogFormat.TEXT, "info"));
  }

  @Test
  void read_argumentOverPropertyOverEnvironment() {
    environment.put("SLIDINGWINDOW_GRPC_PORT", "1001");
    environment.put("SLIDINGWINDOW_HTTP_PORT", "1002");
    environment.put("SLIDINGWINDOW_ADMIN_PORT", "1003");
    properties.put("slidingwindow.server.httpPort", "2002");
    properties.put("slidingwindow.server.adminPort", "2003");

    Settings settings = read("--admin-port", "3003");

    assertThat(settings.ports().grpc()).isEqualTo(1001);
    assertThat(settings.ports().http()).isEqualTo(2002);
    assertThat(settings.ports().admin()).isEqualTo(3003);
  }

  @Test
  void read_everyOptionFromTheEnvironment() {
    environment.put("SLIDINGWINDOW_CONFIG", "/etc/ratelimit");
    environment.put("SLIDINGWINDOW_HOST", "127.0.0.1");
    environment.put("SLIDINGWINDOW_REDIS_SENTINEL", "redis://a:26379, redis://b:26379");
    environment.put("SLIDINGWINDOW_REDIS_MASTER", "counts");
    environment.put("SLIDINGWINDOW_REDIS_USERNAME", "limiter");
    environment.put("SLIDINGWINDOW_REDIS_PASSWORD", " pass word ");
    environment.put("SLIDINGWINDOW_REDIS_SENTINEL_PASSWORD", "sentinel");
    environment.put("SLIDINGWINDOW_REDIS_TIMEOUT", "200ms");
    environment.put("SLIDINGWINDOW_REDIS_BREAKER", "5/2s");
    environment.put("SLIDINGWINDOW_LIMIT_OVERRIDES", "false");
    environment.put("SLIDINGWINDOW_LOG_FORMAT", "json");
    environment.put("SLIDINGWINDOW_RELOAD_SECONDS", "0");

    Settings settings = read();

    assertThat(settings.config()).isEqualTo(Path.of("/etc/ratelimit"));
    assertThat(settings.ports().host()).isEqualTo("127.0.0.1");
    Settings.Redis redis = settings.store().redis();
    assertThat(redis.mode()).isEqualTo(RedisMode.SENTINEL);
    assertThat(redis.uris()).containsExactly("redis://a:26379", "redis://b:26379");
    assertThat(redis.master()).isEqualTo("counts");
    assertThat(redis.username()).isEqualTo("limiter");
    assertThat(redis.password().chars()).isEqualTo(" pass word ".toCharArray());
    assertThat(redis.sentinelPassword().chars()).isEqualTo("sentinel".toCharArray());
    assertThat(settings.store().commandTimeout()).isEqualTo(Duration.ofMillis(200));
    assertThat(settings.store().breakerFailures()).isEqualTo(5);
    assertThat(settings.store().breakerOpenFor()).isEqualTo(Duration.ofSeconds(2));
    assertThat(settings.requests().limitOverrides()).isFalse();
    assertThat(settings.logs().format()).isEqualTo(Settings.LogFormat.JSON);
    assertThat(settings.lifecycle().reloadInterval()).isZero();
  }

  @Test
  void read_secretFromAFile_withoutItsLastLineBreak(@TempDir Path dir) throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "t0ken\n");
    environment.put("SLIDINGWINDOW_ADMIN_TOKEN_FILE", token.toString());

    Settings settings = read();

    assertThat(settings.ports().adminToken().matches("t0ken".toCharArray())).isTrue();
    assertThat(settings.ports().adminToken().toString()).doesNotContain("t0ken");
  }

  @Test
  void read_secretAsArgumentOrProperty_refusedNamingTheVariables() {
    properties.put("slidingwindow.server.redisPassword", "hunter2");

    assertThatThrownBy(() -> read("--redis", "redis://r:6379"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-Dslidingwindow.server.redisPassword is a secret")
        .hasMessageContaining("SLIDINGWINDOW_REDIS_PASSWORD_FILE")
        .hasMessageNotContaining("hunter2");
    properties.clear();
    assertThatThrownBy(() -> read("--admin-token", "hunter2"))
        .hasMessageContaining("--admin-token is a secret")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void read_secretInTheVariableAndItsFile_refused() {
    environment.put("SLIDINGWINDOW_REDIS_PASSWORD", "a");
    environment.put("SLIDINGWINDOW_REDIS_PASSWORD_FILE", "/run/secrets/b");

    assertThatThrownBy(() -> read("--redis", "redis://r:6379"))
        .hasMessageContaining(
            "set SLIDINGWINDOW_REDIS_PASSWORD or SLIDINGWINDOW_REDIS_PASSWORD_FILE, not both");
  }

  @Test
  void read_badValuesAndConflicts_refusedNamingWhere() {
    environment.put("SLIDINGWINDOW_REDIS_TIMEOUT", "soon");
    assertThatThrownBy(() -> read("--redis", "redis://r:6379"))
        .hasMessageStartingWith("SLIDINGWINDOW_REDIS_TIMEOUT 'soon': the duration must be");
    environment.clear();
    assertThatThrownBy(() -> read("--grpc-port"))
        .hasMessageContaining("option --grpc-port needs a value");
    assertThatThrownBy(() -> read("--grpc-prot", "1"))
        .hasMessageContaining("unknown option --grpc-prot");
    assertThatThrownBy(() -> read("--redis", "redis://a:1", "--redis-cluster", "redis://b:1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("one Redis store at most");
    assertThatThrownBy(() -> read("--redis-master", "m"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("needs redisSentinel");
    assertThatThrownBy(() -> read("--tls-cert", "/c.pem"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("both a certificate and its key");
    assertThatThrownBy(() -> read("--redis-timeout", "1s"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("need a Redis store");
  }

  @Test
  void read_unknownVariable_refusedNamingItAndTheOneMeant_otherVariablesLeftAlone() {
    environment.put("SLIDINGWINDOW_REDIS_URI", "redis://r:6379");
    environment.put("SLIDINGWINDOW_GRPC_PORT", "9081");
    environment.put("JAVA_OPTS", "-Xmx1g");
    environment.put("REDIS_URI", "redis://other:6379");

    assertThatThrownBy(this::read)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "unknown environment variable SLIDINGWINDOW_REDIS_URI (did you mean"
                + " SLIDINGWINDOW_REDIS?); the service reads SLIDINGWINDOW_ADMIN_ALLOWED_HOSTS,")
        .hasMessageContaining("SLIDINGWINDOW_REDIS_PASSWORD_FILE")
        .hasMessageNotContaining("redis://r:6379");
    environment.remove("SLIDINGWINDOW_REDIS_URI");
    assertThat(read().ports().grpc()).isEqualTo(9081);
  }

  @Test
  void read_grpcBounds_fromArgumentsAndEnvironment_zeroIdleMeansNever() {
    environment.put("SLIDINGWINDOW_GRPC_MAX_CONNECTIONS", "64");
    environment.put("SLIDINGWINDOW_GRPC_PERMIT_KEEPALIVE_TIME", "10s");

    Settings settings =
        read("--grpc-max-concurrent-calls", "200", "--grpc-max-connection-idle", "0");

    assertThat(settings.grpc())
        .isEqualTo(new Settings.Grpc(64, 200, Duration.ZERO, Duration.ofSeconds(10)));
    assertThat(read("--grpc-max-connection-idle", "15m").grpc().maxConnectionIdle())
        .isEqualTo(Duration.ofMinutes(15));
    for (String never : List.of("0s", "PT0S", " 0 ", "0ms", "PT0M0S", "P0DT0S", "pt0.0s")) {
      assertThat(read("--grpc-max-connection-idle", never).grpc().maxConnectionIdle())
          .as("'%s' is a zero, so never", never)
          .isEqualTo(Duration.ZERO);
    }
  }

  @Test
  void read_grpcBounds_badValues_refusedNamingWhereAndWhy() {
    assertThatThrownBy(() -> read("--grpc-max-connections", "0"))
        .hasMessage("--grpc-max-connections '0': grpcMaxConnections must be positive, was 0");
    assertThatThrownBy(() -> read("--grpc-max-concurrent-calls", "-1"))
        .hasMessage(
            "--grpc-max-concurrent-calls '-1': grpcMaxConcurrentCalls must be positive, was -1");
    assertThatThrownBy(() -> read("--grpc-max-connection-idle", "500ms"))
        .hasMessage(
            "--grpc-max-connection-idle '500ms': grpcMaxConnectionIdle must be zero (never) or at"
                + " least 1s, was PT0.5S");
    assertThatThrownBy(() -> read("--http-read-timeout", "106752d"))
        .hasMessage(
            "--http-read-timeout '106752d': the duration is too long (at most about 292 years),"
                + " was '106752d'");
    environment.put("SLIDINGWINDOW_GRPC_PERMIT_KEEPALIVE_TIME", "0s");
    assertThatThrownBy(this::read)
        .hasMessageStartingWith("SLIDINGWINDOW_GRPC_PERMIT_KEEPALIVE_TIME '0s': the duration")
        .hasMessageContaining("must be positive");
  }

  @Test
  void read_adminAllowedHosts_lowerCased_blankAndRepeatedEntriesSkipped() {
    environment.put(
        "SLIDINGWINDOW_ADMIN_ALLOWED_HOSTS", " Admin.Example , ,proxy_1.internal,,ADMIN.example,");

    assertThat(read().ports().adminAllowedHosts())
        .containsExactly("admin.example", "proxy_1.internal");
    assertThat(read("--admin-allowed-hosts", "dash.local").ports().adminAllowedHosts())
        .containsExactly("dash.local");
    assertThat(read("--admin-allowed-hosts", " , ").ports().adminAllowedHosts()).isEmpty();
  }

  @Test
  void read_adminAllowedHosts_aPortWildcardOrUrl_refused() {
    for (String bad : List.of("admin.example:8443", "*.example", "http://admin.example", "[::1]")) {
      assertThatThrownBy(() -> read("--admin-allowed-hosts", "ok.example," + bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("--admin-allowed-hosts")
          .hasMessageContaining("without a port or wildcard")
          .hasMessageContaining(bad);
    }
  }

  @Test
  void help_listsEveryOptionWithItsVariableAndDefault() {
    String help = SettingsSources.help();

    for (Option option : Option.values()) {
      assertThat(help).contains(option.environmentVariable());
      if (!option.secret()) {
        assertThat(help).contains("--" + option.optionName() + " " + option.valueHint());
      }
      if (option.defaultText() != null) {
        assertThat(help).contains("default: " + option.defaultText());
      }
    }
    assertThat(Option.GRPC_PORT.systemProperty()).isEqualTo("slidingwindow.server.grpcPort");
    assertThat(Option.TLS_CLIENT_CA.environmentVariable()).isEqualTo("SLIDINGWINDOW_TLS_CLIENT_CA");
  }
}
