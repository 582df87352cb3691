/**
 * An example Spring Cloud Gateway whose route is limited per issued API key, else per client
 * address. Never published.
 */
package io.slidingwindow.examples.gateway;
