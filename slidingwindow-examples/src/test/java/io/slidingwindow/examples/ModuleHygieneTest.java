package io.slidingwindow.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The house rules every module of the repository keeps, read from its sources, poms and jars: each
 * main package has a {@code package-info.java} saying what it holds; no main package holds more
 * than {@value #MAX_PACKAGE_FILES} Java files and no main file more than {@value #MAX_FILE_LINES}
 * lines; no package is in two modules; each module names itself for the module path ({@code
 * Automatic-Module-Name}, from its {@code automatic-module-name} property, unique and a valid
 * module name) and every jar built so far carries that name. The examples run after the published
 * modules in the build, so their jars are there to be read in a full {@code verify}; a jar not
 * built yet is not read.
 */
class ModuleHygieneTest {

  static final int MAX_PACKAGE_FILES = 25;
  static final int MAX_FILE_LINES = 450;

  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  @Test
  void repository_everyModule_keepsTheHouseRules() {
    List<Path> modules = modules(ROOT);
    assertThat(modules).as("the modules of %s", ROOT.resolve("pom.xml")).hasSizeGreaterThan(15);

    List<String> problems = new ArrayList<>();
    for (Path module : modules) {
      problems.addAll(packagesWithoutInfo(module));
      problems.addAll(oversized(module));
    }
    problems.addAll(moduleNames(ROOT, modules));
    problems.addAll(splitPackages(modules));
    assertThat(problems).isEmpty();
  }

  @Test
  void parentPom_putsTheModuleNameIntoEveryJarsManifest() {
    Element jarPlugin = plugin(read(ROOT.resolve("pom.xml")), "maven-jar-plugin");

    assertThat(jarPlugin.getElementsByTagName("Automatic-Module-Name").item(0).getTextContent())
        .isEqualTo("${automatic-module-name}");
  }

  @Test
  void jarsBuiltSoFar_carryTheirModulesName() {
    int read = 0;
    for (Path module : modules(ROOT)) {
      Optional<Path> jar = jarOf(module);
      if (jar.isEmpty() || !Files.isDirectory(module.resolve("src/main"))) {
        continue;
      }
      read++;
      String expected = moduleNameProperty(module).orElseThrow();
      assertThat(manifestName(jar.get())).as("%s", jar.get()).contains(expected);
      Set<ModuleReference> found = ModuleFinder.of(jar.get()).findAll();
      assertThat(found)
          .as("%s on the module path", jar.get())
          .extracting(reference -> reference.descriptor().name())
          .containsExactly(expected);
    }
    // A full verify has built the jars of the modules before this one; a build that stops at test
    // has built none, and then there is nothing to read.
    assumeTrue(read > 0, "no module's jar has been built yet");
  }

  @Test
  void packagesWithoutInfo_packageWithoutOne_isReported(@TempDir Path module) throws IOException {
    write(module.resolve("src/main/java/a/b/Kept.java"), "package a.b; class Kept {}");
    write(module.resolve("src/main/java/a/b/package-info.java"), "package a.b;");
    write(module.resolve("src/main/java/a/c/Forgotten.java"), "package a.c; class Forgotten {}");

    assertThat(packagesWithoutInfo(module))
        .containsExactly(
            module.resolve("src/main/java/a/c") + ": a main package without package-info.java");
  }

  @Test
  void oversized_packageOrFileOverTheBound_isReported(@TempDir Path module) throws IOException {
    for (int i = 0; i <= MAX_PACKAGE_FILES; i++) {
      write(module.resolve("src/main/java/big/C" + i + ".java"), "package big;");
    }
    write(
        module.resolve("src/main/java/small/Long.java"),
        "package small;\n".repeat(MAX_FILE_LINES + 1));
    write(
        module.resolve("src/main/java/small/Short.java"),
        "package small;\n".repeat(MAX_FILE_LINES));

    assertThat(oversized(module))
        .containsExactlyInAnyOrder(
            module.resolve("src/main/java/big") + ": 26 files in one main package",
            module.resolve("src/main/java/small/Long.java") + ": 451 lines in one main file");
  }

  @Test
  void moduleNames_missingInvalidOrTakenInAModuleOfMainCode_areReported(@TempDir Path root)
      throws IOException {
    for (String[] module :
        new String[][] {
          {"a", "io.example.a"}, {"b", null}, {"c", "io.example.a"}, {"d", "io.example-d"}
        }) {
      Files.createDirectories(root.resolve(module[0]).resolve("src/main/java"));
      write(
          root.resolve(module[0]).resolve("pom.xml"),
          "<project><artifactId>"
              + module[0]
              + "</artifactId>"
              + (module[1] == null
                  ? ""
                  : "<properties><automatic-module-name>"
                      + module[1]
                      + "</automatic-module-name></properties>")
              + "</project>");
    }

    write(root.resolve("e/pom.xml"), "<project><artifactId>e</artifactId></project>");
    Files.createDirectories(root.resolve("e/src/test/java"));

    List<String> problems =
        moduleNames(root, Stream.of("a", "b", "c", "d", "e").map(root::resolve).toList());

    assertThat(problems)
        .containsExactly(
            root.resolve("b") + ": no automatic-module-name property in its pom.xml",
            root.resolve("c")
                + ": automatic-module-name io.example.a is also "
                + root.resolve("a")
                + "'s",
            root.resolve("d") + ": automatic-module-name io.example-d is no module name");
  }

  @Test
  void splitPackages_onePackageInTwoModules_isReported(@TempDir Path root) throws IOException {
    write(root.resolve("a/src/main/java/x/y/One.java"), "package x.y;");
    write(root.resolve("a/src/main/java/x/z/Two.java"), "package x.z;");
    write(root.resolve("b/src/main/java/x/y/Three.java"), "package x.y;");

    assertThat(splitPackages(List.of(root.resolve("a"), root.resolve("b"))))
        .containsExactly(root.resolve("b") + ": package x/y is also in " + root.resolve("a"));
  }

  /** The modules of the parent pom, in order. */
  static List<Path> modules(Path root) {
    NodeList names = read(root.resolve("pom.xml")).getElementsByTagName("module");
    List<Path> modules = new ArrayList<>();
    for (int i = 0; i < names.getLength(); i++) {
      modules.add(root.resolve(names.item(i).getTextContent().trim()));
    }
    return modules;
  }

  /** One line for each main package of {@code module} that has no {@code package-info.java}. */
  static List<String> packagesWithoutInfo(Path module) {
    List<String> problems = new ArrayList<>();
    for (Map.Entry<Path, List<Path>> p : mainPackages(module).entrySet()) {
      if (!Files.exists(p.getKey().resolve("package-info.java"))) {
        problems.add(p.getKey() + ": a main package without package-info.java");
      }
    }
    return problems;
  }

  /** One line for each main package of too many files, and each main file of too many lines. */
  static List<String> oversized(Path module) {
    List<String> problems = new ArrayList<>();
    for (Map.Entry<Path, List<Path>> p : mainPackages(module).entrySet()) {
      if (p.getValue().size() > MAX_PACKAGE_FILES) {
        problems.add(p.getKey() + ": " + p.getValue().size() + " files in one main package");
      }
      for (Path file : p.getValue()) {
        long lines = lines(file);
        if (lines > MAX_FILE_LINES) {
          problems.add(file + ": " + lines + " lines in one main file");
        }
      }
    }
    return problems;
  }

  /**
   * One line for each module of main code without an {@code automatic-module-name} property, with
   * one that is not a module name, or with one another module has. A module of tests only (no
   * {@code src/main}) builds no jar to name.
   */
  static List<String> moduleNames(Path root, List<Path> modules) {
    List<String> problems = new ArrayList<>();
    Map<String, Path> owners = new HashMap<>();
    for (Path module : modules) {
      if (!Files.isDirectory(module.resolve("src/main"))) {
        continue;
      }
      Optional<String> name = moduleNameProperty(module);
      if (name.isEmpty()) {
        problems.add(module + ": no automatic-module-name property in its pom.xml");
        continue;
      }
      try {
        ModuleDescriptor.newModule(name.get());
      } catch (IllegalArgumentException e) {
        problems.add(module + ": automatic-module-name " + name.get() + " is no module name");
        continue;
      }
      Path other = owners.putIfAbsent(name.get(), module);
      if (other != null) {
        problems.add(module + ": automatic-module-name " + name.get() + " is also " + other + "'s");
      }
    }
    return problems;
  }

  /**
   * One line for each main package that two modules hold: on the module path a package belongs to
   * one module only.
   */
  static List<String> splitPackages(List<Path> modules) {
    List<String> problems = new ArrayList<>();
    Map<Path, Path> owners = new HashMap<>();
    for (Path module : modules) {
      Path sources = module.resolve("src/main/java");
      for (Path directory : mainPackages(module).keySet()) {
        Path name = sources.relativize(directory);
        Path other = owners.putIfAbsent(name, module);
        if (other != null) {
          problems.add(module + ": package " + name + " is also in " + other);
        }
      }
    }
    return problems;
  }

  /** The main Java source directories of {@code module} that hold Java files, with those files. */
  private static Map<Path, List<Path>> mainPackages(Path module) {
    Path sources = module.resolve("src/main/java");
    Map<Path, List<Path>> packages = new TreeMap<>();
    if (!Files.isDirectory(sources)) {
      return packages;
    }
    try (Stream<Path> files = Files.walk(sources)) {
      files
          .filter(file -> file.toString().endsWith(".java"))
          .forEach(
              file -> packages.computeIfAbsent(file.getParent(), k -> new ArrayList<>()).add(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return packages;
  }

  private static Optional<String> moduleNameProperty(Path module) {
    NodeList names = read(module.resolve("pom.xml")).getElementsByTagName("automatic-module-name");
    return names.getLength() == 0
        ? Optional.empty()
        : Optional.of(names.item(0).getTextContent().trim());
  }

  /** The module's jar, {@code target/ARTIFACT-VERSION.jar}, if it has been built. */
  private static Optional<Path> jarOf(Path module) {
    Document pom = read(module.resolve("pom.xml"));
    String artifact = directChild(pom.getDocumentElement(), "artifactId");
    Element parent = (Element) pom.getElementsByTagName("parent").item(0);
    String version =
        parent == null
            ? directChild(pom.getDocumentElement(), "version")
            : directChild(parent, "version");
    Path jar = module.resolve("target").resolve(artifact + "-" + version + ".jar");
    return Files.isRegularFile(jar) ? Optional.of(jar) : Optional.empty();
  }

  private static Optional<String> manifestName(Path jar) {
    try (JarFile file = new JarFile(jar.toFile())) {
      return Optional.ofNullable(file.getManifest())
          .map(manifest -> manifest.getMainAttributes().getValue("Automatic-Module-Name"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Element plugin(Document pom, String artifactId) {
    NodeList plugins = pom.getElementsByTagName("plugin");
    for (int i = 0; i < plugins.getLength(); i++) {
      Element plugin = (Element) plugins.item(i);
      if (artifactId.equals(directChild(plugin, "artifactId"))) {
        return plugin;
      }
    }
    throw new AssertionError("no " + artifactId + " in the parent pom");
  }

  private static String directChild(Element element, String name) {
    NodeList children = element.getChildNodes();
    for (int i = 0; i < children.getLength(); i++) {
      if (children.item(i) instanceof Element child && child.getTagName().equals(name)) {
        return child.getTextContent().trim();
      }
    }
    return null;
  }

  private static Document read(Path pom) {
    try (InputStream in = Files.newInputStream(pom)) {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      return factory.newDocumentBuilder().parse(in);
    } catch (Exception e) {
      throw new IllegalStateException("cannot read " + pom, e);
    }
  }

  private static long lines(Path file) {
    try (Stream<String> lines = Files.lines(file)) {
      return lines.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
  }
}
