/** A Jersey service whose {@code GET /hello} is limited per client address. Never published. */
package io.slidingwindow.examples.jaxrs;
