/**
 * Headless Chromium for tests that open a page ({@link
 * io.slidingwindow.testkit.browser.HeadlessChromium}). For tests only.
 */
package io.slidingwindow.testkit.browser;
