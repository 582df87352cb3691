package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

/**
 * The edges of each reading of a request path: a '%' or separator at the first or last position of
 * a path, a segment or a decoded range, the boundaries of a context path, and the bounds on how far
 * a spelled-out context path is followed. Each test pins one side of a comparison in {@link
 * RequestPaths}.
 */
class RequestPathsEdgesTest {

  @Test
  void pathOfTarget_queryOrFragmentAtTheFirstCharacter_leaveAnEmptyPath() {
    assertThat(RequestPaths.pathOfTarget("?a=1")).isEmpty();
    assertThat(RequestPaths.pathOfTarget("#top")).isEmpty();
    assertThat(RequestPaths.pathOfTarget("/a?b#c")).isEqualTo("/a");
    assertThat(RequestPaths.pathOfTarget("/a#b?c")).isEqualTo("/a");
  }

  @Test
  void pathOfTarget_schemeSeparatorAtTheStart_isNoAbsoluteForm() {
    assertThat(RequestPaths.pathOfTarget("://host/p")).isEqualTo("://host/p");
    assertThat(RequestPaths.pathOfTarget("h://host/p")).isEqualTo("/p");
    assertThat(RequestPaths.pathOfTarget("http://host")).isEqualTo("/");
    // "://" that does not follow the scheme's first slash-free run is no authority.
    assertThat(RequestPaths.pathOfTarget("/a://b/c")).isEqualTo("/a://b/c");
  }

  @Test
  void withinContext_rootOrNoContext_leavesThePathAlone() {
    for (String context : new String[] {null, "", "/"}) {
      assertThat(RequestPaths.withinContext("/v1/x", context)).as(context).containsExactly("/v1/x");
    }
  }

  @Test
  void withinContext_pathThatIsTheContext_leavesTheEmptyRest() {
    assertThat(RequestPaths.withinContext("/app", "/app")).containsExactly("");
    assertThat(RequestPaths.withinContext("/app/", "/app")).containsExactly("/");
    assertThat(RequestPaths.withinContext("/apple", "/app")).containsExactly("/apple");
  }

  @Test
  void withinContext_plainPathWithDotSegments_isAlsoStrippedAsRead() {
    assertThat(RequestPaths.withinContext("/app/../app/v", "/app"))
        .containsExactly("/../app/v", "/v");
  }

  @Test
  void withinContext_contextEndingInPathParameters_isStrippedLiterallyAndAsRead() {
    assertThat(RequestPaths.withinContext("/app;jsessionid=1/v1", "/app"))
        .containsExactly(";jsessionid=1/v1", "/v1");
  }

  @Test
  void withinContext_spelledOutContextReachingTheEnd_leavesTheEmptyRest() {
    assertThat(RequestPaths.withinContext("/%61pp", "/app")).containsExactly("");
    assertThat(RequestPaths.withinContext("/%61pp/v1", "/app")).containsExactly("/v1");
  }

  @Test
  void withinContext_spelledOutContext_isFollowedThroughSixteenSegmentBoundariesAndNoFurther() {
    // With k pairs "/a/..", the prefix that reads as "/app" ends at segment boundary 2k + 1.
    assertThat(RequestPaths.withinContext("/a/..".repeat(7) + "/app/v", "/app"))
        .containsExactly("/v");
    String beyond = "/a/..".repeat(8) + "/app/v";
    assertThat(RequestPaths.withinContext(beyond, "/app")).containsExactly(beyond);
  }

  @Test
  void dispatcherReading_trailingSlashAfterAnEncodedSegment_isKept() {
    assertThat(RequestPaths.dispatcherReading("/a%20/")).isEqualTo("/a /");
    assertThat(RequestPaths.dispatcherReading("/a%20")).isEqualTo("/a ");
  }

  @Test
  void segmentReading_trailingSlash_isKept() {
    assertThat(RequestPaths.segmentReading("/files/a%2Fb/")).isEqualTo("/files/a%2Fb/");
  }

  @Test
  void segmentReading_percentWithoutTwoDigitsAtTheEnd_staysAsItIs() {
    assertThat(RequestPaths.segmentReading("/x%2")).isEqualTo("/x%2");
    assertThat(RequestPaths.segmentReading("/x%")).isEqualTo("/x%");
    assertThat(RequestPaths.segmentReading("/x%2/F")).isEqualTo("/x%2/F");
  }

  @Test
  void readings_percentWithoutTwoDigitsAtTheEnd_areReadWithoutFailing() {
    assertThat(RequestPaths.readings(null, "/a%2", null)).containsExactly("/a%2");
    assertThat(RequestPaths.readings(null, "/a%", null)).containsExactly("/a%");
  }

  @Test
  void readings_pathOfBackslashesOnly_addTheReadingThatKeepsThemInTheSegment() {
    assertThat(RequestPaths.readings(null, "\\", null)).containsExactly("/", "/%5C");
    assertThat(RequestPaths.readings(null, "/a\\b", null)).containsExactly("/a/b", "/a%5Cb");
  }

  @Test
  void decode_percentRightAfterTheRange_isOutsideIt() {
    // The range holds a lone surrogate, which decoding would turn into '?'.
    assertThat(RequestPaths.decode("\uD800%41", 0, 1)).isEqualTo("\uD800");
    assertThat(RequestPaths.decode("x%41", 0, 1)).isEqualTo("x");
  }

  @Test
  void decode_escapeCutByTheEndOfTheRange_staysAsItIs() {
    assertThat(RequestPaths.decode("%41", 0, 2)).isEqualTo("%4");
    assertThat(RequestPaths.decode("%4", 0, 2)).isEqualTo("%4");
    assertThat(RequestPaths.decode("a%41", 1, 4)).isEqualTo("A");
  }

  @Test
  void decode_firstCharacterBeyondAscii_isKeptAsItsUtf8() {
    assertThat(RequestPaths.decode("\u0080%41\u007F", 0, 5)).isEqualTo("\u0080A\u007F");
  }

  @Test
  void withinContext_contextOfMoreSegmentsThanAreFollowed_isStillStrippedLiterally() {
    String context = "/s".repeat(17);
    assertThat(RequestPaths.withinContext(context + "/x", context)).containsExactly("/x");
  }

  @Test
  void decode_escapesWithADigitZero_areDecoded() {
    assertThat(RequestPaths.decode("%0A%20%30", 0, 9)).isEqualTo("\n 0");
    assertThat(RequestPaths.decode("%00", 0, 3)).isEqualTo("\0");
    assertThat(RequestPaths.decode("%4a%4A", 0, 6)).isEqualTo("JJ");
  }

  @Test
  void decode_nonAsciiBesideEscapes_isKeptAsItsUtf8() {
    assertThat(RequestPaths.decode("é%41ß", 0, 5)).isEqualTo("éAß");
    assertThat(RequestPaths.decode("\uD83D\uDE00%41", 0, 5)).isEqualTo("\uD83D\uDE00A");
    // A high surrogate cut off by the end of the range is malformed, as is a lone one.
    assertThat(RequestPaths.decode("%41\uD83D\uDE00", 0, 4)).isEqualTo("A?");
    assertThat(RequestPaths.decode("%C3%A9", 0, 6)).isEqualTo("é");
    assertThat(RequestPaths.decode("%C3", 0, 3)).isEqualTo("\uFFFD");
  }

  /**
   * Without a backslash or an encoded slash or backslash, splitting on '/' alone (the segment
   * reading) reads a path as the dispatcher reading does: so the segment reading is taken only for
   * paths that have one, and taking it for every path would change no set of readings.
   */
  @Property(tries = 300)
  void segmentReading_pathWithoutEncodedSeparators_isTheDispatcherReading(
      @ForAll
          @StringLength(max = 12)
          @Chars({'/', '%', ';', '.', '2', '5', 'F', 'f', 'C', 'c', 'a'})
          @CharRange(from = '0', to = '9')
          String raw) {
    String upper = raw.toUpperCase(Locale.ROOT);
    if (upper.contains("%2F") || upper.contains("%5C")) {
      return;
    }
    assertThat(RequestPaths.segmentReading(raw)).isEqualTo(RequestPaths.dispatcherReading(raw));
  }
}
