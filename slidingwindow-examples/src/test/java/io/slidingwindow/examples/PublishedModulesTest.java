package io.slidingwindow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * What a release deploys: every module of the build is published unless it sets {@code
 * maven.deploy.skip}, the BOM manages exactly the published ones, and the examples, benchmarks and
 * test-only modules are never published. Read from the poms, as Maven reads them.
 */
class PublishedModulesTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static final Set<String> NEVER_PUBLISHED =
      Set.of(
          "slidingwindow-examples",
          "slidingwindow-examples-gateway",
          "slidingwindow-examples-grpc",
          "slidingwindow-examples-jaxrs",
          "slidingwindow-benchmarks",
          "slidingwindow-redis-tests",
          "slidingwindow-spring-boot4-tests");

  @Test
  void bom_managesEveryPublishedModule_andNothingElse() throws Exception {
    Set<String> published = new TreeSet<>();
    for (String module : texts(pom(ROOT), "module")) {
      if (!module.equals("slidingwindow-bom") && !skipsDeploy(module)) {
        published.add(module);
      }
    }
    Set<String> managed = new TreeSet<>();
    Document bom = pom(ROOT.resolve("slidingwindow-bom"));
    NodeList deps = bom.getElementsByTagName("dependency");
    for (int i = 0; i < deps.getLength(); i++) {
      Element dep = (Element) deps.item(i);
      managed.add(dep.getElementsByTagName("artifactId").item(0).getTextContent().trim());
      assertThat(dep.getElementsByTagName("version").item(0).getTextContent().trim())
          .isEqualTo("${project.version}");
    }
    assertThat(managed).isEqualTo(published);
    assertThat(published).contains("slidingwindow-core", "slidingwindow-spring-boot-starter");
  }

  @Test
  void examplesBenchmarksAndTestModules_skipDeploy() throws Exception {
    assertThat(texts(pom(ROOT), "module")).containsAll(NEVER_PUBLISHED);
    for (String module : NEVER_PUBLISHED) {
      assertThat(skipsDeploy(module)).as(module).isTrue();
    }
  }

  @Test
  void bom_hasTheVersionAndMetadataOfTheParent() throws Exception {
    Document parent = pom(ROOT);
    Document bom = pom(ROOT.resolve("slidingwindow-bom"));
    for (String tag : List.of("version", "url", "inceptionYear")) {
      assertThat(first(bom, tag)).as(tag).isEqualTo(first(parent, tag));
    }
    for (String tag : List.of("licenses", "developers", "scm")) {
      assertThat(bom.getElementsByTagName(tag).item(0).getTextContent().replaceAll("\\s+", ""))
          .as(tag)
          .isEqualTo(
              parent.getElementsByTagName(tag).item(0).getTextContent().replaceAll("\\s+", ""));
    }
    assertThat(first(bom, "project.build.outputTimestamp"))
        .isEqualTo(first(parent, "project.build.outputTimestamp"));
  }

  private static boolean skipsDeploy(String module) throws Exception {
    return texts(pom(ROOT.resolve(module)), "maven.deploy.skip").contains("true");
  }

  private static String first(Document pom, String tag) {
    // The project's own element, not one of a dependency or plugin.
    NodeList nodes = pom.getElementsByTagName(tag);
    for (int i = 0; i < nodes.getLength(); i++) {
      String parent = nodes.item(i).getParentNode().getNodeName();
      if (parent.equals("project") || parent.equals("properties")) {
        return nodes.item(i).getTextContent().trim();
      }
    }
    throw new AssertionError("no <" + tag + "> of the project");
  }

  private static List<String> texts(Document pom, String tag) {
    List<String> texts = new ArrayList<>();
    NodeList nodes = pom.getElementsByTagName(tag);
    for (int i = 0; i < nodes.getLength(); i++) {
      texts.add(nodes.item(i).getTextContent().trim());
    }
    return texts;
  }

  private static Document pom(Path module) throws Exception {
    Path pom = module.resolve("pom.xml");
    assertThat(pom).exists();
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return factory.newDocumentBuilder().parse(Files.newInputStream(pom));
  }
}
