package io.slidingwindow.server.internal;

import io.slidingwindow.dashboard.DecisionRecorder;
import io.slidingwindow.dashboard.DecisionRecorder.Outcome;
import io.slidingwindow.server.internal.Decisions.Code;
import io.slidingwindow.server.internal.Decisions.Descriptor;
import io.slidingwindow.server.internal.Decisions.Entry;
import io.slidingwindow.server.internal.Decisions.Status;
import io.slidingwindow.server.internal.Decisions.Verdict;
import java.util.List;

/**
 * Records the service's verdicts in a {@link DecisionRecorder}: one decision per descriptor, under
 * the request's domain and the matched rule's path ({@code ""} for a descriptor no rule matched),
 * and for every descriptor answered OVER_LIMIT a refusal whose key is the descriptor's entries as
 * {@code key=value}, joined by {@code ", "}. A shadow-mode refusal is answered OK and recorded as a
 * decision only. Thread-safe, as the recorder is.
 */
public final class VerdictRecorder {

  private final DecisionRecorder recorder;

  /** Records into {@code recorder}. */
  public VerdictRecorder(DecisionRecorder recorder) {
    if (recorder == null) {
      throw new IllegalArgumentException("recorder must not be null");
    }
    this.recorder = recorder;
  }

  /** The recorder written to. */
  public DecisionRecorder recorder() {
    return recorder;
  }

  /**
   * Records a decided request.
   *
   * @param domain the request's domain
   * @param descriptors the request's descriptors, in the order of {@code verdict}'s statuses
   * @param verdict the answer
   */
  public void record(String domain, List<Descriptor> descriptors, Verdict verdict) {
    List<Status> statuses = verdict.statuses();
    for (int i = 0; i < statuses.size(); i++) {
      Status status = statuses.get(i);
      if (status.code() == Code.OVER_LIMIT) {
        Descriptor descriptor = i < descriptors.size() ? descriptors.get(i) : null;
        recorder.record(domain, status.rule(), Outcome.REFUSED, describe(descriptor));
      } else {
        recorder.record(domain, status.rule(), Outcome.ALLOWED, null);
      }
    }
  }

  /** The entries as text, built no further than the recorder keeps. */
  private static String describe(Descriptor descriptor) {
    if (descriptor == null) {
      return null;
    }
    StringBuilder text = new StringBuilder();
    for (Entry entry : descriptor.entries()) {
      if (text.length() > 0) {
        text.append(", ");
      }
      text.append(entry.key()).append('=').append(entry.value());
      if (text.length() >= DecisionRecorder.MAX_KEY_CHARS) {
        break;
      }
    }
    return text.toString();
  }
}
