/**
 * The one table of attacks that every way in of the project faces ({@link
 * io.slidingwindow.testkit.http.AttackTable}, joined with a {@link
 * io.slidingwindow.testkit.http.WayIn}): path spellings, made-up and rotated keys, long keys,
 * forwarded headers and keys that fail, each sent by a real client from a loopback address of its
 * own, with {@link io.slidingwindow.testkit.http.RawHttp} for requests sent byte for byte. The
 * classes that are not public are the table's own and may change. For the project's own tests: not
 * a supported API, and it may change without notice in any release.
 */
package io.slidingwindow.testkit.http;
