package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.servlet.RateLimitEnforcer;
import io.slidingwindow.spring.boot.redis.SlidingWindowRedisProperties;
import io.slidingwindow.webflux.ReactiveRateLimitFilter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.data.redis.RedisProperties;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * Every YAML block of docs/spring.md binds without a property the starter (or Spring Boot, for
 * {@code spring.data.redis}) does not know, and its rules start a servlet and a reactive
 * application: what a user pastes works.
 */
class SpringDocsTest {

  private static final Path PAGE = Path.of("..", "docs", "spring.md");

  private static List<String> yamlBlocks() throws IOException {
    String page = Files.readString(PAGE, StandardCharsets.UTF_8);
    Matcher blocks = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL).matcher(page);
    List<String> yaml = new ArrayList<>();
    while (blocks.find()) {
      yaml.add(blocks.group(1));
    }
    return yaml;
  }

  private static List<PropertySource<?>> load(String yaml) throws IOException {
    return new YamlPropertySourceLoader()
        .load("docs", new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void yamlBlocks_useOnlyKnownPropertiesAndStartBothStacks() throws IOException {
    List<String> blocks = yamlBlocks();
    assertThat(blocks).hasSizeGreaterThanOrEqualTo(5);
    int rulesStarted = 0;
    for (String yaml : blocks) {
      List<PropertySource<?>> sources = load(yaml);
      Binder binder = new Binder(ConfigurationPropertySources.from(sources));
      NoUnboundElementsBindHandler strict = new NoUnboundElementsBindHandler(BindHandler.DEFAULT);
      SlidingWindowHttpProperties http = new SlidingWindowHttpProperties();
      binder.bind(SlidingWindowHttpProperties.PREFIX, Bindable.ofInstance(http), strict);
      binder.bind(
          SlidingWindowRedisProperties.PREFIX,
          Bindable.ofInstance(new SlidingWindowRedisProperties()),
          new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
      binder.bind(
          "spring.data.redis",
          Bindable.ofInstance(new RedisProperties()),
          new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
      if (http.getRules().isEmpty()) {
        continue;
      }
      rulesStarted++;
      String[] pairs = pairsOf(sources);
      int rules = http.getRules().size();
      new WebApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(SlidingWindowAutoConfiguration.class))
          .withPropertyValues(pairs)
          .run(c -> assertThat(c.getBean(RateLimitEnforcer.class).rules()).as(yaml).hasSize(rules));
      new ReactiveWebApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(SlidingWindowReactiveAutoConfiguration.class))
          .withPropertyValues(pairs)
          .run(c -> assertThat(c.getBean(ReactiveRateLimitFilter.class).rules()).hasSize(rules));
    }
    assertThat(rulesStarted).isGreaterThanOrEqualTo(3);
  }

  @Test
  void yamlBlock_withAMisspelledProperty_failsTheBinding() throws IOException {
    List<PropertySource<?>> sources =
        load("slidingwindow:\n  http:\n    rules:\n      a:\n        skip-conditon: 'true'\n");
    Binder binder = new Binder(ConfigurationPropertySources.from(sources));

    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                binder.bind(
                    SlidingWindowHttpProperties.PREFIX,
                    Bindable.ofInstance(new SlidingWindowHttpProperties()),
                    new NoUnboundElementsBindHandler(BindHandler.DEFAULT)))
        .hasStackTraceContaining("skip-conditon");
  }

  private static String[] pairsOf(List<PropertySource<?>> sources) {
    List<String> pairs = new ArrayList<>();
    for (PropertySource<?> source : sources) {
      if (source.getSource() instanceof java.util.Map<?, ?> map) {
        map.forEach((name, value) -> pairs.add(name + "=" + source.getProperty((String) name)));
      }
    }
    return pairs.toArray(new String[0]);
  }
}
