package io.slidingwindow.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.slidingwindow.server.decide.Decisions.BadRequest;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * JSON for the HTTP endpoints: one configured mapper, strict UTF-8, error bodies. Reading is strict
 * too: a field named twice in one object, or anything but white space after the document, is
 * malformed JSON, rather than a body that one reader takes for another (the last of two fields, or
 * the first of two documents). Thread-safe.
 */
public final class Json {

  /** The largest request body read, in bytes. */
  public static final int MAX_BODY_BYTES = 1 << 20;

  private static final ObjectMapper MAPPER = new ObjectMapper();

  static {
    MAPPER.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    MAPPER
        .getFactory()
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION.mappedFeature())
        .setStreamReadConstraints(
            StreamReadConstraints.builder()
                .maxNestingDepth(16)
                .maxStringLength(MAX_BODY_BYTES)
                .build());
  }

  private Json() {}

  /** The mapper every endpoint reads and writes with. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** {@code value} as JSON bytes. */
  public static byte[] write(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code {"error": message}}. */
  public static byte[] error(String message) {
    return write(Map.of("error", message));
  }

  /**
   * Returns {@code text}, a string read from JSON, if it is Unicode text. A {@code \\u} escape can
   * spell half of a surrogate pair, which no UTF-8 carries: gRPC could not send such a string (a
   * client sends {@code ?} in its place, or nothing), so HTTP refuses it too rather than count it
   * apart from the text the same client sends on gRPC.
   *
   * @throws BadRequest INVALID_ARGUMENT naming {@code where} and the surrogate's index
   */
  public static String checkText(String text, String where) {
    for (int i = 0, n = text.length(); i < n; i++) {
      char c = text.charAt(i);
      if (!Character.isSurrogate(c)) {
        continue;
      }
      if (Character.isHighSurrogate(c)
          && i + 1 < n
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
        continue;
      }
      throw BadRequest.invalid(
          where + " is not Unicode text: an unpaired surrogate at index " + i + " (a \\u escape)");
    }
    return text;
  }

  /**
   * Checks that {@code bytes} (from its reader index, not moved) are UTF-8, strictly: a malformed
   * sequence (a stray continuation byte, an overlong form, a surrogate, a cut-off character) is
   * refused rather than replaced, so that different values never become the same text. ASCII, the
   * common case, is checked without decoding.
   *
   * @throws IllegalArgumentException saying at which byte the UTF-8 breaks
   */
  public static void checkUtf8(ByteBuf bytes) {
    int start = bytes.readerIndex();
    int end = bytes.writerIndex();
    if (bytes.forEachByte(start, end - start, b -> b >= 0) < 0) {
      return; // every byte below 0x80
    }
    ByteBuffer buffer = bytes.nioBuffer(start, end - start);
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    CharBuffer chars = CharBuffer.allocate(buffer.remaining());
    CoderResult result = decoder.decode(buffer, chars, true);
    if (!result.isError()) {
      result = decoder.flush(chars);
    }
    if (result.isError()) {
      throw new IllegalArgumentException(
          "the body is not valid UTF-8 (at byte " + buffer.position() + ")");
    }
  }
}
