package io.slidingwindow.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The starter ships the metadata that gives every {@code slidingwindow.*} property completion and a
 * description in an IDE: the configuration processor runs on the explicit processor path.
 */
class ConfigurationMetadataTest {

  @Test
  void metadata_listsEveryGroupWithDescriptions() throws IOException {
    JsonNode metadata = read("META-INF/spring-configuration-metadata.json");

    List<String> names = new ArrayList<>();
    List<String> undescribed = new ArrayList<>();
    for (JsonNode property : metadata.get("properties")) {
      String name = property.get("name").asText();
      names.add(name);
      if (name.startsWith("slidingwindow.") && !property.hasNonNull("description")) {
        undescribed.add(name);
      }
    }
    assertThat(names)
        .contains(
            "slidingwindow.http.enabled",
            "slidingwindow.http.rules",
            "slidingwindow.redis.uri",
            "slidingwindow.aop.enabled");
    assertThat(undescribed).as("properties without a description").isEmpty();
  }

  private static JsonNode read(String resource) throws IOException {
    try (InputStream in =
        ConfigurationMetadataTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      return new ObjectMapper().readTree(in);
    }
  }
}
