package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import org.junit.jupiter.api.Test;

/** What {@link WatchedOutput} notes: a failed write, flush or close, even one caught after. */
class WatchedOutputTest {

  /** A stream whose client went away: every operation fails. */
  private static final class Gone extends OutputStream {
    @Override
    public void write(int b) throws IOException {
      throw new IOException("Broken pipe");
    }

    @Override
    public void flush() throws IOException {
      throw new IOException("Broken pipe");
    }

    @Override
    public void close() throws IOException {
      throw new IOException("Broken pipe");
    }
  }

  @Test
  void writesThatSucceed_noFailure_bytesPassedOn() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    WatchedOutput watched = new WatchedOutput(out);

    watched.write(new byte[] {1, 2, 3}, 1, 2);
    watched.write(4);
    watched.flush();
    watched.close();

    assertThat(out.toByteArray()).containsExactly(2, 3, 4);
    assertThat(watched.failed()).isFalse();
  }

  @Test
  void aFailedWrite_caughtAndIgnored_isStillNoted() {
    WatchedOutput watched = new WatchedOutput(new Gone());

    try {
      watched.write(new byte[8], 0, 8);
    } catch (IOException ignored) {
      // an application's "ignore client abort"
    }

    assertThat(watched.failed()).isTrue();
  }

  @Test
  void eachOperationThatFails_isNoted_andTheFailurePassedOn() {
    for (int operation = 0; operation < 3; operation++) {
      WatchedOutput watched = new WatchedOutput(new Gone());
      int which = operation;
      assertThatThrownBy(
              () -> {
                switch (which) {
                  case 0 -> watched.write(1);
                  case 1 -> watched.flush();
                  default -> watched.close();
                }
              })
          .isInstanceOf(IOException.class)
          .hasMessage("Broken pipe");
      assertThat(watched.failed()).as("operation %d", which).isTrue();
    }
  }
}
