package io.slidingwindow.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DashboardPageTest {

  private final DashboardPage page = DashboardPage.load();

  @Test
  void page_feedUrl_filledInEscapedWithRelativeFileLinks() {
    DashboardPage.File file = page.page("../slidingwindow?a=1&b=\"2\"");

    String html = new String(file.bytes(), StandardCharsets.UTF_8);
    assertThat(file.contentType()).isEqualTo("text/html; charset=utf-8");
    assertThat(html)
        .contains("data-feed=\"../slidingwindow?a=1&amp;b=&quot;2&quot;\"")
        .contains("src=\"dashboard/dashboard.js\"", "src=\"dashboard/uPlot.iife.min.js\"")
        .contains("href=\"dashboard/dashboard.css\"", "href=\"dashboard/uPlot.min.css\"")
        .contains("http-equiv=\"Content-Security-Policy\"")
        .doesNotContain("{{feed}}", "http://", "https://", "src=\"/", "href=\"/");
  }

  @Test
  void page_blankFeedUrl_throws() {
    assertThatThrownBy(() -> page.page(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("feedUrl");
  }

  @Test
  void file_everyWhitelistedName_foundWithItsType() {
    assertThat(page.file("dashboard.js").orElseThrow().contentType())
        .isEqualTo("text/javascript; charset=utf-8");
    assertThat(new String(page.file("dashboard.js").orElseThrow().bytes(), StandardCharsets.UTF_8))
        .contains("dataset.feed");
    assertThat(page.file("dashboard.css").orElseThrow().contentType())
        .isEqualTo("text/css; charset=utf-8");
    assertThat(
            new String(
                page.file("uPlot.iife.min.js").orElseThrow().bytes(), StandardCharsets.UTF_8))
        .contains("uPlot");
    assertThat(new String(page.file("uPlot.min.css").orElseThrow().bytes(), StandardCharsets.UTF_8))
        .contains(".uplot");
    for (String name : DashboardPage.FILES) {
      assertThat(page.file(name)).as(name).isPresent();
    }
  }

  @Test
  void file_unknownOrTraversingName_empty() {
    for (String name :
        new String[] {
          "index.html", "nothing.js", "../page/dashboard.js", "/dashboard.js", "DASHBOARD.JS", ""
        }) {
      assertThat(page.file(name)).as(name).isEmpty();
    }
    assertThat(page.file(null)).isEmpty();
  }
}
