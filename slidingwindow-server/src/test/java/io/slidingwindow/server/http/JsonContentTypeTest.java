package io.slidingwindow.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonContentTypeTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "application/json",
        "APPLICATION/JSON",
        "Application/Json",
        "  application/json  ",
        "\tapplication/json",
        "application/json;charset=utf-8",
        "application/json; charset=UTF-8",
        "application/json ; charset=utf-8",
        "application/json; charset=\"utf-8\"",
        "application/json; CHARSET=Utf-8",
        "application/json;",
        "application/json; version=2",
        "application/json; version=2; charset=utf-8",
        "application/json; x=\"a;b\"; charset=utf-8"
      })
  void accepts_jsonInUtf8(String value) {
    assertThat(JsonContentType.accepts(value)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        " ",
        "text/plain",
        "text/plain; charset=utf-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonx",
        "application/json-seq",
        "application/json5",
        "application/problem+json",
        "application/vnd.api+json",
        "text/json",
        "application/jso",
        "application/json charset=utf-8",
        "application/json; charset=iso-8859-1",
        "application/json; charset=utf8",
        "application/json; charset=utf-16",
        "application/json; charset=\"utf-16\"",
        "application/json; charset=",
        "application/json; charset = utf-8",
        "application/json; charset=utf-8x",
        "application/json; charset=utf-8; charset=latin1",
        "application/json; charset=\"utf-8",
        "application/json; =utf-8",
        "application/json; charset",
        "application/json, text/plain",
        "text/plain, application/json",
        "application/json; x=\"a,text/plain\""
      })
  void refuses_everythingElse(String value) {
    assertThat(JsonContentType.accepts(value)).isFalse();
  }

  @Test
  void refuses_noHeader() {
    assertThat(JsonContentType.accepts((String) null)).isFalse();
  }
}
