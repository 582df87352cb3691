package io.slidingwindow.server.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UInt64Value;
import com.google.protobuf.WireFormat;
import io.slidingwindow.server.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Reads a {@code RateLimitRequest} whose descriptor values need not be UTF-8. Envoy copies a
 * request header's bytes into a descriptor value as they came, and sends them whether or not they
 * are UTF-8; refusing such a request answers Envoy with an error, and Envoy, unless its {@code
 * failure_mode_deny} is set, lets the request through without any of its descriptors counted. So a
 * value that is not UTF-8 is read as {@value #NOT_UTF8} followed by each of its bytes as the
 * character of that code (0 to 255): no UTF-8 text reads as that (it never holds an unpaired
 * surrogate, and JSON's {@code \\u} escapes of one are refused), two byte strings never read as
 * one, and the same bytes always read the same, so the value is counted by its bytes. The domain
 * and the keys, which come from Envoy's configuration, must still be UTF-8. Fields are read as
 * protobuf reads them: the last of a repeated singular scalar wins, messages merge, unknown fields
 * are skipped. Stateless.
 */
final class LenientRequest {

  /**
   * What a value that is not UTF-8 starts with: a lone high surrogate, which no UTF-8 decodes to.
   */
  static final String NOT_UTF8 = "\uD800";

  private static final int DELIMITED = WireFormat.WIRETYPE_LENGTH_DELIMITED;

  /** A domain or key that is not UTF-8. */
  static final class NotUtf8 extends IOException {
    private static final long serialVersionUID = 1L;

    NotUtf8() {
      super("a domain or key that is not UTF-8", null);
    }
  }

  private LenientRequest() {}

  private static int tag(int field, int wireType) {
    return field << 3 | wireType;
  }

  /**
   * Reads {@code bytes}.
   *
   * @throws NotUtf8 if the domain or a key is not UTF-8
   * @throws IOException if the bytes are no {@code RateLimitRequest}
   */
  static RateLimitRequest parse(byte[] bytes) throws IOException {
    CodedInputStream in = CodedInputStream.newInstance(bytes);
    RateLimitRequest.Builder request = RateLimitRequest.newBuilder();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (tag == tag(1, DELIMITED)) {
        request.setDomain(strict(in.readBytes()));
      } else if (tag == tag(2, DELIMITED)) {
        request.addDescriptors(descriptor(in.readBytes()));
      } else if (tag == tag(3, WireFormat.WIRETYPE_VARINT)) {
        request.setHitsAddend(in.readUInt32());
      } else if (!in.skipField(tag)) {
        throw new InvalidProtocolBufferException("an end-group tag where none was opened");
      }
    }
    return request.build();
  }

  private static RateLimitDescriptor descriptor(ByteString bytes) throws IOException {
    CodedInputStream in = bytes.newCodedInput();
    RateLimitDescriptor.Builder descriptor = RateLimitDescriptor.newBuilder();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (tag == tag(1, DELIMITED)) {
        descriptor.addEntries(entry(in.readBytes()));
      } else if (tag == tag(2, DELIMITED)) {
        descriptor.mergeLimit(RateLimitDescriptor.RateLimitOverride.parseFrom(in.readBytes()));
      } else if (tag == tag(3, DELIMITED)) {
        descriptor.mergeHitsAddend(UInt64Value.parseFrom(in.readBytes()));
      } else if (!in.skipField(tag)) {
        throw new InvalidProtocolBufferException("an end-group tag where none was opened");
      }
    }
    return descriptor.build();
  }

  private static RateLimitDescriptor.Entry entry(ByteString bytes) throws IOException {
    CodedInputStream in = bytes.newCodedInput();
    RateLimitDescriptor.Entry.Builder entry = RateLimitDescriptor.Entry.newBuilder();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (tag == tag(1, DELIMITED)) {
        entry.setKey(strict(in.readBytes()));
      } else if (tag == tag(2, DELIMITED)) {
        entry.setValue(value(in.readBytes()));
      } else if (!in.skipField(tag)) {
        throw new InvalidProtocolBufferException("an end-group tag where none was opened");
      }
    }
    return entry.build();
  }

  private static String strict(ByteString bytes) throws NotUtf8 {
    if (!bytes.isValidUtf8()) {
      throw new NotUtf8();
    }
    return bytes.toStringUtf8();
  }

  /** {@code bytes} as text if they are UTF-8, else as {@value #NOT_UTF8} and one char a byte. */
  static String value(ByteString bytes) {
    return bytes.isValidUtf8()
        ? bytes.toStringUtf8()
        : NOT_UTF8 + bytes.toString(StandardCharsets.ISO_8859_1);
  }
}
