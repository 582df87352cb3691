package io.slidingwindow.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.slidingwindow.server.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link LenientRequest} reads what protobuf reads, and a value that is not UTF-8 by its bytes. */
class LenientRequestTest {

  private static byte[] message(Writer writer) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    writer.write(out);
    out.flush();
    return bytes.toByteArray();
  }

  private interface Writer {
    void write(CodedOutputStream out) throws IOException;
  }

  /** A request of domain {@code d} and one descriptor of one entry {@code k} = {@code value}. */
  private static byte[] request(byte[] value) throws IOException {
    byte[] entry =
        message(
            out -> {
              out.writeString(1, "k");
              out.writeByteArray(2, value);
            });
    byte[] descriptor = message(out -> out.writeByteArray(1, entry));
    return message(
        out -> {
          out.writeString(1, "d");
          out.writeByteArray(2, descriptor);
          out.writeUInt32(3, 2);
        });
  }

  @Test
  void parse_validRequest_readsWhatProtobufReads() throws IOException {
    RateLimitRequest request =
        RateLimitRequest.newBuilder()
            .setDomain("edge")
            .setHitsAddend(3)
            .addDescriptors(
                RateLimitDescriptor.newBuilder()
                    .addEntries(
                        RateLimitDescriptor.Entry.newBuilder().setKey("user").setValue("ålice")))
            .build();

    assertThat(LenientRequest.parse(request.toByteArray())).isEqualTo(request);
  }

  @Test
  void parse_valueNotUtf8_readByItsBytes_whereProtobufRefuses() throws IOException {
    byte[] bytes = request(new byte[] {(byte) 0xFF, 'A'});
    assertThatThrownBy(() -> RateLimitRequest.parseFrom(bytes))
        .isInstanceOf(InvalidProtocolBufferException.class);

    RateLimitRequest read = LenientRequest.parse(bytes);

    assertThat(read.getDomain()).isEqualTo("d");
    assertThat(read.getHitsAddend()).isEqualTo(2);
    assertThat(read.getDescriptors(0).getEntries(0).getValue())
        .isEqualTo(LenientRequest.NOT_UTF8 + "\u00ffA")
        .isNotEqualTo(new String(new byte[] {(byte) 0xFF, 'A'}, StandardCharsets.UTF_8));
  }

  @Test
  void parse_strayEndGroupTag_isRefused_asProtobufRefusesIt() throws IOException {
    byte[] valid = request(new byte[] {(byte) 0xFF, 'A'});
    byte[] stray = new byte[valid.length + 2];
    System.arraycopy(valid, 0, stray, 0, valid.length);
    stray[valid.length] = 0x0C; // field 1, wire type 4: an end-group tag no group opened
    stray[valid.length + 1] = 0x01;

    assertThatThrownBy(() -> LenientRequest.parse(stray))
        .isInstanceOf(InvalidProtocolBufferException.class);
  }

  @Test
  void parse_domainNotUtf8_isRefused() throws IOException {
    byte[] bytes = message(out -> out.writeByteArray(1, new byte[] {(byte) 0xC3, (byte) 0x28}));

    assertThatThrownBy(() -> LenientRequest.parse(bytes))
        .isInstanceOf(LenientRequest.NotUtf8.class);
  }
}
