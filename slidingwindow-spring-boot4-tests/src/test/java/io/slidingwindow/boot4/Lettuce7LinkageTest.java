package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.LettuceVersion;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Lettuce class, method and field that slidingwindow-redis-lettuce's compiled classes (built
 * against Lettuce 6.4) name exists on Lettuce 7 with the same descriptor, so that no call fails
 * there with {@link NoSuchMethodError} or {@link NoClassDefFoundError}, on paths a test may never
 * take. The references are read from the class files' constant pools as the JDK's javap prints
 * them, and each is looked up by reflection on the owner, its superclasses and its interfaces.
 */
class Lettuce7LinkageTest {

  private static final String PACKAGE = "io/slidingwindow/redis/lettuce/";

  /** A constant-pool line of {@code javap -v}: kind and the resolved reference in the comment. */
  private static final Pattern ENTRY =
      Pattern.compile(
          "^\\s*#\\d+ = (Class|Methodref|InterfaceMethodref|Fieldref)\\s+\\S+\\s+// (.+)$");

  @Test
  void everyLettuceReference_resolvesOnLettuce7() throws Exception {
    assertThat(LettuceVersion.getVersion()).startsWith("7.");
    Set<String> references = lettuceReferences();
    assertThat(references)
        .as("references read from the module's classes")
        .hasSizeGreaterThan(30)
        .contains(
            "Methodref io/lettuce/core/RedisURI.create:(Ljava/lang/String;)Lio/lettuce/core/RedisURI;")
        .contains("Class io/lettuce/core/cluster/RedisClusterClient");
    List<String> missing = new ArrayList<>();
    for (String reference : references) {
      String problem = problem(reference);
      if (problem != null) {
        missing.add(reference + ": " + problem);
      }
    }
    assertThat(missing)
        .as("references missing on Lettuce " + LettuceVersion.getVersion())
        .isEmpty();
  }

  /**
   * The Lettuce references of every class of the module, each as its constant-pool kind and javap's
   * {@code owner.name:descriptor} (the owner alone for a class).
   */
  private static Set<String> lettuceReferences() throws IOException, URISyntaxException {
    Path location =
        Path.of(LettuceBackends.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> args = new ArrayList<>(List.of("-v", "-p", "-cp", location.toString()));
    args.addAll(classNames(location));
    ToolProvider javap = ToolProvider.findFirst("javap").orElseThrow();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status =
        javap.run(
            new PrintWriter(out, true), new PrintWriter(err, true), args.toArray(String[]::new));
    assertThat(status).as("javap %s: %s", args, err).isZero();
    Set<String> references = new TreeSet<>();
    for (String line : out.toString().split("\\R")) {
      Matcher m = ENTRY.matcher(line);
      if (m.matches() && m.group(2).startsWith("io/lettuce/")) {
        references.add(m.group(1) + " " + m.group(2).replace("\"", ""));
      }
    }
    return references;
  }

  /** The binary names of the module's classes, nested and anonymous ones included. */
  private static List<String> classNames(Path location) throws IOException {
    List<String> entries = new ArrayList<>();
    if (Files.isDirectory(location)) {
      try (Stream<Path> files = Files.walk(location.resolve(PACKAGE))) {
        files.forEach(f -> entries.add(location.relativize(f).toString().replace('\\', '/')));
      }
    } else {
      try (JarFile jar = new JarFile(location.toFile())) {
        jar.stream().map(JarEntry::getName).forEach(entries::add);
      }
    }
    List<String> names = new ArrayList<>();
    for (String entry : entries) {
      if (entry.startsWith(PACKAGE) && entry.endsWith(".class")) {
        names.add(entry.substring(0, entry.length() - ".class".length()).replace('/', '.'));
      }
    }
    assertThat(names)
        .as("classes of the module in %s", location)
        .contains(LettuceBackends.class.getName());
    return names;
  }

  /** Why {@code reference} does not resolve on the class path, or null if it does. */
  private static String problem(String reference) {
    String kind = reference.substring(0, reference.indexOf(' '));
    String target = reference.substring(kind.length() + 1);
    int colon = target.indexOf(':');
    String owner =
        kind.equals("Class") ? target : target.substring(0, target.lastIndexOf('.', colon));
    Class<?> type;
    try {
      // An array owner ("[Lio/lettuce/...;") loads by the same name with dots.
      type =
          Class.forName(owner.replace('/', '.'), false, Lettuce7LinkageTest.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return "no class " + owner + " (" + e + ")";
    }
    if (kind.equals("Class")) {
      return null;
    }
    String name = target.substring(owner.length() + 1, colon);
    String descriptor = target.substring(colon + 1);
    try {
      return resolves(type, kind.equals("Fieldref"), name, descriptor)
          ? null
          : "no such "
              + (kind.equals("Fieldref") ? "field" : "method")
              + " in "
              + owner
              + " or above";
    } catch (LinkageError e) {
      return "cannot read " + owner + "'s members (" + e + ")";
    }
  }

  /**
   * Whether {@code type}, its superclasses or interfaces declare the member (constructors only on
   * {@code type} itself).
   */
  private static boolean resolves(Class<?> type, boolean field, String name, String descriptor) {
    if (name.equals("<init>")) {
      for (Constructor<?> c : type.getDeclaredConstructors()) {
        if (MethodType.methodType(void.class, c.getParameterTypes())
            .toMethodDescriptorString()
            .equals(descriptor)) {
          return true;
        }
      }
      return false;
    }
    Deque<Class<?>> todo = new ArrayDeque<>(List.of(type));
    Set<Class<?>> seen = new HashSet<>();
    while (!todo.isEmpty()) {
      Class<?> c = todo.pop();
      if (!seen.add(c)) {
        continue;
      }
      if (field) {
        for (Field f : c.getDeclaredFields()) {
          if (f.getName().equals(name) && f.getType().descriptorString().equals(descriptor)) {
            return true;
          }
        }
      } else {
        for (Method m : c.getDeclaredMethods()) {
          if (m.getName().equals(name)
              && MethodType.methodType(m.getReturnType(), m.getParameterTypes())
                  .toMethodDescriptorString()
                  .equals(descriptor)) {
            return true;
          }
        }
      }
      if (c.getSuperclass() != null) {
        todo.push(c.getSuperclass());
      }
      todo.addAll(List.of(c.getInterfaces()));
    }
    return false;
  }
}
