/**
 * Headless Chromium for tests that open a page ({@link
 * io.slidingwindow.testkit.browser.HeadlessChromium}). For the project's own tests: not a supported
 * API, and it may change without notice in any release.
 */
package io.slidingwindow.testkit.browser;
