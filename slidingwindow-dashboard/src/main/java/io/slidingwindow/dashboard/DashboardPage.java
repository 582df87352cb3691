package io.slidingwindow.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

/**
 * The dashboard page and its files, read from the class path, for any server that serves the feed
 * ({@link DashboardFeed}).
 *
 * <p>The page ({@link #page(String)}) links its files by the relative URLs {@code
 * dashboard/}<i>name</i>, so a server serves the page at some path and each file named in {@link
 * #FILES} under {@code dashboard/} next to it: the rate limit service serves the page at {@code /}
 * and {@code /dashboard} and the files under {@code /dashboard/}; the Spring Boot starter serves
 * them under its actuator endpoint. The page polls the feed URL it is given (absolute or relative
 * to the page) and runs no inline script; it carries a Content-Security-Policy in a {@code meta}
 * element, and a server should also send {@link #CONTENT_SECURITY_POLICY} as a header when it can.
 *
 * <p>Files are found only by the fixed names of {@link #FILES}; any other name, including one with
 * a path, finds nothing. Everything is read once, when the page is created; an instance is
 * immutable and safe to share between threads.
 */
public final class DashboardPage {

  /** The names {@link #file(String)} knows: the page's script and style, and uPlot's. */
  public static final Set<String> FILES =
      Set.of("dashboard.js", "dashboard.css", "uPlot.iife.min.js", "uPlot.min.css");

  /** The policy the page needs, to be sent as the {@code Content-Security-Policy} header. */
  public static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
          + "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private static final String RESOURCES = "/io/slidingwindow/dashboard/page/";
  private static final String UPLOT_POM = "/META-INF/maven/org.webjars.npm/uplot/pom.properties";
  private static final String FEED_PLACEHOLDER = "{{feed}}";
  private static final String HTML = "text/html; charset=utf-8";
  private static final String JAVASCRIPT = "text/javascript; charset=utf-8";
  private static final String CSS = "text/css; charset=utf-8";

  /**
   * One file of the page: its bytes and its {@code Content-Type}, for example {@code "text/css;
   * charset=utf-8"}.
   */
  @SuppressWarnings("ArrayRecordComponent") // read once, served as is, never compared
  public record File(String contentType, byte[] bytes) {}

  private final String template;
  private final Map<String, File> files = new LinkedHashMap<>();

  private DashboardPage() {
    template = new String(read(RESOURCES + "index.html"), StandardCharsets.UTF_8);
    if (!template.contains(FEED_PLACEHOLDER)) {
      throw new IllegalStateException("dashboard page has no " + FEED_PLACEHOLDER);
    }
    files.put("dashboard.js", new File(JAVASCRIPT, read(RESOURCES + "dashboard.js")));
    files.put("dashboard.css", new File(CSS, read(RESOURCES + "dashboard.css")));
    String uplot = "/META-INF/resources/webjars/uplot/" + uplotVersion() + "/dist/";
    files.put("uPlot.iife.min.js", new File(JAVASCRIPT, read(uplot + "uPlot.iife.min.js")));
    files.put("uPlot.min.css", new File(CSS, read(uplot + "uPlot.min.css")));
  }

  /**
   * Reads the page and its files from the class path.
   *
   * @throws IllegalStateException if one of them, or uPlot's webjar, is missing
   */
  public static DashboardPage load() {
    return new DashboardPage();
  }

  /**
   * The page, polling {@code feedUrl}.
   *
   * @param feedUrl the feed's URL, absolute ({@code "/v1/dashboard"}) or relative to the page
   *     ({@code "../slidingwindow"}); escaped for the HTML attribute that holds it
   * @return the page, {@code text/html; charset=utf-8}
   * @throws IllegalArgumentException if {@code feedUrl} is blank
   */
  public File page(String feedUrl) {
    if (feedUrl == null || feedUrl.isBlank()) {
      throw new IllegalArgumentException("feedUrl must not be blank: " + feedUrl);
    }
    String html = template.replace(FEED_PLACEHOLDER, escapeAttribute(feedUrl));
    return new File(HTML, html.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The file named {@code name}, one of {@link #FILES}; any other name, such as {@code
   * "../index.html"} or {@code "index.html"}, is empty.
   */
  public Optional<File> file(String name) {
    return Optional.ofNullable(name == null ? null : files.get(name));
  }

  private static String escapeAttribute(String value) {
    StringBuilder out = new StringBuilder(value.length());
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  private static String uplotVersion() {
    Properties properties = new Properties();
    try (InputStream in = DashboardPage.class.getResourceAsStream(UPLOT_POM)) {
      if (in == null) {
        throw new IllegalStateException("uPlot is missing from the class path: no " + UPLOT_POM);
      }
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return properties.getProperty("version");
  }

  private static byte[] read(String path) {
    try (InputStream in = DashboardPage.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("dashboard file missing from the class path: " + path);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
