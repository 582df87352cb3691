package io.slidingwindow.server.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.slidingwindow.server.ConfigException;
import io.slidingwindow.server.config.ConfigParser;
import io.slidingwindow.server.settings.EnvironmentNames;
import io.slidingwindow.server.settings.Option;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The manifests in {@code deploy/kubernetes}, read into the Kubernetes API's own types (fabric8's
 * model, generated from the API's schemas), refusing any field those types do not know; then the
 * manifests checked against each other and against the service.
 */
class KubernetesManifestsTest {

  static final Path DIR = Path.of("..", "deploy", "kubernetes");

  private record Kind(String apiVersion, Class<? extends HasMetadata> type) {}

  private static final Map<String, Kind> KINDS =
      Map.of(
          "Deployment", new Kind("apps/v1", Deployment.class),
          "Service", new Kind("v1", Service.class),
          "ConfigMap", new Kind("v1", ConfigMap.class),
          "Secret", new Kind("v1", Secret.class),
          "PodDisruptionBudget", new Kind("policy/v1", PodDisruptionBudget.class));

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Map<Class<?>, HasMetadata> LOADED = new HashMap<>();

  @BeforeAll
  static void load() throws IOException {
    try (Stream<Path> files = Files.list(DIR)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        JsonNode tree = YAML.readTree(file.toFile());
        String kind = tree.path("kind").asText();
        Kind expected = KINDS.get(kind);
        assertThat(expected).as("%s: kind %s", file, kind).isNotNull();
        assertThat(tree.path("apiVersion").asText())
            .as("%s apiVersion", file)
            .isEqualTo(expected.apiVersion());
        HasMetadata resource = YAML.treeToValue(tree, expected.type());
        List<String> unknown = new ArrayList<>();
        unknownFields(resource, file.getFileName().toString(), unknown);
        assertThat(unknown).as("fields the Kubernetes API does not know").isEmpty();
        assertThat(LOADED.put(expected.type(), resource)).as("one %s", kind).isNull();
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static <T extends HasMetadata> T loaded(Class<T> type) {
    return (T) LOADED.get(type);
  }

  @Test
  void manifests_oneOfEachKind_allOfTheService() {
    assertThat(LOADED.keySet())
        .containsExactlyInAnyOrderElementsOf(
            KINDS.values().stream().map(Kind::type).collect(Collectors.toSet()));
    for (HasMetadata resource : LOADED.values()) {
      assertThat(resource.getMetadata().getLabels())
          .containsEntry("app.kubernetes.io/name", "slidingwindow-server");
    }
  }

  @Test
  void deployment_twoNonRootReadOnlyReplicas_withGrpcReadinessLivenessAndResources() {
    Deployment deployment = loaded(Deployment.class);
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    Container container = pod.getContainers().get(0);

    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(65532L);
    assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(container.getReadinessProbe().getGrpc().getPort()).isEqualTo(8081);
    assertThat(container.getReadinessProbe().getGrpc().getService()).isEmpty();
    assertThat(container.getLivenessProbe().getGrpc().getService()).isEqualTo("liveness");
    assertThat(container.getResources().getRequests()).containsKeys("cpu", "memory");
    assertThat(container.getResources().getLimits()).containsKey("memory");
    assertThat(container.getPorts())
        .extracting(ContainerPort::getContainerPort)
        .containsExactlyInAnyOrder(8080, 8081, 6070);
    assertThat(pod.getVolumes())
        .anySatisfy(v -> assertThat(v.getEmptyDir()).as("a writable /tmp").isNotNull());
  }

  /**
   * A stop first waits for callers to drop the pod from their endpoints, then drains the calls in
   * flight; both fit in the grace period, so no call is cut off by SIGKILL.
   */
  @Test
  void deployment_stopping_waitsForEndpointsThenDrainsWithinTheGracePeriod() {
    PodSpec pod = loaded(Deployment.class).getSpec().getTemplate().getSpec();
    Container container = pod.getContainers().get(0);
    String drainVariable = Option.DRAIN_TIMEOUT.environmentVariable();
    String drain =
        container.getEnv().stream()
            .filter(e -> e.getName().equals(drainVariable))
            .map(EnvVar::getValue)
            .findFirst()
            .orElse(Option.DRAIN_TIMEOUT.defaultText());

    Long wait = container.getLifecycle().getPreStop().getSleep().getSeconds();

    assertThat(wait).as("seconds the pod keeps serving after it is taken out").isBetween(1L, 30L);
    assertThat(wait + Duration.parse("PT" + drain.toUpperCase(Locale.ROOT)).toSeconds())
        .as("preStop wait and drain timeout (%s)", drain)
        .isLessThan(pod.getTerminationGracePeriodSeconds());
  }

  @Test
  void deployment_environment_namesOnlyTheServicesVariables_andSecretsAsFiles() {
    Container container =
        loaded(Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0);
    Set<String> known = new java.util.HashSet<>();
    for (Option option : Option.values()) {
      known.add(option.environmentVariable());
      if (option.secret()) {
        known.add(option.environmentVariable() + "_FILE");
      }
    }
    Set<String> secrets =
        Stream.of(Option.values())
            .filter(Option::secret)
            .map(Option::environmentVariable)
            .collect(Collectors.toSet());

    for (EnvVar variable : container.getEnv()) {
      assertThat(known).as("a variable the service reads").contains(variable.getName());
      assertThat(secrets).as("secrets come from files").doesNotContain(variable.getName());
    }
  }

  @Test
  void deployment_podEnvironment_withTheServicesLinksAndTheImagesVariables_passesTheNameCheck()
      throws IOException {
    Map<String, String> environment = new HashMap<>();
    for (EnvVar variable :
        loaded(Deployment.class)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0)
            .getEnv()) {
      environment.put(variable.getName(), "x");
    }
    // What Kubernetes adds for each Service of the namespace (enableServiceLinks is true by
    // default)
    Service service = loaded(Service.class);
    String prefix = service.getMetadata().getName().toUpperCase(Locale.ROOT).replace('-', '_');
    environment.put(prefix + "_SERVICE_HOST", "10.96.0.10");
    environment.put(prefix + "_SERVICE_PORT", "1");
    environment.put(prefix + "_PORT", "tcp://10.96.0.10:1");
    for (ServicePort port : service.getSpec().getPorts()) {
      String name = port.getName().toUpperCase(Locale.ROOT).replace('-', '_');
      String tcp = prefix + "_PORT_" + port.getPort() + "_TCP";
      environment.put(prefix + "_SERVICE_PORT_" + name, "1");
      environment.put(tcp, "tcp://10.96.0.10:1");
      environment.put(tcp + "_PROTO", "tcp");
      environment.put(tcp + "_PORT", "1");
      environment.put(tcp + "_ADDR", "10.96.0.10");
    }
    // And what the image sets
    java.util.regex.Matcher image =
        java.util.regex.Pattern.compile("\\b(SLIDINGWINDOW_[A-Z0-9_]+)=")
            .matcher(Files.readString(Path.of("container", "Containerfile")));
    while (image.find()) {
      environment.put(image.group(1), "x");
    }
    assertThat(environment).containsKeys("SLIDINGWINDOW_HOST", "SLIDINGWINDOW_SERVER_SERVICE_HOST");

    EnvironmentNames.check(environment);
  }

  @Test
  void deployment_mountsTheConfigMapAndSecret_andReadsSecretFilesThatExist() {
    Deployment deployment = loaded(Deployment.class);
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    Container container = pod.getContainers().get(0);
    Secret secret = loaded(Secret.class);

    assertThat(pod.getVolumes())
        .anySatisfy(
            v ->
                assertThat(v.getConfigMap().getName())
                    .isEqualTo(loaded(ConfigMap.class).getMetadata().getName()));
    String secretMount =
        pod.getVolumes().stream()
            .filter(v -> v.getSecret() != null)
            .peek(
                v ->
                    assertThat(v.getSecret().getSecretName())
                        .isEqualTo(secret.getMetadata().getName()))
            .map(
                v ->
                    container.getVolumeMounts().stream()
                        .filter(m -> m.getName().equals(v.getName()))
                        .findFirst()
                        .orElseThrow()
                        .getMountPath())
            .findFirst()
            .orElseThrow();
    for (EnvVar variable : container.getEnv()) {
      if (variable.getName().endsWith("_FILE")) {
        assertThat(variable.getValue()).startsWith(secretMount + "/");
        assertThat(secret.getStringData())
            .containsKey(variable.getValue().substring(secretMount.length() + 1));
      }
    }
    Map<String, String> env =
        container.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
    assertThat(container.getVolumeMounts())
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo(env.get("SLIDINGWINDOW_CONFIG")));
  }

  @Test
  void serviceAndBudget_selectThePods_andPortsNameTheContainersPorts() {
    Deployment deployment = loaded(Deployment.class);
    Map<String, String> podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
    Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    Service service = loaded(Service.class);
    PodDisruptionBudget budget = loaded(PodDisruptionBudget.class);

    assertThat(podLabels).containsAllEntriesOf(service.getSpec().getSelector());
    assertThat(podLabels).containsAllEntriesOf(budget.getSpec().getSelector().getMatchLabels());
    assertThat(budget.getSpec().getMinAvailable().getIntVal()).isEqualTo(1);
    Map<String, Integer> named =
        container.getPorts().stream()
            .collect(Collectors.toMap(ContainerPort::getName, ContainerPort::getContainerPort));
    for (ServicePort port : service.getSpec().getPorts()) {
      assertThat(named).containsEntry(port.getTargetPort().getStrVal(), port.getPort());
    }
  }

  @Test
  void configMap_rules_parseAsTheServicesConfiguration() throws ConfigException {
    Map<String, String> data = loaded(ConfigMap.class).getData();

    assertThat(data).isNotEmpty();
    assertThat(
            ConfigParser.parse(
                    data.entrySet().stream()
                        .map(e -> new ConfigParser.Source(e.getKey(), e.getValue()))
                        .toList())
                .rules())
        .isNotEmpty();
  }

  /** Adds to {@code unknown} the path of every field of {@code value} its type did not know. */
  static void unknownFields(Object value, String path, List<String> unknown) {
    if (value == null) {
      return;
    }
    if (value instanceof Collection<?> items) {
      int i = 0;
      for (Object item : items) {
        unknownFields(item, path + "[" + i++ + "]", unknown);
      }
      return;
    }
    if (value instanceof Map<?, ?> map) {
      map.forEach((key, item) -> unknownFields(item, path + "." + key, unknown));
      return;
    }
    if (!value.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
      return;
    }
    for (Method method : value.getClass().getMethods()) {
      if (method.getParameterCount() != 0
          || Modifier.isStatic(method.getModifiers())
          || !method.getName().startsWith("get")
          || method.getName().equals("getClass")) {
        continue;
      }
      Object field;
      try {
        field = method.invoke(value);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(method.toString(), e);
      }
      if (method.getName().equals("getAdditionalProperties")) {
        if (field instanceof Map<?, ?> extra && !extra.isEmpty()) {
          unknown.add(path + ": " + extra.keySet());
        }
      } else {
        unknownFields(field, path + "." + method.getName().substring(3), unknown);
      }
    }
  }
}
