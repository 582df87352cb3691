package io.slidingwindow.spring.boot.web;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * The condition and properties every web auto-configuration of the starter shares: on unless {@code
 * slidingwindow.http.enabled} is false, with {@link SlidingWindowHttpProperties} bound.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Documented
@ConditionalOnProperty(
    prefix = SlidingWindowHttpProperties.PREFIX,
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(SlidingWindowHttpProperties.class)
@interface WhenHttpEnabled {}
