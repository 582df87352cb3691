/**
 * The example service ({@link io.slidingwindow.examples.DemoApplication}, a Spring Boot API whose
 * endpoints are limited by rules and {@code @RateLimit}) and the burst demo ({@link
 * io.slidingwindow.examples.BurstDemo}). Examples to read and run; never published.
 */
package io.slidingwindow.examples;
