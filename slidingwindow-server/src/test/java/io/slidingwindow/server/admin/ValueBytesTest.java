package io.slidingwindow.server.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ValueBytesTest {

  @Test
  void escaped_showsPrintableAsciiAsItIs_aBackslashDoubled_andOtherBytesAsHex() {
    assertThat(ValueBytes.escaped("\uD800k\u00ffe\\y\n")).isEqualTo("k\\xffe\\\\y\\x0a");
  }

  @Test
  void parse_readsBackWhatEscapedShows() {
    String value = "\uD800k\u00ffe\\y\n\u0000\u0080";
    assertThat(ValueBytes.parse(ValueBytes.escaped(value))).isEqualTo(value);
  }

  @Test
  void parse_bytesThatAreUtf8_readAsTheirText_asTheGrpcPortReadsThem() {
    assertThat(ValueBytes.parse("caf\\xc3\\xa9")).isEqualTo("café");
    assertThat(ValueBytes.notUtf8(ValueBytes.parse("caf\\xc3"))).isTrue();
  }

  @Test
  void parse_badText_namesTheIndex() {
    assertThatThrownBy(() -> ValueBytes.parse("a\\xg0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("index 1");
    assertThatThrownBy(() -> ValueBytes.parse("é"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("index 0");
    assertThatThrownBy(() -> ValueBytes.parse("a\\"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("index 1");
  }
}
