package io.slidingwindow.server.admin;

import io.slidingwindow.dashboard.DecisionRecorder;
import io.slidingwindow.dashboard.DecisionRecorder.Outcome;
import io.slidingwindow.server.decide.DecisionRequest;
import io.slidingwindow.server.decide.Decisions.Code;
import io.slidingwindow.server.decide.Decisions.Status;
import io.slidingwindow.server.decide.Decisions.Verdict;

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
   * @param request the request
   * @param verdict its answer, one status per descriptor
   */
  public void record(DecisionRequest request, Verdict verdict) {
    String domain = request.domain();
    for (int d = 0; d < verdict.size(); d++) {
      Status status = verdict.status(d);
      if (status.code() == Code.OVER_LIMIT) {
        recorder.record(domain, status.tag(), Outcome.REFUSED, describe(request, d));
      } else {
        recorder.record(domain, status.tag(), Outcome.ALLOWED, null);
      }
    }
  }

  /** Descriptor {@code d}'s entries as text, built no further than the recorder keeps. */
  private static String describe(DecisionRequest request, int d) {
    StringBuilder text = new StringBuilder();
    for (int e = 0; e < request.entries(d); e++) {
      if (text.length() > 0) {
        text.append(", ");
      }
      text.append(request.key(d, e)).append('=');
      String value = request.value(d, e); // may be long: copy only what the recorder keeps
      int room = DecisionRecorder.MAX_KEY_CHARS + 1 - text.length();
      text.append(value, 0, Math.max(0, Math.min(value.length(), room)));
      if (text.length() > DecisionRecorder.MAX_KEY_CHARS) { // past the bound: the recorder cuts
        break;
      }
    }
    return text.toString();
  }
}
