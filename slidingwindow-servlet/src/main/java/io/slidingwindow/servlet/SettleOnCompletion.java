package io.slidingwindow.servlet;

import io.slidingwindow.http.Settlement;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Settles a request's permits when its asynchronous processing completes, with the status the
 * answer then has ({@link RateLimitEnforcer#settle}).
 */
record SettleOnCompletion(Settlement settlement, HttpServletResponse response)
    implements AsyncListener {
  @Override
  public void onComplete(AsyncEvent event) {
    settlement.settle(response.getStatus());
  }

  @Override
  public void onTimeout(AsyncEvent event) {}

  @Override
  public void onError(AsyncEvent event) {}

  @Override
  public void onStartAsync(AsyncEvent event) {
    event.getAsyncContext().addListener(this); // a new cycle: settle at its end
  }
}
