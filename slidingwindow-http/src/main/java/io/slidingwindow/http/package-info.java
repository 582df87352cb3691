/**
 * HTTP rate limiting that no server API owns, shared by every web stack: rules ({@link
 * io.slidingwindow.http.HttpRule}, {@link io.slidingwindow.http.PathPattern}), path safety ({@link
 * io.slidingwindow.http.PathFirewall}, {@link io.slidingwindow.http.RequestPaths}), keys and their
 * namespaces ({@link io.slidingwindow.http.RequestKey}), the client address ({@link
 * io.slidingwindow.http.ClientAddresses}), the backend seam ({@link
 * io.slidingwindow.http.RateLimiterFactory}), listeners ({@link
 * io.slidingwindow.http.RateLimitListener}), the draft-10 headers and 429 answers ({@link
 * io.slidingwindow.http.QuotaHeaders}, {@link io.slidingwindow.http.RefusalReplies}, {@link
 * io.slidingwindow.http.HttpReply}) and the one enforcement the adapters drive ({@link
 * io.slidingwindow.http.EnforcementCore}). Depends on the core only; the classes that are not
 * public are implementation and may change.
 */
package io.slidingwindow.http;
