package io.slidingwindow.server.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class EnvironmentNamesTest {

  private final Map<String, String> environment = new HashMap<>();

  @Test
  void check_everySettingsVariableAndSecretFile_accepted() {
    for (Option option : Option.values()) {
      environment.put(option.environmentVariable(), "x");
      if (option.secret()) {
        environment.put(option.environmentVariable() + "_FILE", "/run/secrets/x");
      }
    }
    environment.put("PATH", "/usr/bin");
    environment.put("JAVA_TOOL_OPTIONS", "-Xmx1g");
    environment.put("MY_SLIDINGWINDOW_REDIS_URI", "not ours: the prefix starts the name");

    assertThatCode(() -> EnvironmentNames.check(environment)).doesNotThrowAnyException();
    assertThat(EnvironmentNames.known())
        .contains("SLIDINGWINDOW_REDIS", "SLIDINGWINDOW_ADMIN_TOKEN_FILE")
        .doesNotContain("SLIDINGWINDOW_REDIS_FILE", "SLIDINGWINDOW_GRPC_PORT_FILE");
  }

  @Test
  void check_unknownVariable_refusedNamingItTheOneMeantAndEveryKnownOne() {
    environment.put("SLIDINGWINDOW_REDIS_URI", "redis://r:6379");

    assertThatThrownBy(() -> EnvironmentNames.check(environment))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "unknown environment variable SLIDINGWINDOW_REDIS_URI (did you mean"
                + " SLIDINGWINDOW_REDIS?); the service reads "
                + String.join(", ", EnvironmentNames.known()));
  }

  @Test
  void check_severalUnknown_namesEachInOrder_withoutAGuessWhereNoneIsClose() {
    environment.put("SLIDINGWINDOW_GPRC_PORT", "9081");
    environment.put("SLIDINGWINDOW_COLOUR", "blue");
    environment.put("SLIDINGWINDOW_CONFIG_FILE", "/etc/rules.yaml");

    assertThatThrownBy(() -> EnvironmentNames.check(environment))
        .hasMessageStartingWith(
            "unknown environment variables SLIDINGWINDOW_COLOUR,"
                + " SLIDINGWINDOW_CONFIG_FILE (did you mean SLIDINGWINDOW_CONFIG?),"
                + " SLIDINGWINDOW_GPRC_PORT (did you mean SLIDINGWINDOW_GRPC_PORT?);"
                + " the service reads ");
  }

  @Test
  void check_prefixInAnotherCase_refused() {
    environment.put("slidingwindow_redis", "redis://r:6379");

    assertThatThrownBy(() -> EnvironmentNames.check(environment))
        .hasMessageStartingWith(
            "unknown environment variable slidingwindow_redis (did you mean SLIDINGWINDOW_REDIS?)");
  }

  @Test
  void closest_typoExtensionOrTruncation_theKnownNameMeant() {
    Set<String> known = EnvironmentNames.known();

    assertThat(EnvironmentNames.closest("SLIDINGWINDOW_REDSI", known))
        .isEqualTo("SLIDINGWINDOW_REDIS");
    assertThat(EnvironmentNames.closest("SLIDINGWINDOW_HOTS", known))
        .isEqualTo("SLIDINGWINDOW_HOST");
    assertThat(EnvironmentNames.closest("SLIDINGWINDOW_REDIS_SENTINELS", known))
        .isEqualTo("SLIDINGWINDOW_REDIS_SENTINEL");
    assertThat(EnvironmentNames.closest("SLIDINGWINDOW_REDIS_PASSWORD_PATH", known))
        .isEqualTo("SLIDINGWINDOW_REDIS_PASSWORD");
    assertThat(EnvironmentNames.closest("SLIDINGWINDOW_DRAIN", known))
        .isEqualTo("SLIDINGWINDOW_DRAIN_TIMEOUT");
    assertThat(EnvironmentNames.closest("SLIDINGWINDOW_Log_Level", known))
        .isEqualTo("SLIDINGWINDOW_LOG_LEVEL");
    assertThat(EnvironmentNames.closest("SLIDINGWINDOW_", known)).isNull();
    assertThat(EnvironmentNames.closest("SLIDINGWINDOW_THREADS", known)).isNull();
  }

  @Test
  void check_kubernetesServiceVariables_acceptedWithTheirServiceHostAndPort() {
    // What a pod is given for the Services slidingwindow-server and slidingwindow (ports grpc
    // 8081, http 8080), and for one named slidingwindow-port-9 (a "port" in its name).
    for (String service : Set.of("SLIDINGWINDOW_SERVER", "SLIDINGWINDOW", "SLIDINGWINDOW_PORT_9")) {
      environment.put(service + "_SERVICE_HOST", "10.96.0.10");
      environment.put(service + "_SERVICE_PORT", "8081");
      environment.put(service + "_SERVICE_PORT_GRPC", "8081");
      environment.put(service + "_SERVICE_PORT_HTTP", "8080");
      environment.put(service + "_PORT", "tcp://10.96.0.10:8081");
      for (String port : Set.of("8081", "8080")) {
        environment.put(service + "_PORT_" + port + "_TCP", "tcp://10.96.0.10:" + port);
        environment.put(service + "_PORT_" + port + "_TCP_PROTO", "tcp");
        environment.put(service + "_PORT_" + port + "_TCP_PORT", port);
        environment.put(service + "_PORT_" + port + "_TCP_ADDR", "10.96.0.10");
      }
    }

    assertThatCode(() -> EnvironmentNames.check(environment)).doesNotThrowAnyException();
  }

  @Test
  void check_namesLikeAServicesVariables_withoutTheService_refused() {
    environment.put("SLIDINGWINDOW_GPRC_PORT", "9081");
    environment.put("SLIDINGWINDOW_METRICS_SERVICE_PORT", "6070");
    environment.put("SLIDINGWINDOW_ADMIN_PORT_6070_TCP_PORT", "6070");

    assertThatThrownBy(() -> EnvironmentNames.check(environment))
        .hasMessageStartingWith(
            "unknown environment variables SLIDINGWINDOW_ADMIN_PORT_6070_TCP_PORT (did you mean"
                + " SLIDINGWINDOW_ADMIN_PORT?), SLIDINGWINDOW_GPRC_PORT (did you mean"
                + " SLIDINGWINDOW_GRPC_PORT?), SLIDINGWINDOW_METRICS_SERVICE_PORT;");
  }

  @Test
  void checkProperties_everyOptionsPropertyAndOthers_accepted() {
    Set<String> names = new TreeSet<>(Set.of("java.home", "user.dir", "slidingwindow"));
    for (Option option : Option.values()) {
      names.add(option.systemProperty());
    }

    assertThatCode(() -> EnvironmentNames.checkProperties(names)).doesNotThrowAnyException();
  }

  @Test
  void checkProperties_unknownProperty_refusedNamingItAndTheOneMeant() {
    assertThatThrownBy(
            () ->
                EnvironmentNames.checkProperties(
                    Set.of("java.home", "slidingwindow.server.redisUri")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "unknown system property -Dslidingwindow.server.redisUri (did you mean"
                + " -Dslidingwindow.server.redis?); the service reads ")
        .hasMessageContaining("slidingwindow.server.grpcPort")
        .hasMessageNotContaining("java.home");
    assertThatThrownBy(
            () ->
                EnvironmentNames.checkProperties(
                    Set.of("slidingwindow.server.GrpcPort", "Slidingwindow.Server.grpcprot")))
        .hasMessageStartingWith(
            "unknown system properties -DSlidingwindow.Server.grpcprot (did you mean"
                + " -Dslidingwindow.server.grpcPort?), -Dslidingwindow.server.GrpcPort (did you"
                + " mean -Dslidingwindow.server.grpcPort?)");
  }

  @Test
  void snake_camelAndDottedNames_asVariableSuffixes() {
    assertThat(EnvironmentNames.snake("redisBreaker")).isEqualTo("REDIS_BREAKER");
    assertThat(EnvironmentNames.snake("redis.breaker")).isEqualTo("REDIS_BREAKER");
    assertThat(EnvironmentNames.snake("GrpcPort")).isEqualTo("GRPC_PORT");
    assertThat(EnvironmentNames.snake("REDIS.BREAKER")).isEqualTo("REDIS_BREAKER");
    assertThat(EnvironmentNames.snake("redisURI")).isEqualTo("REDIS_URI");
  }

  @Test
  void checkProperties_secretsFile_pointedAtItsVariable() {
    assertThatThrownBy(
            () -> EnvironmentNames.checkProperties(Set.of("slidingwindow.server.adminTokenFile")))
        .hasMessageStartingWith(
            "unknown system property -Dslidingwindow.server.adminTokenFile (did you mean"
                + " SLIDINGWINDOW_ADMIN_TOKEN_FILE? a secret is read from the environment only)");
    assertThatThrownBy(
            () -> EnvironmentNames.checkProperties(Set.of("SLIDINGWINDOW.SERVER.GRPC_PORT")))
        .hasMessageStartingWith(
            "unknown system property -DSLIDINGWINDOW.SERVER.GRPC_PORT (did you mean"
                + " -Dslidingwindow.server.grpcPort?)");
  }
}
