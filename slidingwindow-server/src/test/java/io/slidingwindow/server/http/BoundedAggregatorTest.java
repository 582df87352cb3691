package io.slidingwindow.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.ReferenceCountUtil;
import io.slidingwindow.server.settings.Secret;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the aggregator refuses to read is counted as it is recognised, before (and whether or not)
 * the refusal reaches its turn to be answered; a {@code 100 Continue} is passed on in its request's
 * place, never written by the aggregator.
 */
class BoundedAggregatorTest {

  private final List<String> problems = new ArrayList<>();
  private final EmbeddedChannel channel =
      new EmbeddedChannel(
          new HttpServerCodec(4096, 8192, 8192),
          new BoundedAggregator(problems::add, new Router(null)));

  @Test
  void refusedAndMalformedRequests_countedAsRecognised_noAnswerWritten() {
    receive(
        "POST /v1/decide HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n"
            + "Content-Length: 100000000\r\n\r\n"
            + "POST /v1/decide HTTP/1.1\r\nHost: a\r\nExpect: something-else\r\n"
            + "Content-Length: 0\r\n\r\n"
            + "NOT HTTP AT ALL\r\n\r\n");

    assertThat(problems).containsExactly("too_large", "malformed_http", "malformed_http");
    assertThat(inbound())
        .hasSize(3)
        .allSatisfy(
            m ->
                assertThat(m.getClass().getSimpleName()).isIn("Refusal", "DefaultFullHttpRequest"));
    assertThat(written()).isEmpty();
  }

  @Test
  void expect100Continue_passedOnAheadOfItsRequest_notWritten() {
    receive(
        "POST /v1/decide HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");

    assertThat(written()).as("the 100 waits for its turn").isEmpty();
    receive("{}");
    List<Object> in = inbound();
    assertThat(in).hasSize(2);
    assertThat(in.get(0)).isInstanceOf(BoundedAggregator.Continue.class);
    assertThat(in.get(1).toString()).contains("POST /v1/decide");
    assertThat(problems).isEmpty();
  }

  @Test
  void aRequestTheRouterRefuses_refusedOnItsHead_itsBodyDroppedAsItComes() {
    EmbeddedChannel admin =
        new EmbeddedChannel(
            new HttpServerCodec(4096, 8192, 8192),
            new BoundedAggregator(
                problems::add, new Router(Secret.of("t0ken".toCharArray(), "admin token"))));

    receive(
        admin,
        "PUT /v1/overrides HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer guess\r\n"
            + "Content-Length: 1048576\r\n\r\n"
            + " ".repeat(20_000));

    assertThat(inbound(admin))
        .as("the refusal alone, in the request's place: no body gathered")
        .singleElement()
        .isInstanceOf(BoundedAggregator.Refusal.class);
    receive(admin, " ".repeat(20_000));
    assertThat(inbound(admin)).as("the body still coming is dropped").isEmpty();
    assertThat(written(admin)).isEmpty();
    assertThat(problems).isEmpty();
  }

  private void receive(String text) {
    receive(channel, text);
  }

  private static void receive(EmbeddedChannel channel, String text) {
    channel.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
  }

  private List<Object> inbound() {
    return inbound(channel);
  }

  private static List<Object> inbound(EmbeddedChannel channel) {
    List<Object> messages = new ArrayList<>();
    for (Object m; (m = channel.readInbound()) != null; ) {
      messages.add(m);
      ReferenceCountUtil.release(m);
    }
    return messages;
  }

  private String written() {
    return written(channel);
  }

  private static String written(EmbeddedChannel channel) {
    StringBuilder text = new StringBuilder();
    for (Object m; (m = channel.readOutbound()) != null; ) {
      if (m instanceof ByteBuf bytes) {
        text.append(bytes.toString(StandardCharsets.US_ASCII));
      }
      ReferenceCountUtil.release(m);
    }
    return text.toString();
  }
}
